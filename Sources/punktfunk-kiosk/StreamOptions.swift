import ArgumentParser
import Kiosk
import VideoDecode

/// The decoder and bitrate options of the commands that run a live session, declared once.
struct StreamOptions: ParsableArguments {
    @Option(help: "Decoder rung: auto (VA-API, then V4L2 stateless, then software), vaapi, v4l2, or software (default: the config's, else auto for the kiosk and software for connect and demo).")
    var decoder: String?
    @Option(help: "Ask the host for this video bitrate, kbit/s (default: the config's, else the host's choice).")
    var bitrate: UInt32?
    @Option(help: "Write one JSON line per decoded picture to this file: {\"frame\":N,\"md5\":\"…\",\"shown\":true|false} (its wire frame, the MD5 `decode --framemd5` prints for it, whether it went to the screen). For bug reports; costs a hash per picture.")
    var pictureLog: String?

    func validate() throws {
        if let decoder, DecoderChoice(decoder) == nil { throw ValidationError("--decoder must be auto, vaapi, v4l2 or software") }
        if bitrate == 0 { throw ValidationError("--bitrate must be a positive number of kbit/s") }
    }

    /// The decoder rungs: the option's, else the config's (validated when read), else `fallback`'s.
    func rungs(config: KioskConfig, fallback: String) -> [DecoderRungKind] {
        DecoderChoice(decoder ?? config.decoder ?? fallback)!.rungs
    }
}
