import Foundation
import PunktfunkSession
import PunktfunkWire
import Screen

/// The ClientHello this box sends (control-plane.md §3.2, §3.6) and, for each capability, whether
/// it is asked for and why: a bit is set only when the box can honour it end to end (`BoxAbilities`)
/// and the user allows it (`HelloSettings`). Pure; `probe`, `check` and every session use it.
///
/// Invariants: HDR implies 10-bit and a tag 13 body; the suites list ChaCha20-Poly1305 first iff
/// VIDEO_CAP_CHACHA20 is set, else AES-128-GCM alone (§3.2 tag 2); audio channels ∈ {2, 6, 8};
/// tag 7 is a non-empty label ≤ 64 bytes.
public struct HelloPlan: Sendable {
    /// One line of the plan: what, asked for or not (or its value), and why.
    public struct Decision: Sendable, Equatable {
        /// Stable key (`10bit`, `hdr`, …) for the JSON form.
        public var key: String
        /// What a person reads, e.g. "10-bit video".
        public var title: String
        /// "yes", "no", or a value (channels "6", "ChaCha20-Poly1305", the device name).
        public var value: String
        public var why: String
    }

    public let hello: ClientHello
    public let decisions: [Decision]

    /// - Parameter base: the hello without the box's capabilities (mode, bitrate, codecs, …).
    public init(base: ClientHello, facts: BoxAbilities, settings: HelloSettings) {
        var h = base
        var out: [Decision] = []
        func decide(_ key: String, _ title: String, _ on: Bool, _ why: String) {
            out.append(Decision(key: key, title: title, value: on ? "yes" : "no", why: why))
        }

        // 10-bit: the decoder must take Main10; the screen shows it as it is or converts.
        let tenBit = settings.tenBit && facts.main10.value
        decide("10bit", "10-bit video", tenBit,
               !settings.tenBit ? "ten-bit = off in the config" : facts.main10.why)
        // HDR: 10-bit, allowed, and a sink that takes HDR10 (its metadata goes in tag 13).
        var hdrWhy: String
        var panel: HDRMetadata?
        switch facts.panel {
        case .headless: hdrWhy = "no screen (headless)"
        case .sdr(let why): hdrWhy = why
        case .hdr10(let m, let why): hdrWhy = why; panel = m
        }
        if !tenBit, panel != nil { hdrWhy = "HDR needs 10-bit video, which is off" }
        if !settings.hdr { hdrWhy = "hdr = off in the config" }
        let hdr = tenBit && settings.hdr && panel != nil
        decide("hdr", "HDR10", hdr, hdrWhy)
        h.displayHDR = hdr ? panel : nil

        decide("multi_slice", "multi-slice frames", facts.multiSlice.value, facts.multiSlice.why)
        decide("streamed_frames", "streamed frames", settings.streamedFrames,
               settings.streamedFrames ? "frames are reassembled from blocks sent before the host's encoder finished them (data-plane.md §2.3)"
                                       : "streamed-frames = off in the config")
        decide("host_timing", "host timing", true, "0xCF datagrams feed the latency breakdown (host, network, decode, display)")

        var video = h.features.videoCaps
        video.insert(.probeSeq)
        video.insert(.hostTiming)
        if tenBit { video.insert(.tenBit) } else { video.remove(.tenBit) }
        if hdr { video.insert(.hdr) } else { video.remove(.hdr) }
        if facts.multiSlice.value { video.insert(.multiSlice) } else { video.remove(.multiSlice) }
        if settings.streamedFrames { video.insert(.streamedAU) } else { video.remove(.streamedAU) }

        // Media cipher: ChaCha20 where the CPU has no AES instructions (§3.2 tag 2, §3.3 tag 3).
        let chacha = !facts.aesInHardware.value
        if chacha { video.insert(.chaCha20) } else { video.remove(.chaCha20) }
        h.suites = chacha ? [.chaCha20Poly1305, .aes128GCM] : [.aes128GCM]
        out.append(Decision(key: "cipher", title: "media cipher", value: chacha ? "ChaCha20-Poly1305" : "AES-128-GCM",
                            why: facts.aesInHardware.why))
        h.features.videoCaps = video

        // Sound.
        var client = h.features.clientCaps
        client.insert(.ext)
        if let sound = facts.soundChannels {
            let channels: UInt8
            let why: String
            switch settings.audioChannels {
            case .auto: channels = sound.value; why = sound.why
            case .fixed(let n):
                channels = n
                why = "audio-channels = \(n) in the config" + (n > sound.value ? " (the device plays \(sound.value): downmixed)" : "")
            }
            h.audioChannels = channels
            out.append(Decision(key: "audio_channels", title: "sound channels", value: "\(channels)", why: why))
            let red = settings.audioRedundancy
            decide("audio_redundancy", "redundant audio", red,
                   red ? "a lost Opus packet is rebuilt from the next one's copy (0xD2) instead of concealed"
                       : "audio-redundancy = off in the config")
            if red { client.insert(.audioRed) } else { client.remove(.audioRed) }
        } else {
            h.audioChannels = 2
            client.remove(.audioRed)
            out.append(Decision(key: "audio_channels", title: "sound channels", value: "2", why: "this session plays no sound"))
            decide("audio_redundancy", "redundant audio", false, "this session plays no sound")
        }
        // The pointer: drawn by the box where the screen can (the host then forwards it instead of
        // compositing it into the pictures).
        decide("draws_pointer", "pointer drawn by the box", facts.drawsPointer.value, facts.drawsPointer.why)
        if facts.drawsPointer.value { client.insert(.cursor) } else { client.remove(.cursor) }
        h.features.clientCaps = client

        let name = Self.label(settings.deviceName) ?? Self.label(facts.hostName) ?? "punktfunk kiosk"
        h.name = name
        out.append(Decision(key: "name", title: "device name", value: name,
                            why: Self.label(settings.deviceName) != nil ? "device-name in the config" : "the machine's host name"))
        hello = h
        decisions = out
    }

    /// A usable tag 7 label: the wire's label rule (trimmed, control characters dropped, cut to
    /// 64 bytes on a scalar boundary); nil when empty or a name that says nothing ("localhost").
    public static func label(_ text: String?) -> String? {
        guard let clean = text?.pfSanitisedLabel(maxBytes: ClientHello.nameMaxBytes),
              !clean.isEmpty, clean.lowercased() != "localhost" else { return nil }
        return clean
    }

    /// One line for the start-up report: each capability with its value, the reason after a "no"
    /// (`10-bit video yes, HDR10 no (the TV's EDID lists no PQ), …`).
    public var summary: String {
        decisions.map { "\($0.title) \($0.value)" + ($0.value == "no" ? " (\($0.why))" : "") }.joined(separator: ", ")
    }

    /// `{"video_caps":…,"client_caps":…,"audio_channels":…,"display_hdr":"hex"|null,"suites":[…],
    /// "name":…,"why":{key:{"value":…,"why":…}}}`.
    public var json: String {
        let hdr = hello.displayHDR.map { "\"" + $0.encoded.map { String(format: "%02x", $0) }.joined() + "\"" } ?? "null"
        let suites = hello.suites.map { "\($0.rawValue)" }.joined(separator: ",")
        let why = decisions.map { "\(JSON.string($0.key)):{\"value\":\(JSON.string($0.value)),\"why\":\(JSON.string($0.why))}" }
            .joined(separator: ",")
        return "{\"video_caps\":\(hello.features.videoCaps.rawValue),\"client_caps\":\(hello.features.clientCaps.rawValue),"
            + "\"audio_channels\":\(hello.audioChannels),\"display_hdr\":\(hdr),\"suites\":[\(suites)],"
            + "\"name\":\(JSON.string(hello.name ?? "")),\"why\":{\(why)}}"
    }
}
