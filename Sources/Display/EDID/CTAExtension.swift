#if canImport(Glibc)
import Glibc
#endif

/// The HDR Static Metadata Data Block of a CTA-861 extension (CTA-861.3 §4.2, extended tag 6):
/// payload byte 1 the supported EOTFs, byte 2 the static metadata descriptor types, then the
/// optional desired content max luminance, max frame-average luminance and min luminance code
/// values (present as the block's length allows, each in that order).
public struct CTAHDRStaticMetadataBlock: Sendable, Equatable {
    /// EOTF bits (CTA-861.3 table 1 / CTA-861-G table 84): bit 0 traditional gamma, SDR range;
    /// bit 1 traditional gamma, HDR range; bit 2 SMPTE ST 2084 (PQ); bit 3 HLG (ITU-R BT.2100).
    public struct EOTFs: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let traditionalSDR = EOTFs(rawValue: 0x01)
        public static let traditionalHDR = EOTFs(rawValue: 0x02)
        public static let pq = EOTFs(rawValue: 0x04)
        public static let hlg = EOTFs(rawValue: 0x08)

        /// Names of the set bits, lowest first (`SDR`, `HDR`, `PQ`, `HLG`, `bit4`, …).
        public var names: [String] {
            let known = ["SDR", "HDR", "PQ", "HLG"]
            return (0..<8).filter { rawValue & (1 << $0) != 0 }.map { $0 < known.count ? known[$0] : "bit\($0)" }
        }
    }

    public var eotfs: EOTFs
    /// Static metadata descriptor types, bit n = type n+1 (bit 0: Static Metadata Type 1).
    public var descriptorTypes: UInt8
    /// The optional code values as the block carries them (nil: past the block's length). A code
    /// of 0 means "not stated" (libdisplay-info reads it so; the formula would give 50 cd/m²).
    public var maxLuminanceCode: UInt8?
    public var maxFrameAverageLuminanceCode: UInt8?
    public var minLuminanceCode: UInt8?

    /// Reads a block's payload after the extended tag byte (`payload[0]` = EOTFs). nil when it is
    /// shorter than the two mandatory bytes.
    public init?<C: Collection>(payload: C) where C.Element == UInt8 {
        let p = Array(payload)
        guard p.count >= 2 else { return nil }
        eotfs = EOTFs(rawValue: p[0])
        descriptorTypes = p[1]
        maxLuminanceCode = p.count > 2 ? p[2] : nil
        maxFrameAverageLuminanceCode = p.count > 3 ? p[3] : nil
        minLuminanceCode = p.count > 4 ? p[4] : nil
    }

    /// CTA-861.3: desired content max luminance = 50 × 2^(CV/32) cd/m² (nil when not stated).
    public var maxLuminance: Double? { maxLuminanceCode.flatMap(Self.luminance) }
    /// CTA-861.3: desired content max frame-average luminance = 50 × 2^(CV/32) cd/m².
    public var maxFrameAverageLuminance: Double? { maxFrameAverageLuminanceCode.flatMap(Self.luminance) }
    /// CTA-861.3: desired content min luminance = max luminance × (CV/255)² / 100 cd/m² — it is
    /// relative to the peak, so nil without one.
    public var minLuminance: Double? {
        guard let cv = minLuminanceCode, let peak = maxLuminance else { return nil }
        let f = Double(cv) / 255
        return peak * f * f / 100
    }

    static func luminance(_ code: UInt8) -> Double? { code == 0 ? nil : 50 * pow(2, Double(code) / 32) }
}

/// The Colorimetry Data Block of a CTA-861 extension (CTA-861-G §7.5.5, extended tag 5): payload
/// byte 1 = xvYCC601, xvYCC709, sYCC601, opYCC601, opRGB, BT2020cYCC, BT2020YCC, BT2020RGB (bits
/// 0…7); byte 2 bits 0–3 = gamut metadata profiles MD0–MD3, bit 7 = DCI-P3 (CTA-861-H).
public struct CTAColorimetryBlock: Sendable, Equatable {
    /// Both payload bytes as one value: byte 1 in bits 0–7, byte 2 in bits 8–15 (the kernel's
    /// `DRM_EDID_CLRMETRY_*` layout).
    public var bits: UInt16

    public init?<C: Collection>(payload: C) where C.Element == UInt8 {
        let p = Array(payload)
        guard !p.isEmpty else { return nil }
        bits = UInt16(p[0]) | (p.count > 1 ? UInt16(p[1]) << 8 : 0)
    }

    public var bt2020cYCC: Bool { bits & 0x20 != 0 }
    public var bt2020YCC: Bool { bits & 0x40 != 0 }
    public var bt2020RGB: Bool { bits & 0x80 != 0 }
    public var dciP3: Bool { bits & 0x8000 != 0 }

    /// Names of the set colorimetry bits in edid-decode's spelling (gamut metadata bits omitted).
    public var names: [String] {
        let table: [(UInt16, String)] = [(0x01, "xvYCC601"), (0x02, "xvYCC709"), (0x04, "sYCC601"), (0x08, "opYCC601"),
                                         (0x10, "opRGB"), (0x20, "BT2020cYCC"), (0x40, "BT2020YCC"), (0x80, "BT2020RGB"),
                                         (0x8000, "DCI-P3")]
        return table.filter { bits & $0.0 != 0 }.map(\.1)
    }
}

/// The data block collection of one CTA-861 extension block (tag 0x02): byte 2 = d, the offset of
/// the first detailed timing descriptor; data blocks fill bytes 4…d−1, each a header byte (tag
/// code in bits 7–5, payload length in bits 4–0) and its payload. Tag 7 blocks carry an extended
/// tag code as their first payload byte.
public enum CTAExtension {
    public static let tag: UInt8 = 0x02
    static let extendedTagCode: UInt8 = 7
    public static let colorimetryExtendedTag: UInt8 = 5
    public static let hdrStaticMetadataExtendedTag: UInt8 = 6

    /// Each extended-tag block's (extended tag, payload after it), in order. A block that would
    /// run past d (or past the block) ends the walk: what came before it is kept.
    public static func extendedBlocks<C: RandomAccessCollection>(_ block: C) -> [(tag: UInt8, payload: ArraySlice<UInt8>)]
    where C.Element == UInt8, C.Index == Int {
        let b = Array(block)
        guard b.count >= 4, b[0] == tag else { return [] }
        let d = Int(b[2])
        // d = 0: no DTDs and no data blocks; d < 4 is malformed. The collection never reaches
        // the checksum byte (127).
        guard d >= 4 else { return [] }
        let end = min(d, b.count, 127)
        var out: [(tag: UInt8, payload: ArraySlice<UInt8>)] = []
        var at = 4
        while at < end {
            let code = b[at] >> 5, length = Int(b[at] & 0x1F)
            guard at + 1 + length <= end else { break }
            if code == extendedTagCode, length >= 1 {
                out.append((b[at + 1], b[(at + 2)..<(at + 1 + length)]))
            }
            at += 1 + length
        }
        return out
    }
}
