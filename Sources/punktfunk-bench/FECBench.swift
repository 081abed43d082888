import Foundation
import PunktfunkWire

/// GF(2^16) Leopard FEC benchmark (data-plane.md §2.5, §10): encode throughput and the time to
/// rebuild lost data shards, for every kernel set this CPU runs. Returns printable lines.
///
/// - Encode: MiB/s of original data (k · P bytes per call), median of timed calls.
/// - Decode: k = 200, m = 30, P = 1408 with 30 data shards lost (target ≤ 1 ms), median of 50.
func runFECBench() -> [String] {
    var lines = ["FEC (GF(2^16) Leopard, reed-solomon-simd 3.1.0 compatible); process default kernel: \(LeopardFEC.kernel)"]
    var encodeRate: [String: Double] = [:]
    var decodeMs: [String: Double] = [:]
    for name in LeopardFEC.availableKernels {
        guard let fec = LeopardFEC(kernel: name) else { continue }
        for (k, m, p) in [(200, 30, 1408), (32, 32, 1408)] {
            let seconds = FECBenchBlock(k: k, m: m, p: p).medianEncodeSeconds(fec, runs: 50)
            let mib = Double(k * p) / seconds / (1024 * 1024)
            if k == 200 { encodeRate[name] = mib }
            lines.append("  \(pad(name)) encode k=\(k) m=\(m) P=\(p): \(fmt(mib, 0)) MiB/s (\(fmt(seconds * 1e6, 1)) µs/block)")
        }
        let block = FECBenchBlock(k: 200, m: 30, p: 1408)
        let ms = block.medianDecodeSeconds(fec, lost: 30, runs: 50) * 1000
        decodeMs[name] = ms
        lines.append("  \(pad(name)) decode k=200 m=30 P=1408, 30 data shards lost: median \(fmt(ms, 3)) ms (target ≤ 1 ms)")
    }
    for name in LeopardFEC.availableKernels where name != "portable" {
        guard let simd = encodeRate[name], let portable = encodeRate["portable"] else { continue }
        lines.append("  \(name)/portable: encode ×\(fmt(simd / portable, 1)), decode ×\(fmt(decodeMs["portable"]! / decodeMs[name]!, 1))")
    }
    return lines
}

/// One block of pattern data with its parity, in contiguous buffers owned by the instance.
private final class FECBenchBlock {
    let k: Int, m: Int, p: Int
    let data: UnsafeMutableRawPointer
    let parity: UnsafeMutableRawPointer

    init(k: Int, m: Int, p: Int) {
        self.k = k; self.m = m; self.p = p
        data = .allocate(byteCount: k * p, alignment: 64)
        parity = .allocate(byteCount: m * p, alignment: 64)
        for i in 0..<(k * p) { data.storeBytes(of: UInt8(truncatingIfNeeded: i &* 7 &+ i / p &* 31), toByteOffset: i, as: UInt8.self) }
    }

    func medianEncodeSeconds(_ fec: LeopardFEC, runs: Int) -> Double {
        let clock = ContinuousClock()
        var times: [Double] = []
        for run in 0..<(runs + 3) {
            let d = clock.measure {
                try? fec.encode(k: k, m: m, shardBytes: p, data: data, dataStride: p, parity: parity, parityStride: p)
            }
            if run >= 3 { times.append(seconds(d)) }  // first calls warm up scratch and tables
        }
        return median(times)
    }

    func medianDecodeSeconds(_ fec: LeopardFEC, lost: Int, runs: Int) -> Double {
        try? fec.encode(k: k, m: m, shardBytes: p, data: data, dataStride: p, parity: parity, parityStride: p)
        var present = [Bool](repeating: true, count: k + m)
        for i in 0..<lost { present[(i * 37) % k] = false }  // 30 distinct data slots
        let clock = ContinuousClock()
        var times: [Double] = []
        present.withUnsafeBufferPointer { flags in
            for run in 0..<(runs + 3) {
                let d = clock.measure {
                    try? fec.reconstruct(k: k, m: m, shardBytes: p, data: data, dataStride: p,
                                         parity: parity, parityStride: p, present: flags.baseAddress!)
                }
                if run >= 3 { times.append(seconds(d)) }
            }
        }
        return median(times)
    }

    deinit {
        data.deallocate()
        parity.deallocate()
    }
}

private func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

private func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? 0 : s[s.count / 2]
}

private func pad(_ s: String) -> String { s + String(repeating: " ", count: max(0, 8 - s.count)) }

private func fmt(_ x: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", x)
}
