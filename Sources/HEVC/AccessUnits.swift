/// Groups parsed NAL units into access units (H.265 7.4.2.4.4): a new access unit starts at the
/// first slice segment of a picture, or at an AUD, VPS, SPS, PPS, prefix SEI or reserved
/// prefix type (41…44, 48…55) following a VCL unit of the current one.
public enum AccessUnits {
    public static func group(_ units: [HEVCParser.ParsedNALUnit]) -> [[HEVCParser.ParsedNALUnit]] {
        boundaries(units).map { Array(units[$0]) }
    }

    /// The index ranges of `units` that form access units, in order.
    public static func boundaries(_ units: [HEVCParser.ParsedNALUnit]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start = 0
        var hasVCL = false
        for (index, unit) in units.enumerated() {
            let type = unit.header.nalUnitType
            var startsNew = false
            if case .slice(let s) = unit.payload, s.firstSliceSegmentInPicFlag { startsNew = hasVCL }
            else if (32...35).contains(type) || type == 39 || (41...44).contains(type) || (48...55).contains(type) {
                startsNew = hasVCL
            }
            if startsNew {
                out.append(start..<index)
                start = index
                hasVCL = false
            }
            if unit.header.isVCL { hasVCL = true }
        }
        if start < units.count { out.append(start..<units.count) }
        return out
    }
}
