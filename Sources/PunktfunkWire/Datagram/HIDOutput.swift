/// Controller feedback the game wrote to the host's virtual pad, tag 0xCD:
/// `CD ‖ kind u8 ‖ …` (data-plane.md §7.2; punktfunk/2 kind 0x06). Rumble rides 0xCA instead.
///
/// The host de-duplicates and periodically re-sends LED / player-LED / trigger state, so
/// handling must be idempotent. Fixed layouts ignore extra bytes; the two variable-length
/// kinds take the rest of the datagram, clamped to their maximum.
public enum HIDOutput: TaggedDatagram, Hashable {
    /// Kind 1: lightbar colour.
    case led(pad: UInt8, r: UInt8, g: UInt8, b: UInt8)
    /// Kind 2: player LEDs, low 5 bits.
    case playerLEDs(pad: UInt8, bits: UInt8)
    /// Kind 3: adaptive trigger; `which` 0 = L2, 1 = R2; `effect` is the raw DualSense block
    /// (mode byte + up to 10 parameters, 1…11 bytes). Decoding clamps to 11 and rejects an
    /// empty block (that would read as "release"). Encoding clamps to 11; an empty effect
    /// encodes a datagram every receiver drops.
    case trigger(pad: UInt8, which: UInt8, effect: [UInt8])
    /// Kind 4: Steam Controller voice-coil pulse; `side` 0 right, 1 left; `periodUs` µs.
    case trackpadHaptic(pad: UInt8, side: UInt8, amplitude: UInt16, periodUs: UInt16, count: UInt16)
    /// Kind 5: raw report for a Steam Controller 2; `reportKind` 0 output, 1 feature;
    /// `data` is 1…64 bytes, report id first (clamped to 64 both ways).
    case hidRaw(pad: UInt8, reportKind: UInt8, data: [UInt8])
    /// Kind 6: DualSense output report 0x02 bytes 5…10 (audio-control region). The only kind
    /// with a **u16** pad (data-plane.md §11 item 11); decoding refuses pads ≥ 16 so later
    /// narrowing to a pad index cannot alias. `raw` is exactly 6 bytes (encoding pads with
    /// zeros or truncates).
    case audioControl(pad: UInt16, flags: UInt8, raw: [UInt8])
    /// Kind 7: microphone-mute LED; `mode` 0 off, 1 on, 2 pulse.
    case micLED(pad: UInt8, mode: UInt8)

    public static let tag: UInt8 = 0xCD
    /// `TRIGGER_EFFECT_MAX`: mode byte + ten parameters.
    public static let triggerEffectMax = 11
    /// `HID_REPORT_MAX`.
    public static let hidRawMax = 64
    /// Bytes of the AudioCtl `raw` region.
    public static let audioControlRawLength = 6

    /// The kind byte after the tag.
    public var kind: UInt8 {
        switch self {
        case .led: return 1
        case .playerLEDs: return 2
        case .trigger: return 3
        case .trackpadHaptic: return 4
        case .hidRaw: return 5
        case .audioControl: return 6
        case .micLED: return 7
        }
    }

    /// The addressed pad, widened (AudioCtl carries a u16).
    public var pad: UInt16 {
        switch self {
        case .led(let p, _, _, _), .playerLEDs(let p, _), .trigger(let p, _, _),
             .trackpadHaptic(let p, _, _, _, _), .hidRaw(let p, _, _), .micLED(let p, _):
            return UInt16(p)
        case .audioControl(let p, _, _): return p
        }
    }

    public func encode(into w: inout WireWriter) {
        w.writeByte(Self.tag)
        w.writeByte(kind)
        switch self {
        case let .led(pad, r, g, b): w.writeBytes([pad, r, g, b])
        case let .playerLEDs(pad, bits): w.writeBytes([pad, bits])
        case let .trigger(pad, which, effect):
            w.writeBytes([pad, which])
            w.writeBytes(effect.prefix(Self.triggerEffectMax))
        case let .trackpadHaptic(pad, side, amplitude, periodUs, count):
            w.writeBytes([pad, side])
            w.writeLE(amplitude)
            w.writeLE(periodUs)
            w.writeLE(count)
        case let .hidRaw(pad, reportKind, data):
            w.writeBytes([pad, reportKind])
            w.writeBytes(data.prefix(Self.hidRawMax))
        case let .audioControl(pad, flags, raw):
            w.writeLE(pad)                                   // u16: the asymmetry, §7.2
            w.writeByte(flags)
            let n = Self.audioControlRawLength
            w.writeBytes(raw.prefix(n) + [UInt8](repeating: 0, count: max(0, n - raw.count)))
        case let .micLED(pad, mode): w.writeBytes([pad, mode])
        }
    }

    public static func decode(from r: inout WireReader) throws(WireError) -> HIDOutput {
        try r.readTag(tag)
        let kind = try r.readByte()
        switch kind {
        case 1:
            try r.need(4)
            return .led(pad: try r.readByte(), r: try r.readByte(), g: try r.readByte(), b: try r.readByte())
        case 2:
            try r.need(2)
            return .playerLEDs(pad: try r.readByte(), bits: try r.readByte())
        case 3:
            try r.need(3)   // pad, which, at least the mode byte
            let pad = try r.readByte(), which = try r.readByte()
            return .trigger(pad: pad, which: which, effect: try r.readBytes(min(r.remaining, triggerEffectMax)))
        case 4:
            try r.need(8)
            return .trackpadHaptic(pad: try r.readByte(), side: try r.readByte(), amplitude: try r.readLE(),
                                   periodUs: try r.readLE(), count: try r.readLE())
        case 5:
            try r.need(3)   // pad, report kind, at least the report id
            let pad = try r.readByte(), reportKind = try r.readByte()
            return .hidRaw(pad: pad, reportKind: reportKind, data: try r.readBytes(min(r.remaining, hidRawMax)))
        case 6:
            try r.need(3 + audioControlRawLength)
            let pad = try r.readLE(UInt16.self)
            guard Int(pad) < Gamepad.maxPads else { throw .malformed("AudioCtl pad \(pad) ≥ \(Gamepad.maxPads)") }
            return .audioControl(pad: pad, flags: try r.readByte(), raw: try r.readBytes(audioControlRawLength))
        case 7:
            try r.need(2)
            return .micLED(pad: try r.readByte(), mode: try r.readByte())
        default:
            throw .malformed("HID output kind \(kind)")
        }
    }
}
