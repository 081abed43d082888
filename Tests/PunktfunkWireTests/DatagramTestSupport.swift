import Foundation
@testable import PunktfunkWire

/// Feeds `bytes` and every prefix of it to `decode`; the property is that nothing traps.
/// Returns how many prefixes decoded.
@discardableResult
func decodeEveryPrefix(_ bytes: [UInt8], _ decode: ([UInt8]) throws(WireError) -> Void) -> Int {
    (0...bytes.count).reduce(0) { n, len in ((try? decode(Array(bytes.prefix(len)))) != nil) ? n + 1 : n }
}

// MARK: - Random values of every codec

extension SplitMix64 {
    mutating func audioFrame() -> AudioFrame { AudioFrame(seq: int(), ptsNs: int(), payload: bytes(0...40)) }

    mutating func hostAudio() -> AudioPacket {
        switch Int.random(in: 0..<4, using: &self) {
        case 0: return .opus(audioFrame())
        case 1: return .pcm(audioFrame())
        case 2: return .redundant(RedundantAudioFrame(seq: int(), ptsNs: int(), primary: bytes(0...40), previous: bytes(0...40)))
        default: return .pad(PadAudioFrame(pad: int(), kind: PadAudioKind(rawValue: int()), seq: int(), ptsNs: int(), payload: bytes(0...40)))
        }
    }

    mutating func audioPacket() -> AudioPacket { bool() ? .mic(audioFrame()) : hostAudio() }

    mutating func scrollEvent() -> ScrollEvent {
        while true {
            let e = ScrollEvent(source: pick(ScrollSource.allCases), phase: pick(ScrollPhase.allCases),
                                axis: pick(ScrollAxis.allCases), delta: bool() ? 0 : int())
            if e.isValid { return e }
        }
    }

    mutating func inputEvent() -> InputEvent {
        let kind = pick(InputEventKind.allCases)
        if kind == .scroll { return scrollEvent().event }
        return InputEvent(kind: kind, code: int(), x: int(), y: int(), flags: int())
    }

    mutating func richInput() -> RichInput {
        switch Int.random(in: 0..<5, using: &self) {
        case 0: return .touchpad(pad: int(), finger: int(), active: bool(), x: int(), y: int())
        case 1: return .motion(pad: int(), gyro: SIMD3(int(), int(), int()), accel: SIMD3(int(), int(), int()))
        case 2: return .touchpadEx(pad: int(), surface: int(), finger: int(), touching: bool(), click: bool(),
                                   x: int(), y: int(), pressure: int())
        case 3: return .hidReport(pad: int(), data: bytes(0...64))
        default: return .pen(bytes(0...30))
        }
    }

    mutating func rumble() -> Rumble {
        guard bool() else { return Rumble(pad: int(), low: int(), high: int()) }
        return Rumble(pad: int(), low: int(), high: int(), envelope: .init(seq: int(), ttlMs: int()),
                      leftTrigger: bool() ? 0 : int(), rightTrigger: int())
    }

    mutating func hidOutput() -> HIDOutput {
        switch Int.random(in: 0..<7, using: &self) {
        case 0: return .led(pad: int(), r: int(), g: int(), b: int())
        case 1: return .playerLEDs(pad: int(), bits: int())
        case 2: return .trigger(pad: int(), which: int(), effect: bytes(1...11))
        case 3: return .trackpadHaptic(pad: int(), side: int(), amplitude: int(), periodUs: int(), count: int())
        case 4: return .hidRaw(pad: int(), reportKind: int(), data: bytes(1...64))
        case 5: return .audioControl(pad: UInt16.random(in: 0..<16, using: &self), flags: int(), raw: bytes(6...6))
        default: return .micLED(pad: int(), mode: int())
        }
    }

    mutating func cursorState() -> CursorState {
        CursorState(serial: int(), flags: .init(rawValue: int()), x: int(), y: int())
    }

    mutating func hostTiming() -> HostTiming {
        HostTiming(ptsNs: int(), hostUs: int(),
                   stages: bool() ? .init(queueUs: int(), encodeUs: int(), paceUs: int()) : nil)
    }

    mutating func hdrMetadata() -> HDRMetadata {
        func c(_ g: inout SplitMix64) -> HDRMetadata.Chromaticity { .init(x: g.int(), y: g.int()) }
        return HDRMetadata(green: c(&self), blue: c(&self), red: c(&self), whitePoint: c(&self),
                           maxMasteringLuminance: int(), minMasteringLuminance: int(), maxCLL: int(), maxFALL: int())
    }

    mutating func feedback() -> FeedbackDatagram {
        var f = FeedbackDatagram(linkKbps: bool() ? 0 : int(), shape: bool() ? 0 : int())
        if bool() {
            f.window = .init(number: UInt32.random(in: 1...UInt32.max, using: &self), lossPPM: int(),
                             packetsReceived: int(), head: bool() ? 0 : int(), mid: bool() ? 0 : int(),
                             tail: bool() ? 0 : int(), socketDrops: bool() ? 0 : int())
        }
        if bool() {
            let nack = bool() ? FeedbackDatagram.Nack(frame: int(), shards: (0..<Int.random(in: 1...16, using: &self)).map { _ in int() }) : nil
            f.ask = .init(number: UInt16.random(in: 1...UInt16.max, using: &self),
                          invalidate: bool() ? .init(first: int(), last: int()) : nil, keyframe: bool(), nack: nack)
        }
        if bool() { f.ack = .init(lastFrame: int(), mask: int()) }
        return f
    }

    mutating func unknownKind() -> UInt64 { UInt64.random(in: 10...VarInt.max, using: &self) }

    mutating func hostDatagram() -> HostDatagram {
        switch Int.random(in: 0..<9, using: &self) {
        case 0: return .media(bytes(0...40))
        case 1: return .audio(hostAudio())
        case 2: return .clockEcho(t1: int(), t2: int(), t3: int())
        case 3: return .rumble(rumble())
        case 4: return .hidOutput(hidOutput())
        case 5: return .cursor(cursorState())
        case 6: return .hostTiming(hostTiming())
        case 7: return .hdrMetadata(hdrMetadata())
        default: return .unknown(kind: unknownKind(), payload: bytes(0...20))
        }
    }

    mutating func clientDatagram() -> ClientDatagram {
        switch Int.random(in: 0..<6, using: &self) {
        case 0: return .input(inputEvent())
        case 1: return .richInput(richInput())
        case 2: return .feedback(feedback())
        case 3: return .mic(audioFrame())
        case 4: return .clockProbe(t1: int())
        default: return .unknown(kind: unknownKind(), payload: bytes(0...20))
        }
    }
}
