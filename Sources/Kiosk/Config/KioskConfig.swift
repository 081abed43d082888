import PunktfunkSession
import PunktfunkWire
import Screen

/// The kiosk's settings file, `$XDG_CONFIG_HOME/punktfunk-kiosk/config`: `key = value` lines; a
/// line whose first non-blank character is `#` is a comment (a value may hold `#`), blank lines
/// are ignored. Saved hosts are `host.<id>.<field> = value`
/// (the id may hold dots; the field is the part after the last one); `host.<id>.title` may repeat,
/// one pinned title per line. Command-line options override what is here.
///
/// Parsing never fails as a whole: a line it cannot use (no `=`, an unknown key, a bad value) is
/// reported in `problems` with its 1-based line number and ignored; the rest is kept. Pure:
/// `ConfigFile` does the reading and the atomic writing.
public struct KioskConfig: Sendable, Equatable {
    public struct SavedHost: Sendable, Equatable {
        public var id: String
        public var name: String?
        /// Last addresses seen, IP literals, most useful first.
        public var addresses: [String] = []
        public var port: UInt16?
        /// The pinned SHA-256 fingerprint (64 lowercase hex).
        public var fingerprint: String?
        /// Wake-on-LAN MACs, `aa:bb:cc:dd:ee:ff`.
        public var macs: [String] = []
        /// The title boot-to-stream starts on this host (`host.<id>.launch`, a library id such as
        /// `steam:570`); nil: its desktop.
        public var launch: String?
        /// Titles the host page offers beside "Desktop" (`host.<id>.title = ID | NAME`, in file order).
        public var titles: [LaunchTitle] = []

        public init(id: String, name: String? = nil, addresses: [String] = [], port: UInt16? = nil,
                    fingerprint: String? = nil, macs: [String] = [], launch: String? = nil, titles: [LaunchTitle] = []) {
            self.id = id; self.name = name; self.addresses = addresses; self.port = port
            self.fingerprint = fingerprint; self.macs = macs; self.launch = launch; self.titles = titles
        }

        /// The host as the shell lists it: its name (else id), its last address (else the id, for
        /// discovery to place), pinned to its saved fingerprint.
        public var hostEntry: HostEntry {
            HostEntry(id: id, name: name ?? id, address: lastDialAddress ?? id, givenFingerprint: fingerprint, macs: macs,
                      titles: titles)
        }

        /// The first saved address with the saved port (else the default), as a connect dials it.
        public var lastDialAddress: String? {
            addresses.first.map { DiscoveredHost.dialAddress(ip: $0, port: port ?? HostResolver.defaultPort) }
        }
    }

    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "config line \(line): \(message) (ignored)" }
    }

    /// Saved hosts in file order.
    public var hosts: [SavedHost] = []
    /// The id of the host to stream at start.
    public var autoconnect: String?
    /// `WxH` or `WxH@Hz`.
    public var displayMode: String?
    /// Which screen backend: `auto`, `kms`, `wayland` or `x11` (`DisplayBackend`).
    public var display: DisplayBackend?
    /// Pictures of another size than the screen: `fit` or `native` (`PictureScaling`).
    public var scaling: PictureScaling?
    /// `auto`, `vaapi`, `v4l2` or `software`.
    public var decoder: String?
    /// How the VA-API rung's pictures are fenced: `auto` (by the GPU's kernel driver),
    /// `sync-file` or `va-sync-surface` (`DecodeSyncSetting`; forcing one is for bug reports).
    public var decodeSync: String?
    /// The video bitrate, kbit/s: the rate the stream starts at and, in `bitrate-mode = auto`, the
    /// ceiling the rate loop never passes (nil: the host's choice, no ceiling).
    public var bitrateKbps: UInt32?
    /// `auto` (the default: the rate follows the line) or `fixed` (the rate never moves).
    public var bitrateMode: BitrateMode?
    public var audioDevice: String?
    public var statsOverlay: Bool?
    /// Grab keyboard and mouse exclusively (EVIOCGRAB) while streaming.
    public var inputGrab: Bool?
    /// HDMI-CEC: the TV's remote and power (`cec`, default on; nothing happens without an adapter).
    public var cec: Bool?
    /// The CEC adapter node (`cec-device`, e.g. `/dev/cec1`; default: ours, else the only one).
    public var cecDevice: String?
    /// The name the TV lists for the box (`cec-name`, ≤ 14 ASCII characters; default `punktfunk`).
    public var cecName: String?
    /// A stream's start wakes the TV (`cec-tv-on`, default on).
    public var cecTVOn: Bool?
    /// The box's exit puts the TV to standby (`cec-tv-off`, default on).
    public var cecTVOff: Bool?
    /// The TV's standby puts the box to standby (`cec-standby-ends-stream`, default on).
    public var cecStandbyEndsStream: Bool?
    /// The box goes to standby by itself after the shell sat this long without input
    /// (`standby-after`: minutes, or seconds with `s`, e.g. `30` or `90s`; default off), seconds.
    public var standbyAfterSeconds: Int?
    /// What the hello may ask a host for (`hdr`, `ten-bit`, `audio-channels`, `audio-redundancy`,
    /// `streamed-frames`, `device-name`); unset keys keep `HelloSettings`' defaults.
    public var hdr: Bool?
    public var tenBit: Bool?
    public var audioChannels: HelloSettings.Channels?
    public var audioRedundancy: Bool?
    public var streamedFrames: Bool?
    public var deviceName: String?
    public private(set) var problems: [Problem] = []

    public init() {}

    /// The hello settings these keys give (defaults for the unset ones).
    public var helloSettings: HelloSettings {
        var s = HelloSettings()
        if let hdr { s.hdr = hdr }
        if let tenBit { s.tenBit = tenBit }
        if let audioChannels { s.audioChannels = audioChannels }
        if let audioRedundancy { s.audioRedundancy = audioRedundancy }
        if let streamedFrames { s.streamedFrames = streamedFrames }
        s.deviceName = deviceName
        return s
    }

    public func host(_ id: String) -> SavedHost? { hosts.first { $0.id == id } }

    /// The saved host a person named: by id, or by name ignoring case.
    public func host(named text: String) -> SavedHost? {
        hosts.first { $0.id == text || $0.name?.lowercased() == text.lowercased() }
    }

    /// Adds `host` or replaces the saved host with its id.
    public mutating func save(_ host: SavedHost) {
        if let i = hosts.firstIndex(where: { $0.id == host.id }) { hosts[i] = host } else { hosts.append(host) }
    }

    /// The on/off keys, each with its field and how its problem sentence names the values.
    static let switches: [String: (any WritableKeyPath<KioskConfig, Bool?> & Sendable, String)] = [
        "stats-overlay": (\.statsOverlay, "true or false"), "input-grab": (\.inputGrab, "true or false"),
        "cec": (\.cec, "true or false"), "cec-tv-on": (\.cecTVOn, "true or false"),
        "cec-tv-off": (\.cecTVOff, "true or false"), "cec-standby-ends-stream": (\.cecStandbyEndsStream, "true or false"),
        "hdr": (\.hdr, "on or off"), "ten-bit": (\.tenBit, "on or off"),
        "audio-redundancy": (\.audioRedundancy, "on or off"), "streamed-frames": (\.streamedFrames, "on or off"),
    ]
    static let decoders: Set<String> = ["auto", "vaapi", "v4l2", "software"]
    static let decodeSyncs: Set<String> = ["auto", "sync-file", "va-sync-surface"]

    public init(text: String) {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            // A comment is a whole line whose first non-blank character is '#': a value (a host's
            // name) may contain '#'.
            let trimmed = String(raw).trimmingWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                problems.append(Problem(line: line, message: "no '=' in \"\(trimmed)\""))
                continue
            }
            let key = String(trimmed[..<eq]).trimmingWhitespace()
            let value = String(trimmed[trimmed.index(after: eq)...]).trimmingWhitespace()
            if let message = apply(key: key, value: value) { problems.append(Problem(line: line, message: message)) }
        }
    }

    /// Sets `key` from `value`; the problem's sentence, or nil.
    mutating func apply(key: String, value: String) -> String? {
        func bool() -> Bool? { ["true": true, "yes": true, "on": true, "1": true, "false": false, "no": false, "off": false, "0": false][value.lowercased()] }
        switch key {
        case "autoconnect": autoconnect = value.isEmpty ? nil : value
        case "display-mode":
            guard Self.isMode(value) else { return "display-mode must be WxH or WxH@Hz, not \"\(value)\"" }
            displayMode = value
        case "display":
            guard let backend = DisplayBackend(rawValue: value) else { return "display must be auto, kms, wayland or x11, not \"\(value)\"" }
            display = backend
        case "scaling":
            guard let s = PictureScaling(rawValue: value) else { return "scaling must be fit or native, not \"\(value)\"" }
            scaling = s
        case "decoder":
            guard Self.decoders.contains(value) else { return "decoder must be auto, vaapi, v4l2 or software, not \"\(value)\"" }
            decoder = value
        case "decode-sync":
            guard Self.decodeSyncs.contains(value) else { return "decode-sync must be auto, sync-file or va-sync-surface, not \"\(value)\"" }
            decodeSync = value
        case "bitrate":
            guard let kbps = UInt32(value), kbps > 0 else { return "bitrate must be kbit/s, a positive whole number, not \"\(value)\"" }
            bitrateKbps = kbps
        case "bitrate-mode":
            guard let mode = BitrateMode(rawValue: value) else { return "bitrate-mode must be auto or fixed, not \"\(value)\"" }
            bitrateMode = mode
        case "audio-device": audioDevice = value.isEmpty ? nil : value
        case _ where Self.switches[key] != nil:
            let (field, words) = Self.switches[key]!
            guard let b = bool() else { return "\(key) must be \(words), not \"\(value)\"" }
            self[keyPath: field] = b
        case "audio-channels":
            guard let c = HelloSettings.Channels(value) else { return "audio-channels must be auto, 2, 6 or 8, not \"\(value)\"" }
            audioChannels = c
        case "device-name":
            guard value.utf8.count <= 64, value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                return "device-name must be at most 64 bytes without control characters"
            }
            deviceName = value.isEmpty ? nil : value
        case "standby-after":
            guard let seconds = Self.duration(value) else {
                return "standby-after must be off, minutes (30) or seconds (90s) from \(Self.standbyAfterRange.lowerBound) s to 24 h, not \"\(value)\""
            }
            standbyAfterSeconds = seconds == 0 ? nil : seconds
        case "cec-device":
            guard value.isEmpty || value.hasPrefix("/") else { return "cec-device must be a path such as /dev/cec0, not \"\(value)\"" }
            cecDevice = value.isEmpty ? nil : value
        case "cec-name":
            guard value.utf8.count <= 14, value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value <= 0x7E }) else {
                return "cec-name must be at most 14 ASCII characters, not \"\(value)\""
            }
            cecName = value.isEmpty ? nil : value
        default:
            guard key.hasPrefix("host."), let dot = key.lastIndex(of: "."), dot > key.index(key.startIndex, offsetBy: 4) else {
                return "unknown key \"\(key)\""
            }
            let id = String(key[key.index(key.startIndex, offsetBy: 5)..<dot])
            let field = String(key[key.index(after: dot)...])
            var host = self.host(id) ?? SavedHost(id: id)
            switch field {
            case "name": host.name = value
            case "addresses": host.addresses = Self.list(value)
            case "port":
                guard let port = UInt16(value), port > 0 else { return "host \(id): port must be 1…65535, not \"\(value)\"" }
                host.port = port
            case "fp":
                guard value.utf8.count == 64, value.allSatisfy(\.isHexDigit) else { return "host \(id): fp must be 64 hex digits" }
                host.fingerprint = value.lowercased()
            case "macs":
                let macs = Self.list(value)
                guard macs.allSatisfy(Self.isMAC) else { return "host \(id): macs must be aa:bb:cc:dd:ee:ff, comma-separated" }
                host.macs = macs.map { $0.lowercased() }
            case "launch":
                if let problem = LaunchTitle.problem(id: value) { return "host \(id): launch: \(problem)" }
                host.launch = value
            case "title":
                guard let title = LaunchTitle(configValue: value) else {
                    return "host \(id): title must be a library id, then | and its name (steam:570 | Dota 2). \(LaunchTitle.problem(id: LaunchTitle.configParts(value).id) ?? "")"
                }
                host.titles.removeAll { $0.id == title.id }
                host.titles.append(title)
            default:
                return "unknown host field \"\(field)\" for host \(id)"
            }
            save(host)
        }
        return nil
    }

    /// The file text: settings, then each host's fields. Parsing it gives `self` back (without
    /// `problems`).
    public var text: String {
        var lines = ["# punktfunk-kiosk settings: key = value; command-line options override these."]
        func add(_ key: String, _ value: String?) { if let value { lines.append("\(key) = \(value)") } }
        add("autoconnect", autoconnect)
        add("display", display?.rawValue)
        add("display-mode", displayMode)
        add("scaling", scaling?.rawValue)
        add("decoder", decoder)
        add("decode-sync", decodeSync)
        add("bitrate", bitrateKbps.map(String.init))
        add("bitrate-mode", bitrateMode?.rawValue)
        add("audio-device", audioDevice)
        add("stats-overlay", statsOverlay.map { $0 ? "true" : "false" })
        add("input-grab", inputGrab.map { $0 ? "true" : "false" })
        add("cec", cec.map { $0 ? "true" : "false" })
        add("cec-device", cecDevice)
        add("cec-name", cecName)
        add("cec-tv-on", cecTVOn.map { $0 ? "true" : "false" })
        add("cec-tv-off", cecTVOff.map { $0 ? "true" : "false" })
        add("cec-standby-ends-stream", cecStandbyEndsStream.map { $0 ? "true" : "false" })
        add("standby-after", standbyAfterSeconds.map { $0 % 60 == 0 ? "\($0 / 60)" : "\($0)s" })
        add("hdr", hdr.map { $0 ? "on" : "off" })
        add("ten-bit", tenBit.map { $0 ? "on" : "off" })
        add("audio-channels", audioChannels?.description)
        add("audio-redundancy", audioRedundancy.map { $0 ? "on" : "off" })
        add("streamed-frames", streamedFrames.map { $0 ? "on" : "off" })
        add("device-name", deviceName)
        for host in hosts {
            lines.append("")
            lines.append("host.\(host.id).name = \(host.name ?? "")")
            if !host.addresses.isEmpty { add("host.\(host.id).addresses", host.addresses.joined(separator: ",")) }
            add("host.\(host.id).port", host.port.map(String.init))
            add("host.\(host.id).fp", host.fingerprint)
            if !host.macs.isEmpty { add("host.\(host.id).macs", host.macs.joined(separator: ",")) }
            add("host.\(host.id).launch", host.launch)
            for title in host.titles { add("host.\(host.id).title", title.configValue) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What `standby-after` accepts, seconds.
    public static let standbyAfterRange = 10...86_400

    /// `standby-after`'s value in seconds: `off` (0), whole minutes (`30`, `30m`, `30min`), hours
    /// (`2h`) or seconds (`90s`), within `standbyAfterRange`; nil: none of these.
    public static func duration(_ value: String) -> Int? {
        let v = value.lowercased().filter { !$0.isWhitespace }
        if v == "off" || v == "false" || v == "no" { return 0 }
        let units: [(String, Int)] = [("min", 60), ("m", 60), ("h", 3600), ("s", 1), ("", 60)]
        for (suffix, scale) in units where v.hasSuffix(suffix) {
            guard let n = Int(v.dropLast(suffix.count)), n > 0, n <= 86_400 else { continue }
            return standbyAfterRange.contains(n * scale) ? n * scale : nil
        }
        return nil
    }

    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    static func isMAC(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    static func isMode(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, size.allSatisfy({ UInt32($0).map { $0 > 0 } ?? false }) else { return false }
        return parts.count == 1 || (Double(parts[1]).map { $0 > 0 } ?? false)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return String(s)
    }
}
