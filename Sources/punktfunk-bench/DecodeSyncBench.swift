import Foundation
import PacerSimulation
import PunktfunkWire

/// What the sync-file path saves between "the GPU finished decoding" and "the flip is committed
/// with that picture", simulated — no GPU here, and the recording VA driver decodes nothing, so
/// its vaSyncSurface returns at once and a measured run would show 0 for both paths.
///
/// Per frame (60 Hz, random phase against the vblank grid): the decode thread submits at S and
/// the GPU is done at E = S + D (D assumed, below).
/// - vaSyncSurface: the decode thread sleeps in vaSyncSurface and wakes w₁ after E (a SCHED_OTHER
///   thread, `WakeModel.normalBusy`), exports and hands the picture to the present thread, which
///   wakes w₂ later (SCHED_FIFO, `WakeModel.realtimeBusy`) and commits: E + w₁ + w₂.
/// - sync-file: the decode thread exports right after vaEndPicture; the present thread commits at
///   S + w₂ with the sync_file as IN_FENCE_FD; the kernel flips once both the commit and the fence
///   are done: max(S + w₂, E).
/// Glass is the first vblank after that. Both wake models are the ones `punktfunk-bench wake`
/// measured on this 2-core machine under load.
struct DecodeSyncBench {
    var frames: Int
    var seed: UInt64 = 27

    struct Row {
        var decodeMs: Double
        /// Decode end → flip committed with the picture, ms: p50, p99, p99.9 per path.
        var waitPath: [Double], filePath: [Double]
        var meanSavedMs: Double
        /// Frames on glass one refresh later on the vaSyncSurface path than on the sync-file path.
        var laterFraction: Double
    }

    func run(decodeNs: UInt64) -> Row {
        var rng = SplitMix64(seed: seed ^ decodeNs)
        let vblank = 16_666_667.0
        var wait: [Double] = [], file: [Double] = []
        var later = 0
        var saved = 0.0
        for _ in 0..<frames {
            let s = rng.unit() * vblank
            let e = s + Double(decodeNs)
            let w1 = Double(WakeModel.normalBusy.delayNs(at: rng.unit()))
            let w2 = Double(WakeModel.realtimeBusy.delayNs(at: rng.unit()))
            let viaWait = e + w1 + w2
            let viaFile = max(s + w2, e)
            wait.append((viaWait - e) / 1e6)
            file.append((viaFile - e) / 1e6)
            saved += (viaWait - viaFile) / 1e6
            if (viaWait / vblank).rounded(.down) > (viaFile / vblank).rounded(.down) { later += 1 }
        }
        wait.sort(); file.sort()
        func q(_ a: [Double], _ p: Double) -> Double { a[min(a.count - 1, Int((Double(a.count) * p).rounded(.down)))] }
        return Row(decodeMs: Double(decodeNs) / 1e6, waitPath: [q(wait, 0.5), q(wait, 0.99), q(wait, 0.999)],
                   filePath: [q(file, 0.5), q(file, 0.99), q(file, 0.999)], meanSavedMs: saved / Double(frames),
                   laterFraction: Double(later) / Double(frames))
    }

    func report() -> [String] {
        var lines = ["decode sync (simulated, \(frames) frames at 60 Hz; GPU decode time assumed; wake lateness as measured by `wake`):"]
        func f(_ v: Double) -> String { String(format: "%.3f", v) }
        for d: UInt64 in [2_000_000, 8_000_000] {
            let r = run(decodeNs: d)
            lines.append("  decode \(f(r.decodeMs)) ms: decode end → commit, va-sync-surface p50/p99/p99.9 "
                         + "\(f(r.waitPath[0]))/\(f(r.waitPath[1]))/\(f(r.waitPath[2])) ms, sync-file "
                         + "\(f(r.filePath[0]))/\(f(r.filePath[1]))/\(f(r.filePath[2])) ms; mean saved \(f(r.meanSavedMs)) ms; "
                         + "\(String(format: "%.2f", r.laterFraction * 100)) % of frames a refresh later without the sync file")
        }
        return lines
    }
}
