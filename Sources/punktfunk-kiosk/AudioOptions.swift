import ArgumentParser
import Kiosk

/// The sound options of the commands that run a live session, declared once.
struct AudioOptions: ParsableArguments {
    @Option(help: "auto: play the session's sound on the HDMI/DP output of the display (matched by its ELD or jack), else ALSA's default; none: no sound.")
    var audio = "auto"
    @Option(name: .customLong("audio-device"), help: "Play the sound on this ALSA PCM (e.g. hw:CARD=PCH,DEV=3, hdmi:0, default) instead of choosing one.")
    var audioDevice: String?
    @Option(name: .customLong("audio-priority"), help: "SCHED_FIFO priority of the audio thread, 1-99, or 0 for SCHED_OTHER (below the presenting thread's by default; refused → SCHED_OTHER, said at start).")
    var audioPriority: Int32 = 5
    @Option(help: "Send this ALSA capture device (e.g. hw:CARD=Headset,DEV=0, default) to the host as the microphone (10 ms mono Opus with in-band FEC), when the host grants the mic.")
    var mic: String?
    @Option(name: .customLong("audio-channels"), help: "Sound channels to ask the host for: auto (what the device plays: its ELD or channel range), 2, 6 or 8 (a device with fewer gets a downmix). Overrides the config's audio-channels.")
    var audioChannels: String?
    @Option(name: .customLong("audio-redundancy"), help: "on: ask for redundant audio (0xD2: each packet carries its predecessor, so a lost one is rebuilt, not concealed); off: don't. Overrides the config's audio-redundancy.")
    var audioRedundancy: String?

    func validate() throws {
        if audio != "auto" && audio != "none" { throw ValidationError("--audio must be auto or none") }
        if audio == "none" && audioDevice != nil { throw ValidationError("--audio none plays nothing; drop --audio-device") }
        if !(0...99).contains(audioPriority) { throw ValidationError("--audio-priority must be 0...99") }
        if let audioChannels, HelloSettings.Channels(audioChannels) == nil { throw ValidationError("--audio-channels must be auto, 2, 6 or 8") }
        if let audioRedundancy, !["on", "off"].contains(audioRedundancy) { throw ValidationError("--audio-redundancy must be on or off") }
    }

    /// Fills the configuration's audio fields; the config's `audio-device` stands in for
    /// `--audio-device` when that is not given.
    func apply(to configuration: inout RunnerConfiguration, config: KioskConfig) {
        configuration.audio = audio == "none" ? .none : (audioDevice ?? config.audioDevice).map { .device($0) } ?? .automatic
        configuration.audioRealtimePriority = audioPriority
        configuration.micDevice = mic
        if let channels = audioChannels.flatMap(HelloSettings.Channels.init) { configuration.hello.audioChannels = channels }
        if let audioRedundancy { configuration.hello.audioRedundancy = audioRedundancy == "on" }
    }
}
