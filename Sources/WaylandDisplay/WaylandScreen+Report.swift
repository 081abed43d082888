import Foundation
import Screen

extension WaylandScreen {
    /// The per-second stats line's `"display"` member: the window's size in surface units and in
    /// pixels now (`window`, `pixels`: a compositor may configure the fullscreen size only once
    /// the window is mapped); every commit (`committed`); what reached
    /// glass by the compositor's own word where it gives one (`feedback` `wp_presentation`:
    /// presented, discarded, zero-copy, unanswered; commit → presented latency — without it,
    /// `feedback` is `none` and those members are left out, not zero); how the pictures went
    /// (wl_shm after a CPU conversion, or linux-dmabuf), what was dropped; whether the compositor
    /// says the window is hidden; and where the newest picture is placed (`scaling`, `picture`,
    /// `place` in the window's pixels, `scaler`: `compositor`, `cpu`, `none` or `1:1` with `why`).
    public var statsMember: String? {
        let s = stats, p = s.presentation
        let ms = { (ns: UInt64) in String(format: "%.2f", Double(ns) / 1e6) }
        var member = "\"display\":{\"backend\":\"wayland\",\"window\":\"\(layout.logicalWidth)x\(layout.logicalHeight)\","
            + "\"pixels\":\"\(layout.pixelWidth)x\(layout.pixelHeight)\",\"committed\":\(s.committed),"
        if connection.presentation != nil {
            member += "\"feedback\":\"wp_presentation\",\"presented\":\(p.presented),\"discarded\":\(p.discarded),"
                + "\"superseded\":\(p.superseded),"
                + "\"zero_copy\":\(p.zeroCopy),\"unanswered\":\(p.unanswered),\"commit_to_present_ms\":\(ms(p.meanLatencyNs)),"
        } else {
            member += "\"feedback\":\"none\","
        }
        member += "\"shm\":\(s.shmFrames),\"shm_10bit\":\(s.shmDeepFrames),\"dmabuf\":\(s.dmabufFrames),"
            + "\"no_free_buffer\":\(s.noFreeBuffer),\"refused\":\(s.refused),"
            + "\"convert_ms\":\(ms(s.shmFrames == 0 ? 0 : s.convertNsSum / s.shmFrames)),\"hidden\":\(s.hidden),"
            + "\"scaling\":\"\(scaling.rawValue)\""
        if let f = fitState {
            member += ",\"picture\":\"\(f.picture)\",\"place\":\"\(f.place)\",\"scaler\":\"\(f.scaler)\""
            if let why = f.why { member += ",\"why\":\"\(why)\"" }
        }
        return member + "}"
    }

    /// The start-up line of a stream on stderr (scripts and the Wayland harness read it), like
    /// KMS's `{"drm":…}`: `{"wayland":{"output":…,"mode":…,"logical":"WxH","clock":…,"dmabuf":…,
    /// "panel":…,"shm_10bit":…}}` (`mode`: the window's pixels, what the host is asked for).
    func reportStart() {
        let line = "{\"wayland\":{\"output\":\"\(currentOutput?.displayName ?? "unknown")\",\"mode\":\"\(mode.name)\","
            + "\"logical\":\"\(layout.logicalWidth)x\(layout.logicalHeight)\","
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
