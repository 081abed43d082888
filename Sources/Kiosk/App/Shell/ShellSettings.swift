import Screen

/// The settings page's values: what is chosen (nil: the box's own choice) and what there is to
/// choose from (the connector's modes and the ALSA outputs found at start). Loaded from and saved
/// to `KioskConfig` (`display-mode`, `scaling`, `bitrate`, `decoder`, `audio-device`, the HDMI-CEC switches,
/// `standby-after`, and what the hello may ask for: `hdr`, `audio-channels`, `audio-redundancy`); they apply to the next stream, a mode and HDMI-CEC to the next start, the
/// idle standby at once.
public struct ShellSettings: Sendable, Equatable {
    /// Bitrates offered besides the host's choice, kbit/s.
    public static let bitratesKbps: [UInt32] = [5_000, 10_000, 20_000, 40_000, 80_000, 150_000]
    /// `KioskConfig.decoder` values, in the order shown.
    public static let decoders = ["auto", "vaapi", "v4l2", "software"]
    static let decoderLabels = ["Automatic (VA-API, V4L2, then software)", "VA-API", "V4L2 (ARM boards)", "Software"]

    /// The connector's modes, `WxH@Hz`, as the display lists them.
    public var availableModes: [String] = []
    /// ALSA PCM names found at start.
    public var availableAudioDevices: [String] = []
    /// `WxH@Hz` or `WxH` (nil: the panel's preferred mode).
    public var displayMode: String?
    /// Pictures of another size than the screen (fit unless the config says native).
    public var scaling = PictureScaling.fit
    /// nil: the host's choice. In `.auto` mode the rate loop's ceiling, in `.fixed` the rate.
    public var bitrateKbps: UInt32?
    /// The config's `bitrate-mode` (not offered on the page: a pinned rate is for bug reports).
    public var bitrateMode = BitrateMode.auto
    /// One of `decoders`.
    public var decoder = "auto"
    /// An ALSA PCM (nil: the display's HDMI/DP output, else `default`).
    public var audioDevice: String?
    /// HDMI-CEC (`cec`, `cec-tv-on`, `cec-tv-off`, `cec-standby-ends-stream`); all on unless
    /// the config says otherwise. CEC itself applies at the next start.
    public var cec = true
    public var cecTVOn = true
    public var cecTVOff = true
    public var cecStandbyEndsStream = true
    /// The box's own standby after the shell sat this long without input, seconds (nil: off;
    /// `standby-after`). Applies at once.
    public var standbyAfterSeconds: Int?
    /// What the next stream's hello may ask for (`HelloPlan` narrows it to what the box can do).
    public var hdr = true
    public var audioChannels = HelloSettings.Channels.auto
    public var audioRedundancy = true
    /// *Sound channels*' choices.
    static let channelChoices = ["auto", "2", "6", "8"]
    /// *Sleep after*'s choices besides off, seconds.
    public static let standbyAfterChoices = [600, 1_800, 3_600, 7_200]

    public init() {}

    public init(config: KioskConfig, modes: [String], audioDevices: [String]) {
        availableModes = modes
        availableAudioDevices = audioDevices
        displayMode = config.displayMode
        scaling = config.scaling ?? .fit
        bitrateKbps = config.bitrateKbps
        bitrateMode = config.bitrateMode ?? .auto
        decoder = config.decoder ?? "auto"
        audioDevice = config.audioDevice
        cec = config.cec ?? true
        cecTVOn = config.cecTVOn ?? true
        cecTVOff = config.cecTVOff ?? true
        cecStandbyEndsStream = config.cecStandbyEndsStream ?? true
        standbyAfterSeconds = config.standbyAfterSeconds
        hdr = config.hdr ?? true
        audioChannels = config.audioChannels ?? .auto
        audioRedundancy = config.audioRedundancy ?? true
    }

    /// `config` with these settings in place of its own (hosts and other keys untouched).
    public func stored(in config: KioskConfig) -> KioskConfig {
        var c = config
        c.displayMode = displayMode
        c.scaling = scaling == .fit && config.scaling == nil ? nil : scaling  // the default stays unwritten
        c.bitrateKbps = bitrateKbps
        c.decoder = decoder
        c.audioDevice = audioDevice
        // Defaults stay unwritten (a config without CEC keys keeps none).
        c.cec = cec ? (config.cec.map { _ in true }) : false
        c.cecTVOn = cecTVOn ? (config.cecTVOn.map { _ in true }) : false
        c.cecTVOff = cecTVOff ? (config.cecTVOff.map { _ in true }) : false
        c.cecStandbyEndsStream = cecStandbyEndsStream ? (config.cecStandbyEndsStream.map { _ in true }) : false
        c.standbyAfterSeconds = standbyAfterSeconds
        c.hdr = hdr ? (config.hdr.map { _ in true }) : false
        c.audioChannels = audioChannels == .auto && config.audioChannels == nil ? nil : audioChannels
        c.audioRedundancy = audioRedundancy ? (config.audioRedundancy.map { _ in true }) : false
        return c
    }

    /// The values `item` can take, in order (nil: the box's own choice), with a saved value that
    /// is not offered any more kept in the list.
    private func values(_ item: SettingsItem) -> [String?]? {
        func with(_ chosen: String?, _ offered: [String]) -> [String?] {
            var list: [String?] = [nil] + offered
            if let chosen, !offered.contains(chosen) { list.append(chosen) }
            return list
        }
        switch item {
        case .mode: return with(displayMode, availableModes)
        case .scaling: return PictureScaling.allCases.map(\.rawValue)
        case .bitrate: return with(bitrateKbps.map(String.init), Self.bitratesKbps.map(String.init))
        case .decoder: return Self.decoders
        case .audioDevice: return with(audioDevice, availableAudioDevices)
        case .cec, .cecTVOn, .cecTVOff, .cecStandbyEndsStream, .hdr, .audioRedundancy: return ["on", "off"]
        case .audioChannels: return Self.channelChoices
        case .standbyAfter: return with(standbyAfterSeconds.map(String.init), Self.standbyAfterChoices.map(String.init))
        case .statsOverlay, .controllers, .about: return nil
        }
    }

    private func chosen(_ item: SettingsItem) -> String? {
        switch item {
        case .mode: displayMode
        case .scaling: scaling.rawValue
        case .bitrate: bitrateKbps.map(String.init)
        case .decoder: decoder
        case .audioDevice: audioDevice
        case .cec: cec ? "on" : "off"
        case .cecTVOn: cecTVOn ? "on" : "off"
        case .cecTVOff: cecTVOff ? "on" : "off"
        case .cecStandbyEndsStream: cecStandbyEndsStream ? "on" : "off"
        case .standbyAfter: standbyAfterSeconds.map(String.init)
        case .hdr: hdr ? "on" : "off"
        case .audioChannels: audioChannels.description
        case .audioRedundancy: audioRedundancy ? "on" : "off"
        case .statsOverlay, .controllers, .about: nil
        }
    }

    private func label(_ item: SettingsItem, _ value: String?) -> String {
        switch (item, value) {
        case (.mode, nil): "Native"
        case (.bitrate, nil): bitrateMode == .auto ? "Automatic (adapts to the network)" : "The host's (fixed)"
        case (.bitrate, let v?) where bitrateMode == .auto: "Up to " + Self.label(item, v)
        case (.audioDevice, nil): "Automatic (the TV's)"
        case (.standbyAfter, nil): "Off"
        case (.standbyAfter, let v?): Int(v).map(Self.durationText(seconds:)) ?? v
        case (.bitrate, let v?): Self.label(item, v)
        case (.decoder, let v?): Self.decoderLabels[Self.decoders.firstIndex(of: v) ?? 0]
        case (.scaling, let v?): PictureScaling(rawValue: v)?.label ?? v
        case (.cec, let v?), (.cecTVOn, let v?), (.cecTVOff, let v?), (.cecStandbyEndsStream, let v?), (.hdr, let v?),
             (.audioRedundancy, let v?): v == "on" ? "On" : "Off"
        case (.audioChannels, let v?): ["auto": "Automatic (the device's)", "2": "Stereo", "6": "5.1", "8": "7.1"][v] ?? v
        case (_, let v?): v
        default: ""
        }
    }

    private static func label(_ item: SettingsItem, _ value: String) -> String {
        UInt32(value).map { $0 % 1000 == 0 ? "\($0 / 1000) Mbit/s" : "\($0) kbit/s" } ?? value
    }

    /// `item`'s options as shown and the chosen index (nil for entries that are not a choice).
    public func choice(_ item: SettingsItem) -> (options: [String], index: Int)? {
        guard let values = values(item) else { return nil }
        let index = values.firstIndex(of: chosen(item)) ?? 0
        return (values.map { label(item, $0) }, index)
    }

    /// Steps `item`'s choice to the next option, from the last back to the first.
    /// - Returns: whether it changed (a single option does not).
    mutating func cycle(_ item: SettingsItem) -> Bool {
        guard let (options, index) = choice(item) else { return false }
        return step(item, by: index == options.count - 1 ? -index : 1)
    }

    /// Steps `item`'s choice by `delta`, stopping at the ends. - Returns: whether it changed.
    mutating func step(_ item: SettingsItem, by delta: Int) -> Bool {
        guard let values = values(item), let (_, index) = choice(item) else { return false }
        let next = min(max(index + delta, 0), values.count - 1)
        guard next != index else { return false }
        let value = values[next]
        switch item {
        case .mode: displayMode = value
        case .scaling: scaling = value.flatMap(PictureScaling.init(rawValue:)) ?? .fit
        case .bitrate: bitrateKbps = value.flatMap { UInt32($0) }
        case .decoder: decoder = value ?? "auto"
        case .audioDevice: audioDevice = value
        case .cec: cec = value == "on"
        case .cecTVOn: cecTVOn = value == "on"
        case .cecTVOff: cecTVOff = value == "on"
        case .cecStandbyEndsStream: cecStandbyEndsStream = value == "on"
        case .standbyAfter: standbyAfterSeconds = value.flatMap { Int($0) }
        case .hdr: hdr = value == "on"
        case .audioChannels: audioChannels = value.flatMap(HelloSettings.Channels.init) ?? .auto
        case .audioRedundancy: audioRedundancy = value == "on"
        case .statsOverlay, .controllers, .about: break
        }
        return true
    }

    /// "10 min", "2 h", "90 s".
    public static func durationText(seconds: Int) -> String {
        if seconds > 0, seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds > 0, seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
