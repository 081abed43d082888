/// Who a display says it is: the three EDID fields an HDMI/DP sink's ELD repeats (the kernel's
/// `drm_edid_to_eld` copies them byte for byte), so an ALSA HDMI PCM can be matched to the DRM
/// connector the kiosk drives. Pure parsing.
public struct DisplayIdentity: Equatable, Sendable, CustomStringConvertible {
    /// EDID bytes 8–9: the PNP manufacturer id, three 5-bit letters, big-endian.
    public var manufacturer: UInt16
    /// EDID bytes 10–11: the product code, little-endian.
    public var productCode: UInt16
    /// The monitor name descriptor (EDID 0xFC, up to 13 characters); "" when absent.
    public var monitorName: String

    public init(manufacturer: UInt16, productCode: UInt16, monitorName: String) {
        self.manufacturer = manufacturer; self.productCode = productCode; self.monitorName = monitorName
    }

    /// The three PNP letters ("SAM", "GSM").
    public var manufacturerLetters: String {
        let letters = [(manufacturer >> 10) & 31, (manufacturer >> 5) & 31, manufacturer & 31]
        return String(letters.map { Character(Unicode.Scalar(UInt8(64 + $0))) })
    }

    public var description: String {
        "\(manufacturerLetters) \(String(productCode, radix: 16, uppercase: true))\(monitorName.isEmpty ? "" : " \"\(monitorName)\"")"
    }

    /// From an EDID base block (128 bytes or more, as `/sys/class/drm/card*-*/edid` gives it).
    /// nil when the header or length is wrong.
    public init?(edid: [UInt8]) {
        guard edid.count >= 128, edid[0..<8].elementsEqual([0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0]) else { return nil }
        manufacturer = UInt16(edid[8]) << 8 | UInt16(edid[9])
        productCode = UInt16(edid[10]) | UInt16(edid[11]) << 8
        monitorName = ""
        // Four 18-byte descriptors at 54; a display descriptor has a zero pixel clock; tag 0xFC = name.
        for d in stride(from: 54, to: 126, by: 18) where edid[d] == 0 && edid[d + 1] == 0 && edid[d + 3] == 0xFC {
            monitorName = Self.text(edid[(d + 5)..<(d + 18)], terminator: 0x0A)
        }
    }

    /// From an ELD (the `ELD` control of an HDMI PCM, CEA-861 ELD version 2): nil when it is
    /// empty (no sink) or not version 2.
    ///
    /// Layout: byte 0 bits 7..3 version (2); byte 2 the baseline length in 4-byte words; baseline
    /// from byte 4: bits 4..0 the monitor-name length, bytes 16–17 manufacturer, 18–19 product
    /// code (both as in the EDID), 20… the monitor name.
    public init?(eld: [UInt8]) {
        guard eld.count >= 20, eld[0] >> 3 == 2 else { return nil }
        let nameLength = Int(eld[4] & 0x1F)
        manufacturer = UInt16(eld[16]) << 8 | UInt16(eld[17])
        productCode = UInt16(eld[18]) | UInt16(eld[19]) << 8
        let end = min(eld.count, 20 + nameLength)
        monitorName = Self.text(eld[20..<end], terminator: 0)
    }

    /// Same sink: manufacturer and product code equal, and the names too when both have one.
    public func matches(_ other: DisplayIdentity) -> Bool {
        manufacturer == other.manufacturer && productCode == other.productCode
            && (monitorName.isEmpty || other.monitorName.isEmpty || monitorName == other.monitorName)
    }

    private static func text(_ bytes: ArraySlice<UInt8>, terminator: UInt8) -> String {
        let body = bytes.prefix { $0 != terminator && $0 != 0 }
        return String(decoding: body, as: UTF8.self).trimmingSpaces()
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        while s.first == " " { s = s.dropFirst() }
        return String(s)
    }
}
