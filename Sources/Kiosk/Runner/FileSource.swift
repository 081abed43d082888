import VideoFrames
import SystemClock
import Screen
import VideoDecode

/// `present FILE`: decodes the file's access units with the software rung on the presenting
/// thread, `passes` times, in output order. A new decoder per pass, so every pass starts clean at
/// its first IRAP picture. Frame ids continue from `firstIndex` (ids stay unique for the life of
/// the display, across streams). A class: the present loop advances it in place (no copy of its
/// queue per frame).
final class FileSource {
    let accessUnits: [[UInt8]]
    let passes: Int
    let deadlineNs: UInt64?
    private var pass = 0
    private var nextAU = 0
    private var flushed = false
    private var queue: [DecodedFrame] = []
    private var indexInPass = 0
    private var index: UInt64
    private var decoder: SoftwareDecoder?
    /// AU bytes decoded, pictures out and decode time (ns) so far, for the stats overlay.
    private(set) var counters = StatsCounters()
    /// Access units the decoder refused, with why (said on stderr; the file goes on).
    var onDecodeError: (Int, Error) -> Void = { _, _ in }

    init(accessUnits: [[UInt8]], passes: Int, deadlineNs: UInt64?, firstIndex: UInt64) {
        self.accessUnits = accessUnits; self.passes = passes; self.deadlineNs = deadlineNs; self.index = firstIndex
    }

    /// The next output frame; nil at the end of the last pass or past the deadline.
    func next() throws -> SourcedFrame? {
        if let deadlineNs, MonotonicClock.nowNs() >= deadlineNs { return nil }
        while queue.isEmpty {
            guard pass < passes else { return nil }
            if decoder == nil { decoder = try SoftwareDecoder() }
            if nextAU < accessUnits.count {
                let t0 = MonotonicClock.nowNs()
                defer { counters.decodeNs &+= MonotonicClock.nowNs() &- t0 }
                counters.videoBytes &+= UInt64(accessUnits[nextAU].count)
                do {
                    let pictures = try decoder!.decode(accessUnit: accessUnits[nextAU], pts: Int64(nextAU))
                    counters.decodedPictures &+= UInt64(pictures.count)
                    queue += pictures
                } catch {
                    onDecodeError(nextAU, error)
                }
                nextAU += 1
            } else if !flushed {
                let pictures = decoder!.flush()
                counters.decodedPictures &+= UInt64(pictures.count)
                queue += pictures
                flushed = true
            } else {
                pass += 1; nextAU = 0; flushed = false; indexInPass = 0; decoder = nil
            }
        }
        let frame = queue.removeFirst()
        defer { indexInPass += 1; index += 1 }
        return SourcedFrame(frame: .cpu(frame), index: index, indexInPass: indexInPass, firstPass: pass == 0)
    }

    /// The id the next frame would get (where the display's ids go on after this file).
    var nextIndex: UInt64 { index }
}
