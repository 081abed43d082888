import Testing
import Input
import PunktfunkWire

/// The pure trackers on their own: what the host holds, and the chord's arm/fire rule.
@Suite struct HeldStateTests {
    @Test func onlyPressesThatWentOutAreReleased() {
        var h = HeldState()
        let r1 = h.key(vk: 0x41, down: false)     // down before the stream: no release
        #expect(!r1)
        let r2 = h.key(vk: 0x41, down: true)
        #expect(r2)
        let r3 = h.key(vk: 0x41, down: true)      // no second press
        #expect(!r3)
        let r4 = h.key(vk: 0xFF, down: true)       // the last VK bit
        #expect(r4)
        let r5 = h.mouseButton(.x2, down: true)
        #expect(r5)
        var pad = PadWireState()
        pad.buttons = [.a]
        pad.rightTrigger = 9
        h.pad(3, sent: pad)
        h.pad(16, sent: pad)                       // out of range: ignored
        #expect(h.heldKeyCount == 2 && !h.isEmpty)
        let r = h.releaseAll()
        #expect(r.keys == [0x41, 0xFF] && r.mouseButtons == [.x2] && r.pads == [3])
        #expect(h.isEmpty)
        let r6 = h.key(vk: 0x41, down: false)
        #expect(!r6)
    }

    @Test func chordArmsWhenAllPartsAreDownAndFiresOnTheLastRelease() {
        var c = EscapeChord.keyboard
        #expect(c.edge(30, down: true) == .pass)   // not a part
        #expect(c.edge(97, down: true) == .pass)   // right ctrl stands for ctrl
        #expect(c.edge(100, down: true) == .pass)
        #expect(c.edge(54, down: true) == .pass)
        #expect(c.edge(16, down: true) == .armed)
        #expect(c.edge(16, down: false) == .withheld)
        #expect(c.edge(97, down: false) == .withheld)
        #expect(c.edge(100, down: false) == .withheld)
        #expect(c.edge(54, down: false) == .fired)
        #expect(!c.armed)
        // Q first, then the modifiers: still the chord.
        #expect(c.edge(16, down: true) == .pass)
        #expect(c.edge(29, down: true) == .pass)
        #expect(c.edge(56, down: true) == .pass)
        #expect(c.edge(42, down: true) == .armed)
        c.reset()
        #expect(!c.armed)
    }
}
