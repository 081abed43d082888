import CDRM
import Testing
@testable import Display
import VideoFrames

@Suite struct HDROutputTests {
    /// HDR10 mastered on a BT.2020 / D65 display, 1000 cd/m² peak, 0.005 cd/m² black.
    static let hdr10 = HDRStaticMetadata(
        red: .init(x: 35_400, y: 14_600), green: .init(x: 8_500, y: 39_850), blue: .init(x: 6_550, y: 2_300),
        whitePoint: .init(x: 15_635, y: 16_450), maxMasteringLuminance: 1_000, minMasteringLuminance: 50,
        maxCLL: 1_000, maxFALL: 400)

    @Test func blobSizeIsTheKernelStruct() {
        #expect(MemoryLayout<hdr_output_metadata>.size == HDROutputMetadataBlob.size)
        #expect(MemoryLayout<hdr_metadata_infoframe>.size == 26)
        #expect(MemoryLayout<hdr_output_metadata>.alignment == 4)
    }

    /// Every field written through libdrm's own struct (drm_mode.h) lands where our encoder puts it.
    /// Swift does not import `display_primaries` (an array of an anonymous struct): its three
    /// (x, y) pairs are written at the offsets the imported neighbours bound — right after the
    /// u8 `metadata_type` (u16-aligned) and ending at `white_point`.
    @Test func encodingMatchesTheCStructFieldByField() throws {
        let m = HDRStaticMetadata(
            red: .init(x: 0x0102, y: 0x0304), green: .init(x: 0x0506, y: 0x0708), blue: .init(x: 0x090A, y: 0x0B0C),
            whitePoint: .init(x: 0x0D0E, y: 0x0F10), maxMasteringLuminance: 0x1112, minMasteringLuminance: 0x1314,
            maxCLL: 0x1516, maxFALL: 0x1718)
        var c = hdr_output_metadata()
        c.metadata_type = 0  // HDMI_STATIC_METADATA_TYPE1
        c.hdmi_metadata_type1.eotf = 2
        c.hdmi_metadata_type1.metadata_type = 0
        // the anonymous union has no key path: find the infoframe by a marker byte in its first field
        var probe = hdr_output_metadata()
        probe.hdmi_metadata_type1.eotf = 0xAB
        let infoframe = try #require(withUnsafeBytes(of: probe) { $0.firstIndex(of: 0xAB) })
        let afterType = try #require(MemoryLayout<hdr_metadata_infoframe>.offset(of: \.metadata_type)) + 1
        let primaries = (afterType + 1) & ~1
        let white = try #require(MemoryLayout<hdr_metadata_infoframe>.offset(of: \.white_point))
        #expect(infoframe == 4 && primaries == 2 && white == primaries + 12)
        withUnsafeMutableBytes(of: &c.hdmi_metadata_type1) { raw in
            for (i, v) in [UInt16(0x0102), 0x0304, 0x0506, 0x0708, 0x090A, 0x0B0C].enumerated() {
                raw.storeBytes(of: v, toByteOffset: primaries + 2 * i, as: UInt16.self)
            }
        }
        c.hdmi_metadata_type1.white_point.x = 0x0D0E; c.hdmi_metadata_type1.white_point.y = 0x0F10
        c.hdmi_metadata_type1.max_display_mastering_luminance = 0x1112
        c.hdmi_metadata_type1.min_display_mastering_luminance = 0x1314
        c.hdmi_metadata_type1.max_cll = 0x1516
        c.hdmi_metadata_type1.max_fall = 0x1718
        let cBytes = withUnsafeBytes(of: c) { Array($0) }
        #expect(HDROutputMetadataBlob.encode(m) == cBytes)
    }

    /// Golden bytes (Python `struct.pack('<IBB8HHHHH2x', 0, 2, 0, …)` of the same values).
    @Test func goldenHDR10Blob() {
        let golden: [UInt8] = [
            0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x48, 0x8A, 0x08, 0x39, 0x34, 0x21, 0xAA, 0x9B, 0x96, 0x19,
            0xFC, 0x08, 0x13, 0x3D, 0x42, 0x40, 0xE8, 0x03, 0x32, 0x00, 0xE8, 0x03, 0x90, 0x01, 0x00, 0x00]
        #expect(HDROutputMetadataBlob.encode(Self.hdr10) == golden)
        let decoded = HDROutputMetadataBlob.decode(golden)
        #expect(decoded?.eotf == HDROutputMetadataBlob.eotfST2084)
        #expect(decoded?.metadata == Self.hdr10)
    }

    @Test func decodeRefusesOtherBlobs() {
        var bytes = HDROutputMetadataBlob.encode(Self.hdr10)
        #expect(HDROutputMetadataBlob.decode(Array(bytes.dropLast())) == nil)
        #expect(HDROutputMetadataBlob.decode(bytes + [0]) == nil)
        bytes[0] = 1  // metadata_type other than static type 1
        #expect(HDROutputMetadataBlob.decode(bytes) == nil)
    }

    @Test func descriptorLuminanceRoundsThePeakAndClamps() {
        #expect(HDRStaticMetadata.descriptorLuminance(max: 10_000_000, min: 50) == (1_000, 50))
        #expect(HDRStaticMetadata.descriptorLuminance(max: 4_999, min: 0) == (0, 0))
        #expect(HDRStaticMetadata.descriptorLuminance(max: 5_000, min: 0).max == 1)
        #expect(HDRStaticMetadata.descriptorLuminance(max: .max, min: .max) == (65_535, 65_535))
    }

    // MARK: the HDR10-or-SDR decision

    static let metadataProperty = PropertyInfo(id: 40, name: "HDR_OUTPUT_METADATA", value: 0, isBlob: true)
    static let colorspaceProperty = PropertyInfo(
        id: 41, name: "Colorspace", value: 0,
        enums: ["Default": 0, "BT709_YCC": 2, "BT2020_CYCC": 8, "BT2020_RGB": 9, "BT2020_YCC": 10])
    static let pq = FrameColour(primaries: 9, transfer: 16, matrix: 9, fullRange: false)

    @Test func bt2020PQOnACapableConnectorIsHDR10InRGB() {
        let s = HDROutput.decide(colour: Self.pq, metadataProperty: Self.metadataProperty, colorspaceProperty: Self.colorspaceProperty)
        #expect(s == .hdr10(colorspace: "BT2020_RGB"))
        #expect(s.isHDR)
    }

    @Test func otherColourIsSDR() {
        for colour in [FrameColour(primaries: 1, transfer: 1, matrix: 1),     // BT.709
                       FrameColour(primaries: 9, transfer: 18, matrix: 9),    // HLG: no static metadata
                       FrameColour(primaries: 9, transfer: 14, matrix: 9),    // BT.2020 SDR
                       FrameColour(primaries: 1, transfer: 16, matrix: 1),    // PQ without BT.2020
                       FrameColour()] {                                       // unspecified
            let s = HDROutput.decide(colour: colour, metadataProperty: Self.metadataProperty, colorspaceProperty: Self.colorspaceProperty)
            #expect(!s.isHDR, "\(colour)")
        }
    }

    @Test func aConnectorWithoutBothPropertiesIsSDR() {
        #expect(!HDROutput.decide(colour: Self.pq, metadataProperty: nil, colorspaceProperty: Self.colorspaceProperty).isHDR)
        #expect(!HDROutput.decide(colour: Self.pq, metadataProperty: Self.metadataProperty, colorspaceProperty: nil).isHDR)
        var immutable = Self.metadataProperty
        immutable.immutable = true
        #expect(!HDROutput.decide(colour: Self.pq, metadataProperty: immutable, colorspaceProperty: Self.colorspaceProperty).isHDR)
        let noBT2020 = PropertyInfo(id: 41, name: "Colorspace", value: 0, enums: ["Default": 0, "BT709_YCC": 2])
        #expect(!HDROutput.decide(colour: Self.pq, metadataProperty: Self.metadataProperty, colorspaceProperty: noBT2020).isHDR)
    }

    @Test func yccColorspaceIsTheFallbackOnly() {
        let yccOnly = PropertyInfo(id: 41, name: "Colorspace", value: 0, enums: ["Default": 0, "BT2020_YCC": 10])
        #expect(HDROutput.decide(colour: Self.pq, metadataProperty: Self.metadataProperty, colorspaceProperty: yccOnly)
                == .hdr10(colorspace: "BT2020_YCC"))
    }

    /// New metadata asks for a re-modeset only while HDR10 is on glass with other metadata.
    @Test func metadataUpdatesBeforeTheFirstModesetNeedNoExtraModeset() {
        var out = HDROutput(connector: 7, properties: ObjectProperties(
            object: 7, byName: ["HDR_OUTPUT_METADATA": Self.metadataProperty, "Colorspace": Self.colorspaceProperty]))
        let bt709 = FrameColour(primaries: 1, transfer: 1, matrix: 1)
        let changedToHDR = out.select(for: Self.pq)
        #expect(changedToHDR)
        #expect(out.signal == .hdr10(colorspace: "BT2020_RGB"))
        let remodeset = out.update(metadata: Self.hdr10)
        #expect(!remodeset)  // no blob committed yet: the first modeset carries it
        #expect(out.metadata == Self.hdr10)
        let changedToSDR = out.select(for: bt709)
        #expect(changedToSDR)
        #expect(!out.signal.isHDR)
        let unchanged = out.select(for: bt709)
        #expect(!unchanged)
    }
}
