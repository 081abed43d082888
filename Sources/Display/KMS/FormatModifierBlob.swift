/// Parser for a plane's `IN_FORMATS` property blob (`struct drm_format_modifier_blob`,
/// drm_mode.h): which (format, modifier) pairs the plane scans out.
///
/// Layout (little-endian, all offsets from the blob start):
/// header `version u32, flags u32, count_formats u32, formats_offset u32, count_modifiers u32,
/// modifiers_offset u32` (24 bytes); `count_formats` × u32 fourcc at `formats_offset`;
/// `count_modifiers` × `{formats u64 (bit i = formats[offset + i]), offset u32, pad u32,
/// modifier u64}` (24 bytes each) at `modifiers_offset`.
public enum FormatModifierBlob {
    /// - Returns: modifiers per format, in blob order; nil when a count or offset points outside
    ///   the blob (never traps on bad input).
    public static func parse(_ bytes: [UInt8]) -> [FourCC: [UInt64]]? {
        func u32(_ at: Int) -> UInt32? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func u64(_ at: Int) -> UInt64? {
            guard let lo = u32(at), let hi = u32(at + 4) else { return nil }
            return UInt64(lo) | UInt64(hi) << 32
        }
        guard let countFormats = u32(8), let formatsOffset = u32(12),
              let countModifiers = u32(16), let modifiersOffset = u32(20) else { return nil }
        let nf = Int(countFormats), fo = Int(formatsOffset), nm = Int(countModifiers), mo = Int(modifiersOffset)
        guard nf <= bytes.count / 4, nm <= bytes.count / 24,
              fo + nf * 4 <= bytes.count, mo + nm * 24 <= bytes.count else { return nil }
        var formats: [FourCC] = []
        for i in 0..<nf { formats.append(FourCC(rawValue: u32(fo + 4 * i)!)) }
        var result: [FourCC: [UInt64]] = [:]
        for f in formats where result[f] == nil { result[f] = [] }
        for j in 0..<nm {
            let base = mo + 24 * j
            let mask = u64(base)!, offset = Int(u32(base + 8)!), modifier = u64(base + 16)!
            for bit in 0..<64 where mask & (1 << UInt64(bit)) != 0 {
                let index = offset + bit
                guard index < nf else { continue }
                if !result[formats[index], default: []].contains(modifier) {
                    result[formats[index], default: []].append(modifier)
                }
            }
        }
        return result
    }
}
