import Display
import Foundation
import Synchronization
import PacerSimulation

/// How late the present loop's timed wait (`TimedWaitLateness`) returns, for the scheduling the
/// present thread may get: SCHED_OTHER with the default 50 µs timer slack (the baseline), with a
/// 1 ns slack, and SCHED_FIFO 10 with a 1 ns slack — each on an idle machine and with every core
/// busy (spinning threads, one of them streaming 64 MiB through memory). Quantiles in µs; the
/// steal column is the CPU time the hypervisor took from this virtual machine meanwhile (/proc/stat).
/// The pacer simulation's `WakeModel.realtimeBusy` / `.normalBusy` are taken from its busy rows.
func runWakeBench(waits count: Int) -> [String] {
    var lines = ["Timed-wait lateness (\(count) ppoll waits of 0.5-4 ms per row; µs late)"]
    lines.append("  " + pad("scheduling", 34) + pad("load", 8) + pad("p50", 7) + pad("p90", 7) + pad("p99", 8)
                 + pad("p99.9", 8) + pad("p99.95", 8) + pad("p99.99", 8) + pad("max", 8) + pad(">0.25ms", 9)
                 + pad(">1ms", 8) + "steal ms")
    var p999: [String: Double] = [:]
    for loaded in [false, true] {
        for (name, priority, slackOne) in [("SCHED_OTHER, slack 50 us (baseline)", Int32(0), false),
                                           ("SCHED_OTHER, slack 1 ns", Int32(0), true),
                                           ("SCHED_FIFO 10, slack 1 ns", PresentThreadScheduling.defaultPriority, true)] {
            let load = loaded ? CPULoad(threads: ProcessInfo.processInfo.activeProcessorCount) : nil
            let stealBefore = stealMs()
            let result = MeasuredWaits()
            let done = DispatchSemaphore(value: 0)
            // A thread of its own: the scheduling change must not stay on this one.
            let thread = Thread {
                let raised: PresentThreadScheduling? = slackOne ? PresentThreadScheduling.raise(priority: priority) : nil
                result.scheduling = raised?.description ?? "SCHED_OTHER, default slack"
                result.lateness = TimedWaitLateness.measure(count: count, seed: 7)
                raised?.restore()
                done.signal()
            }
            thread.start()
            done.wait()
            let steal = stealMs() - stealBefore
            load?.stop()
            if priority > 0 && !result.scheduling.hasPrefix("SCHED_FIFO") { lines.append("    (\(result.scheduling))") }
            let sorted = result.lateness.sorted()
            func q(_ p: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000 }
            let over250 = Double(sorted.filter { $0 > 250_000 }.count) / Double(sorted.count) * 100
            let over1ms = Double(sorted.filter { $0 > 1_000_000 }.count) / Double(sorted.count) * 100
            lines.append("  " + pad(name, 34) + pad(loaded ? "busy" : "idle", 8) + pad(f(q(0.5)), 7) + pad(f(q(0.9)), 7)
                         + pad(f(q(0.99)), 8) + pad(f(q(0.999)), 8) + pad(f(q(0.9995)), 8) + pad(f(q(0.9999)), 8)
                         + pad(f(Double(sorted.last ?? 0) / 1000), 8) + pad(String(format: "%.3f%%", over250), 9)
                         + pad(String(format: "%.3f%%", over1ms), 8) + "\(steal)")
            if loaded { p999[name] = q(0.999) }
        }
    }
    if let base = p999["SCHED_OTHER, slack 50 us (baseline)"], let fifo = p999["SCHED_FIFO 10, slack 1 ns"], fifo > 0 {
        lines.append("  busy machine: p99.9 lateness SCHED_OTHER/SCHED_FIFO = \(String(format: "%.1f", base / fifo))×")
    }
    return lines
}

/// One row's measurement, written by its thread before the semaphore the reader waits on.
private final class MeasuredWaits: @unchecked Sendable {
    var lateness: [UInt64] = []
    var scheduling = ""
}

/// Threads that keep every core busy at normal priority until `stop`: spinners, the first one
/// streaming through a 64 MiB buffer (memory-bandwidth pressure).
private final class CPULoad: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let count: Int

    init(threads count: Int) {
        self.count = count
        for i in 0..<count {
            Thread { [self] in
                if i == 0 {
                    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 20, alignment: 64)
                    var value: Int32 = 0
                    while !stopping.load(ordering: .relaxed) { memset(buffer.baseAddress!, value, buffer.count); value &+= 1 }
                    buffer.deallocate()
                } else {
                    var x: UInt64 = 1
                    while !stopping.load(ordering: .relaxed) { for _ in 0..<10_000 { x = x &* 6364136223846793005 &+ 1 } }
                    if x == 0 { print("") }  // keeps the loop's work observable
                }
                finished.signal()
            }.start()
        }
        usleep(100_000)
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        for _ in 0..<count { finished.wait() }
    }
}

/// The machine's steal time so far, ms (the `steal` column of /proc/stat's `cpu` line).
private func stealMs() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return 0 }
    let fields = line.split(separator: " ").compactMap { Int($0) }
    guard fields.count >= 8 else { return 0 }
    return fields[7] * 1000 / Int(sysconf(Int32(_SC_CLK_TCK)))
}

private func f(_ x: Double) -> String { String(format: x < 10 ? "%.1f" : "%.0f", x) }
