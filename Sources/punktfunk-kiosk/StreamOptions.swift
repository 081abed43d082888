import ArgumentParser
import Kiosk
import VideoDecode

/// The decoder and bitrate options of the commands that run a live session, declared once.
struct StreamOptions: ParsableArguments {
    @Option(help: "Decoder rung: auto (VA-API, then V4L2 stateless, then software), vaapi, v4l2, or software (default: the config's, else auto for the kiosk and software for connect and demo).")
    var decoder: String?
    @Option(help: "Start the video at this bitrate, kbit/s; with --bitrate-mode auto also the most the rate climbs to (default: the config's, else the host's choice).")
    var bitrate: UInt32?
    @Option(name: .customLong("bitrate-mode"), help: "auto: the rate follows the line (cuts when it congests, climbs when it clears); fixed: the rate never moves (default: the config's, else auto).")
    var bitrateMode: String?
    @Option(name: .customLong("rate-log"), help: "Write one JSON line per 750 ms Feedback window of the rate loop to this file: the asked and granted rate, what was delivered, the delay rise, the loss, the verdict and its reason.")
    var rateLog: String?
    @Option(help: "Write one JSON line per decoded picture to this file: {\"frame\":N,\"md5\":\"…\",\"shown\":true|false} (its wire frame, the MD5 `decode --framemd5` prints for it, whether it went to the screen). For bug reports; costs a hash per picture.")
    var pictureLog: String?

    func validate() throws {
        if let decoder, DecoderChoice(decoder) == nil { throw ValidationError("--decoder must be auto, vaapi, v4l2 or software") }
        if bitrate == 0 { throw ValidationError("--bitrate must be a positive number of kbit/s") }
        if let bitrateMode, BitrateMode(rawValue: bitrateMode) == nil { throw ValidationError("--bitrate-mode must be auto or fixed") }
    }

    /// The decoder rungs: the option's, else the config's (validated when read), else `fallback`'s.
    func rungs(config: KioskConfig, fallback: String) -> [DecoderRungKind] {
        DecoderChoice(decoder ?? config.decoder ?? fallback)!.rungs
    }
}
