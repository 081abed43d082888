import HEVC

/// Splits an Annex-B HEVC byte stream into access units from NAL unit headers alone (no
/// parameter sets needed, so it works on corrupted streams too), H.265 7.4.2.4.4: a new access
/// unit starts at an AUD, VPS, SPS, PPS, prefix SEI or reserved prefix type (41…44, 48…55)
/// following a VCL unit, or at a VCL unit with first_slice_segment_in_pic_flag = 1 following one.
public enum AccessUnitSplitter {
    /// The access units of `stream`, each as Annex-B bytes (4-byte start code before every NAL
    /// unit), in decoding order. Never traps.
    public static func split(_ stream: [UInt8]) -> [[UInt8]] {
        nalUnitGroups(stream).map { group in
            var au: [UInt8] = []
            au.reserveCapacity(group.reduce(0) { $0 + $1.count + 4 })
            for r in group { au += [0, 0, 0, 1]; au += stream[r] }
            return au
        }
    }

    /// The NAL unit ranges of `stream` grouped into access units.
    public static func nalUnitGroups(_ stream: [UInt8]) -> [[Range<Int>]] {
        var out: [[Range<Int>]] = []
        var current: [Range<Int>] = []
        var hasVCL = false
        for r in AnnexB.nalUnitRanges(in: stream) {
            let type = stream[r.lowerBound] >> 1 & 0x3F
            let isVCL = type < 32
            var startsNew = false
            if isVCL {
                let first = r.count > 2 && stream[r.lowerBound + 2] & 0x80 != 0
                startsNew = first && hasVCL
            } else if (32...35).contains(type) || type == 39 || (41...44).contains(type) || (48...55).contains(type) {
                startsNew = hasVCL
            }
            if startsNew {
                out.append(current)
                current = []
                hasVCL = false
            }
            current.append(r)
            if isVCL { hasVCL = true }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }
}
