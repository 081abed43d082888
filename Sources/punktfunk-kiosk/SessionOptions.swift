import Kiosk
import VideoDecode

extension RunnerConfiguration {
    /// What a live session asks for and plays with: the bitrate, input and sound, each from its
    /// option, else from the config.
    mutating func applySessionOptions(config: KioskConfig, stream: StreamOptions, input: InputOptions, sound: AudioOptions) throws {
        bitrateKbps = stream.bitrate ?? config.bitrateKbps
        bitrateMode = stream.bitrateMode.flatMap(BitrateMode.init(rawValue:)) ?? config.bitrateMode ?? .auto
        pictureLog = stream.pictureLog
        rateLog = stream.rateLog
        hello = config.helloSettings
        // The name a host lists this box under, in the hello and when pairing.
        if let name = HelloPlan.label(config.deviceName) ?? HelloPlan.label(BoxAbilities.hostName()) { deviceName = name }
        decodeSync = config.decodeSync.flatMap(DecodeSyncSetting.init(rawValue:)) ?? .auto
        try input.apply(to: &self, config: config)
        // Under a compositor or an X server, its keyboard and mouse come through it.
        openSeat = { screen, service in WaylandBackend.openSeat(screen, service) ?? X11Backend.openSeat(screen, service) }
        sound.apply(to: &self, config: config)
    }
}
