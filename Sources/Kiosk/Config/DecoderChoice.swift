import VideoDecode

/// `decoder` (config) and `--decoder`: which rungs of the decoder ladder to try, in order.
public struct DecoderChoice: Sendable {
    public let rungs: [DecoderRungKind]

    /// nil unless `text` is `auto`, `vaapi`, `v4l2` or `software`.
    public init?(_ text: String) {
        switch text {
        case "vaapi": rungs = [.vaapi]
        case "v4l2": rungs = [.v4l2]
        case "auto": rungs = DecoderRungKind.automatic
        case "software": rungs = [.software]
        default: return nil
        }
    }
}
