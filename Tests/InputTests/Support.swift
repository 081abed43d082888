import Foundation
import Input
import PunktfunkWire

/// Files under Tests/Fixtures/upstream: byte-exact copies of the host project's vectors
/// (/work/shared/protocol/vectors/upstream, README there cites each source commit).
enum UpstreamVectors {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/upstream")

    static func json(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }
}

/// Everything the mapper sends, in order.
final class RecordingSink: InputSink {
    enum Sent: Equatable {
        case event(InputEvent, reliable: Bool)
        case rich(RichInput)
    }
    var sent: [Sent] = []
    var refuse = false

    func send(_ event: InputEvent, reliable: Bool) -> Bool {
        guard !refuse else { return false }
        sent.append(.event(event, reliable: reliable)); return true
    }

    func send(_ rich: RichInput) -> Bool {
        guard !refuse else { return false }
        sent.append(.rich(rich)); return true
    }

    var events: [InputEvent] { sent.compactMap { if case .event(let e, _) = $0 { e } else { nil } } }

    func take() -> [Sent] { defer { sent = [] }; return sent }
}

/// Feeds evdev events to a mapper, one SYN frame at a time.
extension InputMapper {
    func frame(_ device: Int, _ events: [(UInt16, UInt16, Int32)]) {
        for (t, c, v) in events { handle(device: device, type: t, code: c, value: v) }
        handle(device: device, type: EV.syn, code: EV.synReport, value: 0)
    }

    func key(_ device: Int, _ code: UInt16, _ down: Bool) { frame(device, [(EV.key, code, down ? 1 : 0)]) }
}

func stickRange() -> AxisRange { AxisRange(minimum: -32768, maximum: 32767) }

func xboxPad(uniq: String? = nil, kind: GamepadKind = .xboxOne) -> DeviceRole {
    let s = stickRange(), t = AxisRange(minimum: 0, maximum: 1023)
    return .gamepad(PadDescription(kind: kind, uniq: uniq, layout: .forDevice(vendor: 0x045E),
                                   ranges: [EV.absX: s, EV.absY: s, EV.absRX: s, EV.absRY: s, EV.absZ: t, EV.absRZ: t],
                                   analogTriggers: true, hasRumble: true))
}
