import Testing
@testable import PunktfunkWire

/// Host → client feedback datagrams, data-plane.md §7 and its §9.1 goldens.
@Suite struct DatagramHostFeedbackTests {
    // MARK: rumble 0xCA (§7.1)

    let v3 = Rumble(pad: 2, low: 0x4000, high: 0x8000, envelope: .init(seq: 7, ttlMs: 400),
                    leftTrigger: 0x1234, rightTrigger: 0xFFFF)

    @Test func rumbleV3Golden() throws {
        let d = v3.encoded
        #expect(d == hex("ca 0200 0040 0080 07 9001 3412 ffff"))
        #expect(Array(d[10..<14]) == [0x34, 0x12, 0xFF, 0xFF])
        #expect(try Rumble(decoding: d) == v3)
    }

    @Test func rumbleFormsArePrefixesAndLengthDetected() throws {
        var w1 = WireWriter(), w2 = WireWriter(), w3 = WireWriter()
        v3.encode(as: .v1, into: &w1)
        v3.encode(as: .v2, into: &w2)
        v3.encode(as: .v3, into: &w3)
        #expect(w1.bytes.count == 7 && w2.bytes.count == 10 && w3.bytes.count == 14)
        #expect(Array(w3.bytes.prefix(10)) == w2.bytes && Array(w2.bytes.prefix(7)) == w1.bytes)
        let levels = Rumble(pad: 2, low: 0x4000, high: 0x8000)
        let envelope = Rumble(pad: 2, low: 0x4000, high: 0x8000, envelope: .init(seq: 7, ttlMs: 400))
        // A torn tail degrades to the shorter form; absent trigger levels are 0, not "unchanged".
        for n in 7..<10 { #expect(try Rumble(decoding: Array(w3.bytes.prefix(n))) == levels) }
        for n in 10..<14 { #expect(try Rumble(decoding: Array(w3.bytes.prefix(n))) == envelope) }
        #expect(try Rumble(decoding: w3.bytes + [1, 2, 3]) == v3)
        for n in 0..<7 { #expect(throws: WireError.self) { try Rumble(decoding: Array(w3.bytes.prefix(n))) } }
        #expect(throws: WireError.wrongTag(expected: 0xCA, found: 0xC9)) { try Rumble(decoding: [0xC9] + w3.bytes.dropFirst()) }
    }

    @Test func rumbleShortestFormAndSeqGate() {
        #expect(Rumble(pad: 0, low: 1, high: 2).version == .v1)
        #expect(Rumble(pad: 0, low: 1, high: 2, envelope: .init(seq: 0, ttlMs: 0)).version == .v2)
        #expect(v3.version == .v3)
        // Stop at seq 10, then a reordered start at seq 9: dropped. Seq 1 supersedes 254.
        #expect(!GamepadSnapshot.isNewer(9, than: 10))
        #expect(GamepadSnapshot.isNewer(11, than: 10))
        #expect(GamepadSnapshot.isNewer(1, than: 254))
    }

    @Test func rumbleRoundTripProperty() throws {
        var g = SplitMix64(seed: 0xCA)
        for _ in 0..<2_000 {
            let r = g.rumble()
            #expect(try Rumble(decoding: r.encoded) == r)
            #expect(r.encoded.count == r.version.rawValue)
        }
    }

    // MARK: HID output 0xCD (§7.2)

    @Test func hidOutputGoldens() throws {
        #expect(HIDOutput.micLED(pad: 3, mode: 1).encoded == hex("cd 07 03 01"))
        let audio = HIDOutput.audioControl(pad: 0x0B, flags: 0x17, raw: [1, 2, 3, 4, 5, 6])
        #expect(audio.encoded == hex("cd 06 0b00 17 010203040506"))
        #expect(try HIDOutput(decoding: hex("cd 06 0b00 17 010203040506")) == audio)
        #expect(try HIDOutput(decoding: hex("cd 07 03 01")) == .micLED(pad: 3, mode: 1))
        for effect in [hex("02 90 a0 ff 00 00 00 00 00 00 00"), hex("26 90 a0 ff 00 00")] {
            let t = HIDOutput.trigger(pad: 1, which: 1, effect: effect)
            #expect(t.encoded == hex("cd 03 01 01") + effect)
            #expect(try HIDOutput(decoding: t.encoded) == t)
        }
        #expect(HIDOutput.led(pad: 0, r: 10, g: 20, b: 30).encoded == hex("cd 01 00 0a 14 1e"))
        #expect(HIDOutput.playerLEDs(pad: 0, bits: 0b00100).encoded == hex("cd 02 00 04"))
        #expect(HIDOutput.trackpadHaptic(pad: 0, side: 1, amplitude: 0x1234, periodUs: 0x5678, count: 9).encoded
            == hex("cd 04 00 01 3412 7856 0900"))
        #expect(HIDOutput.hidRaw(pad: 1, reportKind: 0, data: [0x80, 1]).encoded == hex("cd 05 01 00 8001"))
    }

    @Test func hidOutputTruncationsThrow() {
        let all: [HIDOutput] = [
            .led(pad: 0, r: 1, g: 2, b: 3), .playerLEDs(pad: 0, bits: 5), .trigger(pad: 0, which: 0, effect: [2]),
            .trackpadHaptic(pad: 0, side: 0, amplitude: 1, periodUs: 2, count: 3), .hidRaw(pad: 0, reportKind: 1, data: [1]),
            .audioControl(pad: 15, flags: 0, raw: [1, 2, 3, 4, 5, 6]), .micLED(pad: 2, mode: 2),
        ]
        for v in all {
            let d = v.encoded
            for n in 0..<d.count { #expect(throws: WireError.self) { try HIDOutput(decoding: Array(d.prefix(n))) } }
        }
    }

    @Test func triggerAndRawAreClampedBothWays() throws {
        #expect(HIDOutput.trigger(pad: 1, which: 0, effect: [UInt8](repeating: 0xAB, count: 200)).encoded.count == 4 + 11)
        #expect(try HIDOutput(decoding: hex("cd 03 01 00") + [UInt8](repeating: 0xCD, count: 500))
            == .trigger(pad: 1, which: 0, effect: [UInt8](repeating: 0xCD, count: 11)))
        // No effect bytes is malformed (it would read as "release"); one byte is a short block.
        #expect(throws: WireError.self) { try HIDOutput(decoding: hex("cd 03 00 00")) }
        #expect(try HIDOutput(decoding: hex("cd 03 00 00 02")) == .trigger(pad: 0, which: 0, effect: [2]))
        #expect(HIDOutput.hidRaw(pad: 0, reportKind: 0, data: [UInt8](repeating: 0x11, count: 500)).encoded.count == 4 + 64)
        #expect(try HIDOutput(decoding: hex("cd 05 00 01") + [UInt8](repeating: 0x22, count: 900))
            == .hidRaw(pad: 0, reportKind: 1, data: [UInt8](repeating: 0x22, count: 64)))
    }

    @Test func audioControlRefusesPadsOutsideTheIndexSpace() throws {
        #expect(try HIDOutput(decoding: HIDOutput.audioControl(pad: 15, flags: 0x12, raw: [1, 2, 3, 4, 5, 6]).encoded).pad == 15)
        for pad: UInt16 in [16, 256, .max] {
            #expect(throws: WireError.self) {
                try HIDOutput(decoding: HIDOutput.audioControl(pad: pad, flags: 0, raw: [0, 0, 0, 0, 0, 0]).encoded)
            }
        }
        #expect(HIDOutput.audioControl(pad: 1, flags: 0, raw: [9]).encoded == hex("cd 06 0100 00 090000000000"))
        #expect(throws: WireError.malformed("HID output kind 127")) { try HIDOutput(decoding: [0xCD, 0x7F]) }
    }

    @Test func hidOutputRoundTripProperty() throws {
        var g = SplitMix64(seed: 0xCD)
        for _ in 0..<2_000 {
            let v = g.hidOutput()
            #expect(try HIDOutput(decoding: v.encoded) == v)
            #expect(v.encoded[1] == v.kind)
            decodeEveryPrefix(v.encoded) { b throws(WireError) in _ = try HIDOutput(decoding: b) }
        }
    }

    // MARK: cursor 0xD0 (§7.3), host timing 0xCF (§7.5), HDR 0xCE (§7.4)

    @Test func cursorLayoutAndExtensibility() throws {
        let c = CursorState(serial: 42, flags: [.visible, .relativeHint], x: -5, y: 2160)
        #expect(c.encoded == hex("d0 2a000000 03 fbffffff 70080000"))
        #expect(try CursorState(decoding: c.encoded + [0xFF]) == c)
        for n in 0..<14 { #expect(throws: WireError.self) { try CursorState(decoding: Array(c.encoded.prefix(n))) } }
        var g = SplitMix64(seed: 0xD0)
        for _ in 0..<500 {
            let v = g.cursorState()
            #expect(try CursorState(decoding: v.encoded) == v)
        }
    }

    @Test func hostTimingThreeForms() throws {
        let base = HostTiming(ptsNs: 1_751_500_000_123_456_789, hostUs: 4_321)
        #expect(base.encoded.count == 13)
        #expect(base.encoded == hex("cf 158d7463f8934e18 e1100000"))
        let staged = HostTiming(ptsNs: base.ptsNs, hostUs: base.hostUs, stages: .init(queueUs: 900, encodeUs: 3_100, paceUs: 2_500))
        let d = staged.encoded
        #expect(d.count == 25 && Array(d.prefix(13)) == base.encoded)
        #expect(try HostTiming(decoding: d) == staged)
        for n in 13..<25 { #expect(try HostTiming(decoding: Array(d.prefix(n))) == base) }
        #expect(try HostTiming(decoding: d + withUnsafeBytes(of: Int32(-2_750_000).littleEndian, Array.init)) == staged)
        for n in 0..<13 { #expect(throws: WireError.self) { try HostTiming(decoding: Array(d.prefix(n))) } }
        var g = SplitMix64(seed: 0xCF)
        for _ in 0..<500 {
            let v = g.hostTiming()
            #expect(try HostTiming(decoding: v.encoded) == v)
        }
    }

    @Test func hdrMetadataDatagram() throws {
        let bt2020 = HDRMetadata(green: .init(x: 8500, y: 39850), blue: .init(x: 6550, y: 2300),
                                 red: .init(x: 35400, y: 14600), whitePoint: .init(x: 15635, y: 16450),
                                 maxMasteringLuminance: 10_000_000, minMasteringLuminance: 1, maxCLL: 1000, maxFALL: 400)
        let d = HDRMetadataDatagram(bt2020).encoded
        #expect(d.count == 29 && d[0] == 0xCE && Array(d.dropFirst()) == bt2020.encoded)
        #expect(try HDRMetadataDatagram(decoding: d).metadata == bt2020)
        #expect(try HDRMetadataDatagram(decoding: d + [0]).metadata == bt2020)
        for n in 0..<29 { #expect(throws: WireError.self) { try HDRMetadataDatagram(decoding: Array(d.prefix(n))) } }
        #expect(throws: WireError.wrongTag(expected: 0xCE, found: 0xCD)) { try HDRMetadataDatagram(decoding: [0xCD] + d.dropFirst()) }
    }
}
