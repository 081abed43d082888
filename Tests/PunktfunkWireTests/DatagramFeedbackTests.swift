import Testing
@testable import PunktfunkWire

/// The Feedback datagram, kind 0x03 (data-plane.md §8.7, control-plane.md §5.2), and the
/// wrap-order rule the host de-duplicates with.
@Suite struct DatagramFeedbackTests {
    typealias F = FeedbackDatagram

    @Test func emptyFeedbackIsAnEmptyBody() throws {
        #expect(F().body.isEmpty)
        #expect(ClientDatagram.feedback(F()).encoded == [0x03])
        #expect(try F(body: []) == F())
    }

    @Test func windowFieldsFollowTheWhenWrittenRules() throws {
        let f = F(window: .init(number: 4, lossPPM: 1200, packetsReceived: 1 << 40, tail: 7))
        #expect(f.body == hex("0104 04000000 0204 b0040000 0308 0000000000010000 0b04 07000000"))
        #expect(try F(body: f.body) == f)
        // Window 0 writes nothing; its fields do not ride alone.
        #expect(F(window: .init(number: 0, lossPPM: 5, packetsReceived: 6, head: 7)).body.isEmpty)
        // Fields without their anchor are ignored on decode.
        #expect(try F(body: hex("0204 05000000")) == F())
        #expect(try F(body: hex("0104 00000000 0204 05000000")) == F())
    }

    @Test func levelsRideWithoutAWindow() throws {
        let f = F(linkKbps: 2_250_000, shape: 1)
        #expect(f.body == hex("0804 10552200 1001 01"))
        #expect(try F(body: f.body) == f)
    }

    @Test func askFieldsRideOnlyWithTheAsk() throws {
        let ask = F.Ask(number: 11, invalidate: .init(first: 100, last: 103), keyframe: true,
                        nack: .init(frame: 812, shards: [3, 4, 9, 40]))
        let f = F(ask: ask)
        #expect(f.body == hex("""
            0402 0b00 0504 64000000 0604 67000000 0701 01 1104 2c030000 \
            0d02 0300 0d02 0400 0d02 0900 0d02 2800
            """))
        #expect(try F(body: f.body) == f)
        #expect(F(ask: .init(number: 0, keyframe: true)).body.isEmpty)
        // Without tag 4 the ask's fields are not an ask.
        #expect(try F(body: hex("0701 01 0504 01000000 0604 02000000")) == F())
        // A wrapping RFI range (first > last) is legal.
        let wrap = F(ask: .init(number: 1, invalidate: .init(first: .max - 1, last: 2)))
        #expect(try F(body: wrap.body) == wrap)
    }

    @Test func ackDefaultsItsMask() throws {
        let f = F(ack: .init(lastFrame: 7_000, mask: 0b1011))
        #expect(f.body == hex("0e04 581b0000 0f02 0b00"))
        #expect(try F(body: f.body) == f)
        #expect(try F(body: hex("0e04 581b0000")) == F(ack: .init(lastFrame: 7_000, mask: 0)))
        #expect(try F(body: hex("0f02 0b00")) == F())
    }

    @Test func nackIsBoundedAndNamesItsFrame() throws {
        func body(shards: Int, frame: Bool) -> [UInt8] {
            var w = FieldWriter()
            w.uint(4, UInt16(1))
            if frame { w.uint(17, UInt32(9)) }
            for i in 0..<shards { w.uint(13, UInt16(i)) }
            return w.bytes
        }
        #expect(try F(body: body(shards: 16, frame: true)).ask?.nack?.shards.count == 16)
        #expect(throws: WireError.self) { try F(body: body(shards: 17, frame: true)) }
        #expect(throws: WireError.missingField(tag: 17)) { try F(body: body(shards: 2, frame: false)) }
        #expect(try F(body: body(shards: 0, frame: true)).ask == F.Ask(number: 1))
        // The encoder never writes more than 16.
        let long = F(ask: .init(number: 1, nack: .init(frame: 1, shards: Array(0..<40))))
        #expect(try F(body: long.body).ask?.nack?.shards == Array(0..<16))
    }

    @Test func decoderToleranceAndStrictness() throws {
        // Unknown tags are skipped; integers of any width are accepted.
        #expect(try F(body: hex("3f03 aabbcc 0801 05")) == F(linkKbps: 5))
        #expect(throws: WireError.valueOutOfRange(tag: 1, value: 1 << 32)) { try F(body: hex("0105 0000000001")) }
        #expect(throws: WireError.self) { try F(body: hex("0809 000000000000000000")) }        // 9-byte integer
        #expect(throws: WireError.duplicateField(tag: 8)) { try F(body: hex("0801 05 0801 06")) }
        #expect(throws: WireError.self) { try F(body: hex("0805 01")) }                        // field overruns
    }

    @Test func roundTripProperty() throws {
        var g = SplitMix64(seed: 0xFEED)
        for _ in 0..<3_000 {
            let f = g.feedback()
            #expect(try F(body: f.body) == f)
            decodeEveryPrefix(f.body) { b throws(WireError) in _ = try F(body: b) }
        }
    }

    // MARK: wrap order, `0 < (n − last) mod (max+1) ≤ max/2, n ≠ 0`

    @Test(arguments: [F.windowMax, F.askMax])
    func wrapOrderEdges(max: UInt64) {
        let half = max / 2
        #expect(!F.isNewer(0, than: 5, max: max), "n = 0 is never newer")
        #expect(!F.isNewer(0, than: max, max: max), "n = 0 even one past max")
        #expect(!F.isNewer(7, than: 7, max: max), "equal")
        #expect(F.isNewer(8, than: 7, max: max))
        #expect(!F.isNewer(6, than: 7, max: max), "behind")
        #expect(F.isNewer(1 + half, than: 1, max: max), "exactly max/2 ahead")
        #expect(!F.isNewer(2 + half, than: 1, max: max), "max/2 + 1 ahead")
        #expect(F.isNewer(1, than: max, max: max), "wraps past max")
        #expect(F.isNewer(3, than: max - 2, max: max), "wraps, 6 ahead")
        #expect(!F.isNewer(max - 2, than: 3, max: max), "wraps backwards")
        #expect(F.isNewer(half - 1, than: max, max: max), "max/2 ahead across the wrap")
        #expect(!F.isNewer(half, than: max, max: max), "max/2 + 1 ahead across the wrap")
        #expect(F.isNewer(1, than: 0, max: max), "first number against the none-yet state")
    }

    @Test func wrapOrderAskConcreteValues() {
        #expect(F.isNewer(32768, than: 1, max: F.askMax))     // 32767 ahead = 65535/2
        #expect(!F.isNewer(32769, than: 1, max: F.askMax))    // 32768 ahead
        #expect(F.isNewer(2, than: 65535, max: F.askMax))
        #expect(F.isNewer(UInt64(UInt32.max / 2) + 1, than: 1, max: F.windowMax))
        #expect(!F.isNewer(UInt64(UInt32.max / 2) + 2, than: 1, max: F.windowMax))
        #expect(F.isNewer(1, than: .max, max: .max))          // the full 64-bit space works too
        #expect(F.isNewer((1 << 63) - 1, than: 0, max: .max))
        #expect(!F.isNewer(1 << 63, than: 0, max: .max))
    }
}
