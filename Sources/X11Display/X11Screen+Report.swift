import Foundation
import Screen

extension X11Screen {
    /// The per-second stats line's `"display"` member: the window's pixels, every PresentPixmap
    /// (`committed`), what the server's CompleteNotify said (`presented`, `discarded` — Present
    /// skipped it for a newer pixmap —, `flipped`, `unanswered`, commit → present latency), how
    /// pictures went (MIT-SHM or PutImage, read back from the GPU), what was dropped, and where
    /// the newest picture is placed (`scaler`: `cpu`, `none`, or `1:1` with `why`).
    public var statsMember: String? {
        let s = stats, p = s.presentation
        let ms = { (ns: UInt64) in String(format: "%.2f", Double(ns) / 1e6) }
        let frames = s.shmFrames + s.putImageFrames
        var member = "\"display\":{\"backend\":\"x11\",\"pixels\":\"\(mode.width)x\(mode.height)\",\"committed\":\(s.committed),"
        member += "\"feedback\":\"present\",\"presented\":\(p.presented),\"discarded\":\(p.discarded),\"superseded\":\(p.superseded),"
        member += "\"flipped\":\(s.flips),\"unanswered\":\(p.unanswered),\"commit_to_present_ms\":\(ms(p.meanLatencyNs)),"
        member += "\"shm\":\(s.shmFrames),\"put_image\":\(s.putImageFrames),\"read_back\":\(s.readBack),"
        member += "\"no_free_buffer\":\(s.noFreeBuffer),\"refused\":\(s.refused),\"repaints\":\(s.repaints),\"x11_errors\":\(s.x11Errors),"
        member += "\"convert_ms\":\(ms(frames == 0 ? 0 : s.convertNsSum / frames)),\"scaling\":\"\(scaling.rawValue)\""
        if let f = fitState {
            member += ",\"picture\":\"\(f.picture)\",\"place\":\"\(f.place)\",\"scaler\":\"\(f.scaler)\""
            if let why = f.why { member += ",\"why\":\"\(why)\"" }
        }
        return member + "}"
    }

    /// The start-up line of a stream on stderr (scripts and the harness read it), like KMS's
    /// `{"drm":…}` and Wayland's `{"wayland":…}`.
    func reportStart() {
        let c = connection
        var line = "{\"x11\":{\"display\":\(JSON.string(c.displayName)),\"server\":\(JSON.string(c.vendor)),"
        line += "\"release\":\(c.release),\"xwayland\":\(c.isXwayland),\"wm\":\(windowManager.map(JSON.string) ?? "null"),"
        line += "\"mode\":\"\(mode.name)\",\"present\":\"\(c.presentVersion.major).\(c.presentVersion.minor)\","
        line += "\"pixels\":\"\(picturePath.pixels.rawValue)\",\"dri3\":\(picturePath.dri3Offered),"
        line += "\"xinput\":\(c.xinputVersion.map { "\"\($0.major).\($0.minor)\"" } ?? "null"),\"panel\":\"composited\"}}\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The end-of-stream summary line on stderr: the stats member's figures.
    func reportSummary() {
        guard let member = statsMember else { return }
        FileHandle.standardError.write(Data("{\"summary\":true,\(member)}\n".utf8))
    }
}
