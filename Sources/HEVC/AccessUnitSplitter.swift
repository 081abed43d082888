/// Splits an Annex-B HEVC byte stream into access units from NAL unit headers alone (no
/// parameter sets needed, so it works on corrupted streams too), H.265 7.4.2.4.4: a new access
/// unit starts at an AUD, VPS, SPS, PPS, prefix SEI or reserved prefix type (41…44, 48…55)
/// following a VCL unit, or at a VCL unit with first_slice_segment_in_pic_flag = 1 following one.
///
/// The one splitter of the package: the decoder's input, the test hosts' streams and the tools
/// all cut streams here, so they agree on every boundary and on which access units are keyframes.
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

    /// The access units of `stream` as the stream's own bytes, in decoding order: each runs from
    /// the start code of its first NAL unit (the leading zero of a 4-byte one included) to the
    /// start code of the next access unit (trailing zero bytes included), the last one to the end
    /// of `stream`; bytes before the first start code are dropped. What a host sends of a file,
    /// so the concatenated access units are the file from its first start code on. Never traps.
    public static func splitPreservingBytes(_ stream: [UInt8]) -> [[UInt8]] {
        let groups = nalUnitGroups(stream)
        let starts = groups.map { startCodeOffset(before: $0[0].lowerBound, in: stream) }
        return starts.indices.map { k in
            Array(stream[starts[k]..<(k + 1 < starts.count ? starts[k + 1] : stream.count)])
        }
    }

    /// The NAL unit ranges of `stream` grouped into access units (none empty).
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

    /// True when the access unit (Annex-B bytes) holds a NAL unit of an IRAP picture
    /// (nal_unit_type 16…23, H.265 Table 7-1): a keyframe a decoder can start at.
    public static func containsIRAP(_ accessUnit: [UInt8]) -> Bool {
        AnnexB.nalUnitRanges(in: accessUnit).contains { r in
            NALUnitHeader.isIRAP(nalUnitType: accessUnit[r.lowerBound] >> 1 & 0x3F)
        }
    }

    /// Indices of the access units that hold an IRAP picture (`containsIRAP`), ascending.
    public static func keyframeIndices(_ accessUnits: [[UInt8]]) -> [Int] {
        accessUnits.indices.filter { containsIRAP(accessUnits[$0]) }
    }

    /// Where the start code in front of the NAL unit at `nalStart` begins: 3 bytes before it, or
    /// 4 when the byte before `00 00 01` is a zero (the 4-byte form, B.2).
    /// - Precondition: `nalStart >= 3` (a NAL unit range of `AnnexB.nalUnitRanges`).
    private static func startCodeOffset(before nalStart: Int, in stream: [UInt8]) -> Int {
        nalStart >= 4 && stream[nalStart - 4] == 0 ? nalStart - 4 : nalStart - 3
    }
}
