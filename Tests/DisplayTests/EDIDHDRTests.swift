import Foundation
import Screen
import Testing
@testable import Display
import VideoFrames

/// EDID HDR facts (Sources/Display/EDID). The EDIDs are built by hand from VESA E-EDID 1.3 and
/// CTA-861 (valid checksums); every expected value is what `edid-decode` (Debian 0.1~git20220315)
/// prints for the same bytes, quoted in the comments, or CTA-861.3's formula worked by hand.
@Suite struct EDIDHDRTests {
    /// Base block (digital, 80×45 cm, 1024x768 DTD, "punktfunk HDR") + one CTA-861 rev 3 block
    /// with `e6 06 0d 01 78 5a 28` (HDR static metadata) and `e3 05 e0 00` (colorimetry). The same
    /// bytes are the EDID the VM's patched vkms reports (Tests/vm/vkms-hdr-edid.patch).
    static let hdrTV = hex("""
        00ffffffffffff00410c3412010000000121010380502d780aee91a3544c99260f50542008000101010101010101010101010101010164190040410026301888
        360020c231000018000000fc0070756e6b7466756e6b20484452000000fd00324b1e5011000a2020202020200000001000000000000000000000000000000158
        02030f00e6060d01785a28e305e00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
        00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030
        """)

    static func hex(_ s: String) -> [UInt8] {
        let digits = Array(s.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// The same base block with its extension replaced by `blocks` (a CTA-861 rev 3 block, d = 4 +
    /// their length, checksum fixed) — or no extension at all.
    static func tv(cta blocks: [UInt8]?) -> [UInt8] {
        var base = Array(hdrTV[0..<128])
        base[126] = blocks == nil ? 0 : 1
        base[127] = UInt8((256 - base[0..<127].reduce(0) { ($0 + Int($1)) % 256 }) % 256)
        guard let blocks else { return base }
        var ext = [UInt8](repeating: 0, count: 128)
        ext[0] = 2; ext[1] = 3; ext[2] = UInt8(4 + blocks.count)
        ext.replaceSubrange(4..<(4 + blocks.count), with: blocks)
        ext[127] = UInt8((256 - ext[0..<127].reduce(0) { ($0 + Int($1)) % 256 }) % 256)
        return base + ext
    }

    @Test func fixtureIsWellFormed() {
        #expect(Self.hdrTV.count == 256)
        #expect(Self.hdrTV[0..<128].reduce(0) { ($0 + Int($1)) % 256 } == 0)
        #expect(Self.hdrTV[128..<256].reduce(0) { ($0 + Int($1)) % 256 } == 0)
    }

    /// edid-decode: "Red  : 0.6396, 0.3300 / Green: 0.2998, 0.5996 / Blue : 0.1503, 0.0595 /
    /// White: 0.3125, 0.3291" — it prints ⌊code × 10000 / 1024⌋ as four decimals.
    @Test func chromaticityMatchesEdidDecode() throws {
        let c = try #require(EDIDChromaticity(baseBlock: Self.hdrTV))
        func printed(_ code: UInt16) -> Int { Int(code) * 10_000 / 1024 }
        #expect([c.red, c.green, c.blue, c.white].flatMap { [printed($0.x), printed($0.y)] }
                == [6396, 3300, 2998, 5996, 1503, 595, 3125, 3291])
        #expect(c.isStated)
    }

    /// 10-bit fractions in 1/50000: code × 50000 / 1024, rounded (ST 2086's unit, as tag 13 carries it).
    @Test func chromaticityInFiftyThousandths() {
        #expect(EDIDChromaticity.Point.toFiftyThousandths(0) == 0)
        #expect(EDIDChromaticity.Point.toFiftyThousandths(512) == 25_000)       // 0.5
        #expect(EDIDChromaticity.Point.toFiftyThousandths(655) == 31_982)       // 0.639648… × 50000 = 31982.4
        #expect(EDIDChromaticity.Point.toFiftyThousandths(1023) == 49_951)      // 0.999023… × 50000 = 49951.2
    }

    /// edid-decode: "Electro optical transfer functions: Traditional gamma - SDR luminance range,
    /// SMPTE ST2084, Hybrid Log-Gamma; Static metadata type 1; Desired content max luminance: 120
    /// (672.717 cd/m^2); max frame-average luminance: 90 (351.250 cd/m^2); min luminance: 40
    /// (0.166 cd/m^2)"; "Colorimetry Data Block: BT2020cYCC BT2020YCC BT2020RGB".
    @Test func hdrStaticMetadataMatchesEdidDecode() throws {
        let facts = try #require(EDIDHDRFacts(edid: Self.hdrTV))
        let h = try #require(facts.hdrStaticMetadata)
        #expect(h.eotfs == [.traditionalSDR, .pq, .hlg])
        #expect(h.eotfs.names == ["SDR", "PQ", "HLG"])
        #expect(h.descriptorTypes == 1)
        #expect(h.maxLuminanceCode == 120 && h.maxFrameAverageLuminanceCode == 90 && h.minLuminanceCode == 40)
        #expect(abs(try #require(h.maxLuminance) - 672.717) < 0.0005)
        #expect(abs(try #require(h.maxFrameAverageLuminance) - 351.250) < 0.0005)
        #expect(abs(try #require(h.minLuminance) - 0.166) < 0.0005)
        let col = try #require(facts.colorimetry)
        #expect(col.names == ["BT2020cYCC", "BT2020YCC", "BT2020RGB"])
        #expect(col.bt2020RGB && col.bt2020YCC && col.bt2020cYCC && !col.dciP3)
        #expect(facts.ctaExtensions == 1 && facts.supportsPQ)
    }

    /// CTA-861.3 §4.2 by hand: 50·2^(CV/32) — CV 0 is "not stated", CV 32 is 100 cd/m², CV 64
    /// 200, CV 255 50·2^7.96875 = 12525.7; min = max·(CV/255)²/100 — CV 255 is 1 % of the peak.
    @Test func luminanceFormulas() throws {
        func block(_ codes: [UInt8]) throws -> CTAHDRStaticMetadataBlock {
            try #require(CTAHDRStaticMetadataBlock(payload: [0x05, 0x01] + codes))
        }
        #expect(try block([0]).maxLuminance == nil)
        #expect(try block([32]).maxLuminance == 100)
        #expect(try block([64, 32]).maxLuminance == 200 && block([64, 32]).maxFrameAverageLuminance == 100)
        #expect(abs(try #require(try block([255]).maxLuminance) - 12525.7) < 0.05)
        #expect(try block([64, 0, 255]).minLuminance == 2)
        #expect(try block([0, 0, 255]).minLuminance == nil)   // relative to a peak it does not have
        #expect(try block([]).maxLuminance == nil && block([]).minLuminance == nil)
        #expect(CTAHDRStaticMetadataBlock(payload: [0x05]) == nil)
    }

    /// What tag 13 carries for the HDR TV: primaries/white from the base block in 1/50000, peak
    /// 672.717 → 673 cd/m² (also MaxCLL), frame average 351.25 → 351, black 0.16553… cd/m² →
    /// 1655 × 0.0001 cd/m² (672.717 × (40/255)² / 100 = 0.165528).
    @Test func panelMetadataForTag13() throws {
        let m = try #require(EDIDHDRFacts(edid: Self.hdrTV)).panelMetadata
        #expect(m.red == .init(x: 31_982, y: 16_504) && m.green == .init(x: 14_990, y: 29_980))
        #expect(m.blue == .init(x: 7_520, y: 2_979) && m.whitePoint == .init(x: 15_625, y: 16_455))
        #expect(m.maxMasteringLuminance == 673 && m.maxCLL == 673 && m.maxFALL == 351)
        #expect(m.minMasteringLuminance == 1_655)
    }

    /// Optional luminance bytes absent (edid-decode prints none for `e3 06 05 01`): every
    /// luminance is 0, "unknown", primaries still from the base block.
    @Test func panelMetadataFallbacksWithoutLuminance() throws {
        let facts = try #require(EDIDHDRFacts(edid: Self.tv(cta: [0xE3, 0x06, 0x05, 0x01])))
        let m = facts.panelMetadata
        #expect(facts.supportsPQ)
        #expect(m.maxMasteringLuminance == 0 && m.minMasteringLuminance == 0 && m.maxCLL == 0 && m.maxFALL == 0)
        #expect(m.red == .init(x: 31_982, y: 16_504))
    }

    static let metadataProperty = PropertyInfo(id: 1, name: "HDR_OUTPUT_METADATA", value: 0, isBlob: true)
    static let colorspaceProperty = PropertyInfo(id: 2, name: "Colorspace", value: 0,
                                                 enums: ["Default": 0, "BT2020_RGB": 9, "BT2020_YCC": 10])

    @Test func sinkCapabilityHDR10() throws {
        let cap = SinkHDRCapability.decide(metadataProperty: Self.metadataProperty, colorspaceProperty: Self.colorspaceProperty,
                                           edid: Self.hdrTV)
        #expect(cap == .hdr10(try #require(EDIDHDRFacts(edid: Self.hdrTV)).panelMetadata))
        #expect(cap.isHDR10)
    }

    @Test func sinkCapabilityReasons() {
        func reason(_ m: PropertyInfo?, _ c: PropertyInfo?, _ edid: [UInt8]?) -> String? {
            if case .none(let r) = SinkHDRCapability.decide(metadataProperty: m, colorspaceProperty: c, edid: edid) { return r }
            return nil
        }
        let m = Self.metadataProperty, c = Self.colorspaceProperty
        #expect(reason(nil, c, Self.hdrTV) == "the connector has no HDR_OUTPUT_METADATA")
        #expect(reason(PropertyInfo(id: 1, name: "HDR_OUTPUT_METADATA", value: 0, immutable: true, isBlob: true), c, Self.hdrTV)
                == "the connector has no HDR_OUTPUT_METADATA")
        #expect(reason(m, nil, Self.hdrTV) == "the connector has no Colorspace with BT2020")
        #expect(reason(m, PropertyInfo(id: 2, name: "Colorspace", value: 0, enums: ["Default": 0, "SMPTE_170M_YCC": 1]), Self.hdrTV)
                == "the connector has no Colorspace with BT2020")
        #expect(reason(m, c, nil) == "the connector has no EDID")
        #expect(reason(m, c, [1, 2, 3]) == "the TV's EDID is not readable")
        #expect(reason(m, c, Self.tv(cta: nil)) == "the TV's EDID has no HDR static metadata block")
        // edid-decode for `e3 06 01 01`: "Traditional gamma - SDR luminance range" only
        #expect(reason(m, c, Self.tv(cta: [0xE3, 0x06, 0x01, 0x01])) == "the TV's EDID lists no PQ (EOTFs: SDR)")
    }

    /// Every prefix of the EDID parses without trapping; the facts grow with it: no chromaticity
    /// before byte 35, the HDR block once its 7 bytes (ext bytes 4…10) are in, colorimetry after 15.
    @Test func truncatedEDIDsGivePartialFacts() {
        for n in 0...Self.hdrTV.count {
            let facts = EDIDHDRFacts(edid: Array(Self.hdrTV.prefix(n)))
            if n < 8 { #expect(facts == nil); continue }
            #expect((facts?.chromaticity != nil) == (n >= 35))
            #expect((facts?.hdrStaticMetadata != nil) == (n >= 128 + 11))
            #expect((facts?.colorimetry != nil) == (n >= 128 + 15))
        }
    }

    @Test func malformedBlocksStopTheWalk() {
        // a block whose length runs past d: nothing after (or of) it
        var bad = Self.tv(cta: [0xE3, 0x05, 0xE0, 0x00, 0xE6, 0x06, 0x0D, 0x01, 0x78, 0x5A, 0x28])
        bad[128 + 4] = 0xFF                                         // colorimetry header claims 31 bytes
        #expect(EDIDHDRFacts(edid: bad)?.colorimetry == nil && EDIDHDRFacts(edid: bad)?.hdrStaticMetadata == nil)
        // d < 4: no data blocks
        var noBlocks = Self.hdrTV
        noBlocks[128 + 2] = 3
        #expect(EDIDHDRFacts(edid: noBlocks)?.hdrStaticMetadata == nil)
        // d past the checksum byte: the walk stops at 127
        var far = Self.hdrTV
        far[128 + 2] = 0xFF
        #expect(EDIDHDRFacts(edid: far)?.hdrStaticMetadata != nil)
        // an extension that is not CTA-861 (a block map, tag 0xF0) is skipped
        var map = Self.hdrTV
        map[128] = 0xF0
        #expect(EDIDHDRFacts(edid: map)?.ctaExtensions == 0)
        // a zero-length extended block (tag 7, length 0) is no block
        #expect(EDIDHDRFacts(edid: Self.tv(cta: [0xE0, 0xE3, 0x06, 0x05, 0x01]))?.supportsPQ == true)
    }

    /// Random bytes behind a valid header never trap.
    @Test func randomEDIDsNeverTrap() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let n = Int.random(in: 8...512, using: &rng)
            var b = EDIDHDRFacts.header + (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng), b.count > 130 { b[128] = 2 }
            _ = EDIDHDRFacts(edid: b)?.json
        }
    }

    @Test func probeJSONParses() throws {
        let cap = SinkHDRCapability.decide(metadataProperty: Self.metadataProperty, colorspaceProperty: Self.colorspaceProperty,
                                           edid: Self.hdrTV)
        let text = SinkHDRCapability.json(cap, edid: Self.hdrTV)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(obj["capability"] as? String == "hdr10")
        let edid = try #require(obj["edid"] as? [String: Any])
        let hdr = try #require(edid["hdr_static_metadata"] as? [String: Any])
        #expect(hdr["eotfs"] as? [String] == ["SDR", "PQ", "HLG"])
        let none = SinkHDRCapability.json(.none(reason: "the connector has no EDID"), edid: nil)
        #expect((try JSONSerialization.jsonObject(with: Data(none.utf8)) as? [String: Any])?["reason"] as? String
                == "the connector has no EDID")
    }
}
