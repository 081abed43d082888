import Foundation
import Screen

extension WaylandScreen {
    /// The per-second stats line's `"display"` member: what reached glass by the compositor's own
    /// word (wp_presentation: presented, discarded, zero-copy; commit → presented latency), how
    /// the pictures went (wl_shm after a CPU conversion, or linux-dmabuf), and what was dropped.
    public var statsMember: String? {
        let s = stats, p = s.presentation
        let ms = { (ns: UInt64) in String(format: "%.2f", Double(ns) / 1e6) }
        return "\"display\":{\"backend\":\"wayland\",\"committed\":\(p.committed),\"presented\":\(p.presented),"
            + "\"discarded\":\(p.discarded),\"zero_copy\":\(p.zeroCopy),\"unanswered\":\(p.unanswered),"
            + "\"commit_to_present_ms\":\(ms(p.meanLatencyNs)),\"shm\":\(s.shmFrames),\"shm_10bit\":\(s.shmDeepFrames),\"dmabuf\":\(s.dmabufFrames),"
            + "\"no_free_buffer\":\(s.noFreeBuffer),\"refused\":\(s.refused),"
            + "\"convert_ms\":\(ms(s.shmFrames == 0 ? 0 : s.convertNsSum / s.shmFrames)),\"hidden\":\(s.hidden)}"
    }

    /// The start-up line of a stream on stderr (scripts and the Wayland harness read it), like
    /// KMS's `{"drm":…}`: `{"wayland":{"output":…,"mode":…,"clock":…,"dmabuf":…,"panel":…,"shm_10bit":…}}`.
    func reportStart() {
        let line = "{\"wayland\":{\"output\":\"\(currentOutput?.displayName ?? "unknown")\",\"mode\":\"\(mode.name)\","
            + "\"clock\":\"\(presentationClockName ?? "none (no wp_presentation)")\","
            + "\"dmabuf\":\(dmabufFeedback != nil),\"panel\":\"\(panelRoute)\","
            + "\"shm_10bit\":\"\(deepShm.map { "\($0.layout)" } ?? "none")\"}}\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The end-of-stream summary line on stderr: the stats member's figures.
    func reportSummary() {
        guard let member = statsMember else { return }
        FileHandle.standardError.write(Data("{\"summary\":true,\(member)}\n".utf8))
    }
}
