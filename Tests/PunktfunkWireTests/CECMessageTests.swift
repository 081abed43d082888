import Testing
@testable import PunktfunkWire

/// Every message the box sends or accepts, as bytes encoded by hand from the CEC specification's
/// opcode table (HDMI 1.4b Supplement 1, CEC 15 and 17): header (initiator << 4 | destination),
/// opcode, operands. Physical address 1.0.0.0 is 0x1000; TV = 0, Playback 1 = 4, broadcast = F.
@Suite struct CECMessageTests {
    static let vectors: [(String, CECFrame)] = [
        ("04:44:01", CECFrame(from: 0, to: 4, .userControlPressed(command: CECUserControl.up, operands: []))),
        ("04:44:00", CECFrame(from: 0, to: 4, .userControlPressed(command: CECUserControl.select, operands: []))),
        ("04:44:21", CECFrame(from: 0, to: 4, .userControlPressed(command: 0x21, operands: []))),
        ("04:44:60:05", CECFrame(from: 0, to: 4, .userControlPressed(command: CECUserControl.playFunction, operands: [5]))),
        ("04:45", CECFrame(from: 0, to: 4, .userControlReleased)),
        ("40:04", CECFrame(from: 4, to: 0, .imageViewOn)),
        ("40:0d", CECFrame(from: 4, to: 0, .textViewOn)),
        ("4f:82:10:00", CECFrame(from: 4, to: 15, .activeSource(0x1000))),
        ("40:9d:10:00", CECFrame(from: 4, to: 0, .inactiveSource(0x1000))),
        ("0f:85", CECFrame(from: 0, to: 15, .requestActiveSource)),
        ("0f:86:10:00", CECFrame(from: 0, to: 15, .setStreamPath(0x1000))),
        ("5f:80:10:00:21:00", CECFrame(from: 5, to: 15, .routingChange(from: 0x1000, to: 0x2100))),
        ("5f:81:21:00", CECFrame(from: 5, to: 15, .routingInformation(0x2100))),
        ("0f:36", CECFrame(from: 0, to: 15, .standby)),
        ("40:36", CECFrame(from: 4, to: 0, .standby)),
        ("04:83", CECFrame(from: 0, to: 4, .givePhysicalAddress)),
        ("4f:84:10:00:04", CECFrame(from: 4, to: 15, .reportPhysicalAddress(0x1000, deviceType: CECDeviceType.playbackDevice))),
        ("04:46", CECFrame(from: 0, to: 4, .giveOSDName)),
        ("40:47:70:75:6e:6b:74:66:75:6e:6b", CECFrame(from: 4, to: 0, .setOSDName(Array("punktfunk".utf8)))),
        ("04:8c", CECFrame(from: 0, to: 4, .giveDeviceVendorID)),
        ("0f:87:00:00:f0", CECFrame(from: 0, to: 15, .deviceVendorID(0x0000F0))),
        ("04:9f", CECFrame(from: 0, to: 4, .getCECVersion)),
        ("40:9e:05", CECFrame(from: 4, to: 0, .cecVersion(CECVersion.v1_4))),
        ("04:8f", CECFrame(from: 0, to: 4, .giveDevicePowerStatus)),
        ("40:90:00", CECFrame(from: 4, to: 0, .reportPowerStatus(CECPowerStatus.on))),
        ("04:8d:02", CECFrame(from: 0, to: 4, .menuRequest(CECMenu.query))),
        ("40:8e:00", CECFrame(from: 4, to: 0, .menuStatus(CECMenu.activated))),
        ("40:00:8c:04", CECFrame(from: 4, to: 0, .featureAbort(opcode: 0x8C, reason: CECAbortReason.refused))),
        ("04:ff", CECFrame(from: 0, to: 4, .abort)),
        ("04:a5", CECFrame(from: 0, to: 4, .other(opcode: 0xA5, operands: []))),
        ("04:89:01:02", CECFrame(from: 0, to: 4, .other(opcode: 0x89, operands: [1, 2]))),
        ("40", CECFrame(from: 4, to: 0, nil)),
    ]

    static func bytes(_ hex: String) -> [UInt8] { hex.split(separator: ":").map { UInt8($0, radix: 16)! } }

    @Test(arguments: vectors.indices) func vectorDecodesAndEncodes(_ i: Int) throws {
        let (hex, frame) = Self.vectors[i]
        #expect(try CECFrame(decoding: Self.bytes(hex)) == frame)
        #expect(frame.encoded == Self.bytes(hex))
        #expect(frame.description == hex)
    }

    @Test func everyMessageShortOfItsOperandsIsTruncated() {
        for (hex, frame) in Self.vectors {
            let b = Self.bytes(hex)
            guard b.count > 2 else { continue }
            if case .userControlPressed = frame.message, b.count > 3 { continue }   // its extra operands are optional
            if case .other = frame.message { continue }
            if case .setOSDName = frame.message { continue }
            #expect(throws: WireError.self, "\(hex)") { try CECFrame(decoding: b.dropLast(b.count - 2)) }
        }
    }

    @Test func extraOperandsAreIgnored() throws {
        // CEC 12.3: a follower ignores operands beyond the ones it knows.
        #expect(try CECFrame(decoding: Self.bytes("4f:82:10:00:99:98")) == CECFrame(from: 4, to: 15, .activeSource(0x1000)))
        #expect(try CECFrame(decoding: Self.bytes("04:83:01")) == CECFrame(from: 0, to: 4, .givePhysicalAddress))
        let longName = Array(repeating: UInt8(ascii: "a"), count: 14)
        #expect(try CECFrame(decoding: [0x40, 0x47] + longName).message == .setOSDName(longName))
    }

    @Test func emptyAndOverlongFramesThrow() {
        #expect(throws: WireError.truncated(needed: 1, available: 0)) { try CECFrame(decoding: [UInt8]()) }
        #expect(throws: WireError.wrongLength(what: "CEC frame", expected: 16, found: 17)) {
            try CECFrame(decoding: [UInt8](repeating: 0x44, count: 17))
        }
    }

    @Test func everyDecodedMessageHasItsRow() {
        for (hex, frame) in Self.vectors {
            guard let message = frame.message else { continue }
            #expect(message.rule?.opcode == message.opcode, "\(hex)")
        }
        #expect(CECMessage.activeSource(0).rule?.addressing == .broadcast)
        #expect(CECMessage.giveOSDName.rule?.addressing == .directed)
        #expect(CECMessage.standby.rule?.addressing == .either)
        #expect(CECMessage.inactiveSource(0).rule?.addressing == .directed)
        #expect(CECMessage.other(opcode: 0xFE, operands: []).rule == nil)
    }

    @Test func osdNameIsPrintableASCIIOfAtMost14Bytes() {
        #expect(CECMessage.osdName("Wohnzimmer-Box-Nummer-1") == Array("Wohnzimmer-Box".utf8))
        #expect(CECMessage.osdName("Küche") == Array("K?che".utf8))
        #expect(CECMessage.osdName("") == Array("punktfunk".utf8))
    }

    @Test func physicalAddressText() {
        #expect(CECPhysicalAddress.text(0x1000) == "1.0.0.0")
        #expect(CECPhysicalAddress.text(0x2130) == "2.1.3.0")
        #expect(CECPhysicalAddress.text(0xFFFF) == "f.f.f.f")
    }

    /// Property: any 0…17 bytes decode or throw, never trap; what decodes re-encodes to a frame
    /// that decodes to the same value, no longer than the input.
    @Test func randomBytesNeverTrapAndRoundTrip() {
        var rng = SplitMix64(seed: 0xCEC)
        for _ in 0..<20_000 {
            let n = Int(rng.next() % 18)
            var b = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if n > 1, rng.next() % 2 == 0 {
                let ops: [UInt8] = [0x00, 0x04, 0x36, 0x44, 0x45, 0x46, 0x47, 0x80, 0x81, 0x82, 0x84, 0x86, 0x87, 0x8D, 0x90, 0x9D, 0x9E]
                b[1] = ops[Int(rng.next() % UInt64(ops.count))]
            }
            guard let f = try? CECFrame(decoding: b) else { continue }
            #expect(f.encoded.count <= b.count)
            #expect((try? CECFrame(decoding: f.encoded)) == f)
        }
    }
}
