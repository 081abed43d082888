import Foundation
import VideoDecode
import VideoFrames

/// `--picture-log FILE`: one JSON object per line for every picture the decoder produced,
/// `{"frame":N,"md5":"HEX","shown":true|false}` — the wire frame index of its access unit, the
/// MD5 `decode --framemd5` (and so `ffmpeg -f framemd5`) prints for that picture, and whether the
/// re-anchor gate let it through to the display (headless: whether it would have). A picture of
/// a hardware rung is read back for its hash. The picture that ends a hold after a loss also
/// carries `"lifted_after_ms"`: how long the screen had held the last good picture (from the
/// loss being seen to this first clean picture). For bug reports and tests; it costs a hash per
/// picture, so it is off by default.
///
/// Written on the decode thread only; lines are flushed as they are written.
public final class PictureLog: @unchecked Sendable {
    private let file: JSONLinesFile
    /// Pictures logged, and pictures whose read-back failed (logged with `"md5":null`).
    public var lines: Int { file.lines }
    public private(set) var readbackFailures = 0

    /// Creates (truncates) `path`. - Throws: a sentence naming the file when it cannot be written.
    public init(path: String) throws { file = try JSONLinesFile(path: path, what: "picture log") }

    /// Logs one decoded picture of wire frame `frame`; `liftedAfterNs`: the hold it ended.
    public func log(frame: UInt32, picture: DecodedPicture, shown: Bool, liftedAfterNs: UInt64? = nil) {
        var md5 = "null"
        switch picture {
        case .cpu(let f):
            md5 = "\"\(FrameMD5.hex(FrameMD5.nativeBytes(of: f)))\""
        case .dmaBuf(let f):
            if let read = try? f.readPixels() {
                md5 = "\"\(FrameMD5.hex(FrameMD5.nativeBytes(of: read)))\""
            } else {
                readbackFailures += 1
            }
        }
        let lift = liftedAfterNs.map { ",\"lifted_after_ms\":\(String(format: "%.1f", Double($0) / 1e6))" } ?? ""
        file.write("{\"frame\":\(frame),\"md5\":\(md5),\"shown\":\(shown)\(lift)}")
    }
}
