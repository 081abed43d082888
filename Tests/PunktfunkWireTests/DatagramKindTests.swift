import Testing
@testable import PunktfunkWire

/// punktfunk/2 QUIC DATAGRAM framing `kind ‖ payload` (data-plane.md §8.5) and the typed
/// host/client datagrams built on it.
@Suite struct DatagramKindTests {
    @Test func kindsAreSingleByteVarints() {
        #expect(DatagramKind.allCases.map(\.rawValue) == Array(0...9))
        for k in DatagramKind.allCases { #expect(VarInt.encode(k.rawValue) == [UInt8(k.rawValue)]) }
    }

    @Test func everyTagBelongsToExactlyOneKind() {
        let tags = DatagramKind.allCases.flatMap(\.innerTags)
        #expect(Set(tags).count == tags.count)
        #expect(Set(tags) == Set([0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3]))
        #expect(DatagramKind(innerTag: 0xC8) == .inputState)
        #expect(DatagramKind(innerTag: 0xD1) == .audio)
        #expect(DatagramKind(innerTag: 0x01) == nil)
    }

    @Test func wrapPrefixesTheKindOfTheTag() throws {
        let input = InputEvent.keyDown(vk: 0x41).encoded
        #expect(QuicDatagram.wrap(tagged: input) == [0x02] + input)
        #expect(QuicDatagram.wrap(tagged: [0x01, 2, 3]) == nil)
        #expect(QuicDatagram.wrap(tagged: []) == nil)
        #expect(QuicDatagram.wrap(.media, [9, 9]) == [0, 9, 9])
        var (kind, r) = try QuicDatagram.unwrap([0x40, 0x05] + Rumble(pad: 1, low: 2, high: 3).encoded)  // 2-byte varint
        #expect(kind == 5)
        #expect(try Rumble.decode(from: &r) == Rumble(pad: 1, low: 2, high: 3))
        #expect(throws: WireError.self) { try QuicDatagram.unwrap([]) }
    }

    @Test func hostDatagramGoldens() throws {
        let audio = hex("01 c9 04030201 8877665544332211 aabb")
        #expect(try HostDatagram(decoding: audio)
            == .audio(.opus(AudioFrame(seq: 0x0102_0304, ptsNs: 0x1122_3344_5566_7788, payload: [0xAA, 0xBB]))))
        #expect(try HostDatagram(decoding: hex("06 cd 07 03 01")) == .hidOutput(.micLED(pad: 3, mode: 1)))
        #expect(try HostDatagram(decoding: hex("05 ca 0200 0040 0080 07 9001 3412 ffff"))
            == .rumble(Rumble(pad: 2, low: 0x4000, high: 0x8000, envelope: .init(seq: 7, ttlMs: 400),
                              leftTrigger: 0x1234, rightTrigger: 0xFFFF)))
        // Clock echo: {1: t1, 2: t2, 3: t3} as u64 fields.
        let echo = HostDatagram.clockEcho(t1: 5, t2: 6, t3: 7)
        #expect(echo.encoded == hex("04 0108 0500000000000000 0208 0600000000000000 0308 0700000000000000"))
        #expect(try HostDatagram(decoding: echo.encoded) == echo)
        #expect(try HostDatagram(decoding: hex("00 0909")) == .media([9, 9]))
    }

    @Test func clientDatagramGoldens() throws {
        #expect(ClientDatagram.input(.keyDown(vk: 0x41)).encoded == hex("02 c8 00 41000000 00000000 00000000 00000000"))
        #expect(ClientDatagram.richInput(.pen([1])).encoded == hex("02 cc 05 01"))
        #expect(ClientDatagram.mic(AudioFrame(seq: 0x0102_0304, ptsNs: 0x1122_3344_5566_7788, payload: [0xAA, 0xBB])).encoded
            == hex("01 cb 04030201 8877665544332211 aabb"))
        #expect(ClientDatagram.clockProbe(t1: 5).encoded == hex("04 0108 0500000000000000"))
        // Readers accept any integer width.
        #expect(try ClientDatagram(decoding: hex("04 0101 05")) == .clockProbe(t1: 5))
    }

    @Test func innerTagMustMatchTheKind() {
        let rumble = Rumble(pad: 1, low: 2, high: 3).encoded
        #expect(throws: WireError.self) { try HostDatagram(decoding: [0x01] + rumble) }          // audio kind, rumble tag
        #expect(throws: WireError.self) { try HostDatagram(decoding: [0x06] + rumble) }          // HID kind, rumble tag
        #expect(throws: WireError.wrongTag(expected: 0xCA, found: 0xCD)) {
            try HostDatagram(decoding: hex("05 cd 07 03 01"))
        }
        #expect(throws: WireError.self) { try ClientDatagram(decoding: [0x02] + AudioPacket.mic(AudioFrame(seq: 0, ptsNs: 0, payload: [])).encoded) }
        #expect(throws: WireError.wrongTag(expected: 0xCB, found: 0xC9)) {
            try ClientDatagram(decoding: hex("01 c9 04030201 8877665544332211"))
        }
        #expect(throws: WireError.self) { try HostDatagram(decoding: [0x05]) }                   // empty payload
    }

    @Test func directionIsEnforced() {
        let mic = AudioPacket.mic(AudioFrame(seq: 1, ptsNs: 2, payload: [])).encoded
        #expect(throws: WireError.self) { try HostDatagram(decoding: [0x01] + mic) }
        #expect(throws: WireError.self) { try HostDatagram(decoding: ClientDatagram.input(.keyUp(vk: 1)).encoded) }
        #expect(throws: WireError.self) { try HostDatagram(decoding: ClientDatagram.feedback(.init(linkKbps: 5)).encoded) }
        #expect(throws: WireError.self) { try HostDatagram(decoding: ClientDatagram.clockProbe(t1: 1).encoded) }
        #expect(throws: WireError.self) { try ClientDatagram(decoding: HostDatagram.clockEcho(t1: 1, t2: 2, t3: 3).encoded) }
        #expect(throws: WireError.self) { try ClientDatagram(decoding: HostDatagram.media([1]).encoded) }
        #expect(throws: WireError.self) { try ClientDatagram(decoding: HostDatagram.rumble(Rumble(pad: 0, low: 0, high: 0)).encoded) }
    }

    @Test func unknownKindsSurfaceForDropping() throws {
        let audio = AudioPacket.opus(AudioFrame(seq: 1, ptsNs: 2, payload: [3])).encoded
        #expect(try HostDatagram(decoding: [0x3F] + audio) == .unknown(kind: 0x3F, payload: audio))
        #expect(try ClientDatagram(decoding: [0x0A]) == .unknown(kind: 0x0A, payload: []))
        #expect(try HostDatagram(decoding: hex("c000000000000fff 01")) == .unknown(kind: 0xFFF, payload: [1]))
    }

    @Test func clockDatagramRules() throws {
        #expect(try ClockDatagram(body: ClockDatagram.probe(t1: 9).body) == .probe(t1: 9))
        #expect(try ClockDatagram(body: ClockDatagram.echo(t1: 1, t2: 2, t3: 3).body + hex("0901ff")) == .echo(t1: 1, t2: 2, t3: 3))
        #expect(throws: WireError.missingField(tag: 1)) { try ClockDatagram(body: hex("0201 01")) }        // half an echo, no t1
        #expect(throws: WireError.self) { try ClockDatagram(body: hex("0101 01 0201 02")) }                // t2 without t3
        #expect(throws: WireError.duplicateField(tag: 1)) { try ClockDatagram(body: hex("0101 01 0101 02")) }
        #expect(ClockDatagram.echo(t1: 1, t2: 5, t3: 6).sample(receivedAt: 9) == ClockSample(t1: 1, t2: 5, t3: 6, t4: 9))
        #expect(ClockDatagram.probe(t1: 1).sample(receivedAt: 9) == nil)
    }

    @Test func roundTripProperty() throws {
        var g = SplitMix64(seed: 0x5EED)
        for _ in 0..<3_000 {
            let h = g.hostDatagram()
            #expect(try HostDatagram(decoding: h.encoded) == h)
            let c = g.clientDatagram()
            #expect(try ClientDatagram(decoding: c.encoded) == c)
        }
    }

    @Test func everyTruncationOfEveryDatagramIsHandled() {
        var g = SplitMix64(seed: 0x7A11)
        for _ in 0..<1_000 {
            decodeEveryPrefix(g.hostDatagram().encoded) { b throws(WireError) in _ = try HostDatagram(decoding: b) }
            decodeEveryPrefix(g.clientDatagram().encoded) { b throws(WireError) in _ = try ClientDatagram(decoding: b) }
        }
    }

    /// Random bytes, half of them led by a real kind and tag so the inner decoders get hit.
    @Test func randomBytesNeverTrap() {
        var g = SplitMix64(seed: 0xF022)
        let tags: [UInt8] = [0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3]
        var decodedAny = 0
        for i in 0..<20_000 {
            var b = g.bytes(0...48)
            if i % 2 == 0, b.count >= 2 {
                b[0] = UInt8.random(in: 0...10, using: &g)
                b[1] = g.pick(tags)
            }
            if (try? HostDatagram(decoding: b)) != nil { decodedAny += 1 }
            if (try? ClientDatagram(decoding: b)) != nil { decodedAny += 1 }
            _ = try? AudioPacket(decoding: b)
            _ = try? InputEvent(decoding: b)
            _ = try? RichInput(decoding: b)
            _ = try? Rumble(decoding: b)
            _ = try? HIDOutput(decoding: b)
            _ = try? CursorState(decoding: b)
            _ = try? HostTiming(decoding: b)
            _ = try? HDRMetadataDatagram(decoding: b)
            _ = try? FeedbackDatagram(body: b)
            _ = try? ClockDatagram(body: b)
        }
        #expect(decodedAny > 0)
    }
}
