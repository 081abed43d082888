import Testing
@testable import PunktfunkWire

/// QUIC varints (RFC 9000 §16) as control-plane.md §2.1 uses them; widths and samples pinned by
/// upstream `v2/field.rs` @434bb63 and RFC 9000 §A.1.
@Suite struct VarIntTests {
    static let boundaries: [(UInt64, Int)] = [
        (0, 1), (63, 1), (64, 2), (16_383, 2), (16_384, 4), ((1 << 30) - 1, 4), (1 << 30, 8), ((1 << 62) - 1, 8),
    ]

    @Test(arguments: boundaries)
    func widthsAtTheBoundaries(value: UInt64, width: Int) throws {
        #expect(VarInt.encodedLength(value) == width)
        let bytes = VarInt.encode(value)
        #expect(bytes.count == width)
        #expect(bytes[0] >> 6 == [1: 0, 2: 1, 4: 2, 8: 3][width])
        var r = WireReader(bytes)
        #expect(try r.readVarInt() == value)
        #expect(r.isAtEnd)
    }

    /// RFC 9000 §A.1 sample encodings; the first three are shortest forms.
    static let rfcSamples: [(String, UInt64, Bool)] = [
        ("c2197c5eff14e88c", 151_288_809_941_952_652, true),
        ("9d7f3e7d", 494_878_333, true),
        ("7bbd", 15_293, true),
        ("25", 37, true),
        ("4025", 37, false),
    ]

    @Test(arguments: rfcSamples)
    func rfc9000Samples(hexText: String, value: UInt64, shortest: Bool) throws {
        let bytes = hex(hexText)
        var r = WireReader(bytes)
        #expect(try r.readVarInt() == value)
        #expect(r.isAtEnd)
        #expect((VarInt.encode(value) == bytes) == shortest)
    }

    /// Decoders accept every longer-than-needed form.
    @Test(arguments: [0, 1, 37, 63, 64, 16_383] as [UInt64])
    func longerFormsAreAccepted(value: UInt64) throws {
        for (prefix, width) in [(UInt8(0x40), 2), (0x80, 4), (0xC0, 8)] where value < (UInt64(1) << (8 * width - 2)) {
            var bytes = (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - $0))) }
            bytes[0] |= prefix
            var r = WireReader(bytes)
            #expect(try r.readVarInt() == value)
        }
    }

    @Test func truncatedVarintsThrow() {
        for bytes: [UInt8] in [[], [0x40], [0x80, 0, 0], [0xC0, 0, 0, 0, 0, 0, 0]] {
            var r = WireReader(bytes)
            #expect(throws: WireError.self) { try r.readVarInt() }
        }
    }

    @Test func randomValuesRoundTripInShortestForm() throws {
        var rng = SplitMix64(seed: 0xA1)
        for _ in 0..<1000 {
            let v = rng.int(UInt64.self) >> UInt64(rng.int(in: 2...63))
            let bytes = VarInt.encode(v)
            #expect(bytes.count == VarInt.encodedLength(v))
            var r = WireReader(bytes)
            #expect(try r.readVarInt() == v)
        }
    }
}
