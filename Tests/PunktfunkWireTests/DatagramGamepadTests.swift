import Foundation
import Testing
@testable import PunktfunkWire

/// Gamepad wire bits against the upstream `gamepad-button-vectors.json`
/// (crates/core/punktfunk-core/testdata @867f3f44, copied to Tests/Fixtures/upstream), axis ids,
/// and the snapshot packing (data-plane.md §6.2 "Gamepad").
@Suite struct DatagramGamepadTests {
    struct Vectors: Decodable {
        struct Button: Decodable { let name: String; let bit: UInt32; let evdev: String; let code: Int? }
        let buttons: [Button]
    }

    @Test func upstreamButtonBits() throws {
        let vectors = try JSONDecoder().decode(Vectors.self, from: try Fixtures.data("upstream/gamepad-button-vectors.json"))
        #expect(vectors.buttons.count == 21)
        for b in vectors.buttons {
            #expect(GamepadButtons.named(b.name)?.rawValue == b.bit, "\(b.name)")
            #expect(b.bit.nonzeroBitCount == 1, "\(b.name) is one bit")
        }
        // Our table is exactly the vector file, in its order.
        #expect(GamepadButtons.wireNames.map(\.name) == vectors.buttons.map(\.name))
        #expect(GamepadButtons.all.rawValue == vectors.buttons.reduce(0) { $0 | $1.bit })
        #expect(GamepadButtons.all.rawValue == 0x3F_F7FF)
    }

    @Test func xboxLayoutNames() {
        #expect(GamepadButtons.a.rawValue == 0x1000 && GamepadButtons.y.rawValue == 0x8000)
        #expect(GamepadButtons.misc1.rawValue == 0x20_0000)
        #expect(GamepadButtons([.a, .dpadUp]).description == "[A DPAD_UP]")
        #expect(GamepadButtons(rawValue: 0x800 | 0x1).description == "[DPAD_UP 0x800]")
    }

    @Test func axisIds() {
        #expect(GamepadAxis.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(Gamepad.maxPads == 16)
    }

    @Test func snapshotRoundTripProperty() throws {
        var g = SplitMix64(seed: 0x6A3E)
        for _ in 0..<2_000 {
            let s = GamepadSnapshot(pad: g.int(), seq: g.int(), buttons: GamepadButtons(rawValue: g.int()),
                                    leftTrigger: g.int(), rightTrigger: g.int(), leftStickX: g.int(),
                                    leftStickY: g.int(), rightStickX: g.int(), rightStickY: g.int())
            #expect(GamepadSnapshot(try InputEvent(decoding: InputEvent.gamepadState(s).encoded)) == s)
        }
    }

    @Test func eightBitSeqGate() {
        #expect(GamepadSnapshot.isNewer(0, than: nil))
        #expect(!GamepadSnapshot.isNewer(5, than: 5))
        #expect(GamepadSnapshot.isNewer(5 &+ 127, than: 5))
        #expect(!GamepadSnapshot.isNewer(5 &+ 128, than: 5))
        #expect(GamepadSnapshot.isNewer(0, than: 255))
        #expect(!GamepadSnapshot.isNewer(255, than: 0))
    }
}
