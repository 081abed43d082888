#if canImport(Glibc)
import Glibc
#endif

/// Annex-B byte stream splitting (H.265 Annex B.2).
public enum AnnexB {
    /// The NAL units of an Annex-B byte stream, without start codes and without trailing zero
    /// bytes (trailing_zero_8bits, and the leading zero of a 4-byte start code).
    ///
    /// Accepts 3-byte (`00 00 01`) and 4-byte (`00 00 00 01`) start codes; bytes before the first
    /// start code are ignored; empty NAL units are dropped. Never traps on any input.
    /// - Returns: ranges into `stream`, in order.
    public static func nalUnitRanges(in stream: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        let n = stream.count
        var start: Int? = nil
        stream.withUnsafeBufferPointer { p in
            guard n >= 3, let base = p.baseAddress else { return }
            var i = 0
            while i + 2 < n {
                // A start code prefix or the 00 00 00 that may only precede one (B.2, 7.4.2) begins
                // with a zero byte; libc's vectorised memchr finds the next one (in coded slice
                // data about one byte in 256), then the two bytes after it decide.
                guard let hit = memchr(base + i, 0, n - 2 - i) else { break }
                i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                let c = p[i + 2]
                guard p[i + 1] == 0, c <= 1 else { i += 1; continue }
                if let s = start {
                    append(s..<i, of: stream, to: &ranges)
                    start = nil
                }
                if c == 1 {
                    start = i + 3
                    i += 3
                } else {
                    i += 1
                }
            }
        }
        if let s = start { append(s..<n, of: stream, to: &ranges) }
        return ranges
    }

    /// The NAL units of an Annex-B byte stream as byte arrays (see `nalUnitRanges(in:)`).
    public static func nalUnits(in stream: [UInt8]) -> [[UInt8]] {
        nalUnitRanges(in: stream).map { Array(stream[$0]) }
    }

    private static func append(_ range: Range<Int>, of stream: [UInt8], to ranges: inout [Range<Int>]) {
        var end = range.upperBound
        while end > range.lowerBound, stream[end - 1] == 0 { end -= 1 }  // trailing_zero_8bits
        if end > range.lowerBound { ranges.append(range.lowerBound..<end) }
    }
}
