/// The newest VPS/SPS/PPS NAL units the ladder has seen, so that a rung started mid-stream can
/// be given them with its first IRAP access unit when the host sent them only once.
///
/// Parameter sets precede the slices of their access unit (H.265 7.4.2.4.4), so `observe` reads
/// only up to the first VCL NAL unit: cheap for the usual access unit that carries none.
struct ParameterSetCache {
    /// Per type (VPS 32, SPS 33, PPS 34): the Annex-B bytes (4-byte start codes) of the units
    /// of that type in the newest access unit that had any.
    private var byType: [UInt8: [UInt8]] = [:]

    /// VPS, SPS, PPS in that order, as Annex-B bytes.
    var bytes: [UInt8] { (byType[32] ?? []) + (byType[33] ?? []) + (byType[34] ?? []) }

    /// Notes the parameter sets at the start of `au` (replacing the older ones when it has any).
    /// - Returns: true when `au` carries at least one SPS and one PPS.
    @discardableResult
    mutating func observe(_ au: [UInt8]) -> Bool {
        var found: [UInt8: [UInt8]] = [:]
        var hasSPS = false, hasPPS = false
        var i = Self.nextStart(au, from: 0)
        while let start = i, start < au.count {
            let type = au[start] >> 1 & 0x3F
            if type < 32 { break }  // first VCL unit: the parameter sets are behind us
            let next = Self.nextStart(au, from: start)
            var end = next.map { $0 - 3 } ?? au.count
            while end > start, au[end - 1] == 0 { end -= 1 }  // the zero of a 4-byte start code, trailing zeros
            if (32...34).contains(type) {
                found[type, default: []] += [0, 0, 0, 1] + au[start..<end]
                if type == 33 { hasSPS = true }
                if type == 34 { hasPPS = true }
            }
            i = next
        }
        byType.merge(found) { _, new in new }
        return hasSPS && hasPPS
    }

    /// `au` with the cached parameter sets in front when it carries none of its own.
    func completed(_ au: [UInt8]) -> [UInt8] {
        var probe = ParameterSetCache()
        if probe.observe(au) || bytes.isEmpty { return au }
        return bytes + au
    }

    /// Index of the first byte after the next `00 00 01` at or after `from`.
    private static func nextStart(_ b: [UInt8], from: Int) -> Int? {
        var k = from
        while k + 2 < b.count {
            if b[k + 2] > 1 { k += 3; continue }
            if b[k] == 0 && b[k + 1] == 0 && b[k + 2] == 1 { return k + 3 }
            k += 1
        }
        return nil
    }
}
