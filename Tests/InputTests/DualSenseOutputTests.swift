import Testing
@testable import Input
import PunktfunkWire

/// The DualSense output report builder (hid-playstation's layout) and the Bluetooth CRC. The
/// expected CRCs were computed independently with Python's `zlib.crc32` over the 0xA2 seed
/// byte followed by the report's first 74 bytes.
@Suite struct DualSenseOutputTests {
    func hex(_ s: String) -> [UInt8] {
        let d = Array(s.filter(\.isHexDigit))
        return stride(from: 0, to: d.count, by: 2).map { UInt8(String(d[$0...$0 + 1]), radix: 16)! }
    }

    @Test func crc32IsTheIEEECheckValue() {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in Array("123456789".utf8) { crc = CRC32.update(crc, byte: b) }
        #expect(~crc == 0xCBF4_3926)
    }

    @Test func bluetoothLightbarReportMatchesZlib() {
        var s = DualSenseOutput()
        let applied = s.apply(.led(pad: 0, r: 10, g: 20, b: 30))
        #expect(applied)
        let report = DualSenseOutput.report(s.commonBlock(since: nil), transport: .bluetooth, sequence: 3)
        #expect(report == hex("""
            31301000040000000000000000000000000000000000000000000000000000000000000000000000000000000000000a141e
            000000000000000000000000000000000000000000000000720e2299
            """))
    }

    @Test func bluetoothCRCOfAnAllZeroReport() {
        let r = [UInt8](repeating: 0, count: 78)
        #expect(DualSenseOutput.bluetoothCRC(r) == 0x0EAA_90A9)
    }

    @Test func usbReportPlacesEveryField() {
        var s = DualSenseOutput()
        _ = s.apply(.led(pad: 0, r: 1, g: 2, b: 3))
        _ = s.apply(.playerLEDs(pad: 0, bits: 0b100100))      // low five bits only
        _ = s.apply(.micLED(pad: 0, mode: 2))
        _ = s.apply(.trigger(pad: 0, which: 1, effect: [0x21, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))
        _ = s.apply(.trigger(pad: 0, which: 0, effect: [0x26, 0x90, 0xA0, 0xFF]))
        s.rumble(low: 0x4000, high: 0x8000)
        let r = DualSenseOutput.report(s.commonBlock(since: nil), transport: .usb, sequence: 0)
        #expect(r.count == 63)
        #expect(r[0] == 0x02)
        #expect(r[1] == 0x0F)                 // vibration, haptics select, R2, L2
        #expect(r[2] == 0x15)                 // mic LED, lightbar, player LEDs
        #expect(r[3] == 0x80 && r[4] == 0x40) // right (high) motor, left (low) motor
        #expect(r[9] == 2)
        #expect(Array(r[11...21]) == [0x21, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(Array(r[22...32]) == [0x26, 0x90, 0xA0, 0xFF, 0, 0, 0, 0, 0, 0, 0])
        #expect(r[39] == 0x04)
        #expect(r[44] == 0b00100)
        #expect(Array(r[45...47]) == [1, 2, 3])
    }

    @Test func onlyWhatChangedIsFlagged() {
        var a = DualSenseOutput()
        _ = a.apply(.led(pad: 0, r: 1, g: 2, b: 3))
        _ = a.apply(.playerLEDs(pad: 0, bits: 1))
        var b = a
        _ = b.apply(.playerLEDs(pad: 0, bits: 3))
        let block = b.commonBlock(since: a)
        #expect(block[0] == 0 && block[1] == 0x10 && block[43] == 3 && block[44] == 0)
        // The host re-sends unchanged state: nothing to write.
        #expect(DualSenseOutput.isEmpty(b.commonBlock(since: b)))
    }

    @Test func sessionEndStopsMotorsReleasesTriggersAndLEDs() {
        let r = DualSenseOutput.report(DualSenseOutput.sessionEndBlock(), transport: .usb, sequence: 0)
        #expect(r[1] == 0x0F && r[2] == 0x08 && r[3] == 0 && r[4] == 0)
        #expect(Array(r[11...32]).allSatisfy { $0 == 0 })
    }

    @Test func bluetoothSequenceIsTheHighNibble() {
        let r = DualSenseOutput.report(DualSenseOutput.sessionEndBlock(), transport: .bluetooth, sequence: 0x1F)
        #expect(r[1] == 0xF0 && r[2] == 0x10 && r.count == 78)
        let crc = DualSenseOutput.bluetoothCRC(r)
        let le: [UInt8] = [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24)]
        #expect(Array(r[74...77]) == le)
    }
}

@Suite struct SDLMappingTests {
    @Test func parsesALinuxLineAndRefusesOthers() throws {
        let m = try #require(SDLMapping(line: "030000005e0400008e02000010010000,X360 Pad,a:b0,b:b1,x:b3,y:b2,leftx:a0,lefty:a1,platform:Linux,"))
        #expect(m.name == "X360 Pad")
        #expect(m.buttons.count == 4 && m.axes.count == 2)
        #expect(SDLMapping(line: "030000005e0400008e02000010010000,X,a:b0,platform:Windows,") == nil)
        #expect(SDLMapping(line: "# comment") == nil)
        #expect(SDLMapping(line: "nothex,X,a:b0") == nil)
    }

    @Test func guidIsBuiltAsSDLBuildsIt() {
        // bus 3 (USB), vendor 045e, product 028e, version 0110; name CRC in bytes 2–3.
        let g = SDLMapping.guid(bustype: 3, vendor: 0x045E, product: 0x028E, version: 0x0110, name: "")
        #expect(g == "030000005e0400008e02000010010000")
        #expect(SDLMapping.crc16(Array("123456789".utf8)) == 0xBB3D)   // CRC-16/ARC check value
    }

    @Test func findFallsBackToTheCRCFreeGUID() throws {
        let m = try #require(SDLMapping(line: "030000005e0400008e02000010010000,X360,a:b1,platform:Linux,"))
        let withCRC = SDLMapping.guid(bustype: 3, vendor: 0x045E, product: 0x028E, version: 0x0110, name: "Xbox 360 Pad")
        #expect(withCRC != m.guid)
        #expect(SDLMapping.find(withCRC, in: [m]) == m)
    }

    @Test func applyResolvesIndicesAgainstTheDeviceLists() throws {
        let m = try #require(SDLMapping(line: "03000000aaaa0000bbbb000000000000,Odd,a:b1,b:b0,leftx:a1,lefty:a0,platform:Linux,"))
        let layout = m.apply(to: GamepadLayout(), buttons: [EV.btnSouth, EV.btnEast], axes: [EV.absX, EV.absY])
        #expect(layout.button(forKey: EV.btnEast) == .a)
        #expect(layout.button(forKey: EV.btnSouth) == .b)
        #expect(layout.axis(forAbs: EV.absY) == .leftStickX)
        #expect(layout.axis(forAbs: EV.absX) == .leftStickY)
    }
}
