import Display
import Foundation
import PunktfunkWire

// punktfunk-bench [media] [fec] [session] [decode] [decode-sync] [display] [pacer] [wake] [audio] [catchup] [avskew] [input] [shell] [streamed] [x11] [rate] [--quick] [--waits N]
//                 [--signal NAME] [--seeds N]
// `catchup` runs only the audio bench's second table (issue 22); `--signal NAME` keeps the test signals whose
// name contains NAME there (e.g. chord, noise, "tone 100 Hz"); `--seeds N` runs N Wi-Fi traces per row (default 8, 1 with --quick).
// Prints absolute figures for this machine and ratios against baselines measured in the same
// run. Build with -c release; results go to docs/PERFORMANCE.md.
var arguments = Array(CommandLine.arguments.dropFirst())
/// The value after `name` as `parse` reads it, taken out of `arguments` with `name`; nil (and
/// both left in place) when `name` is absent, last, or its value does not parse.
@MainActor func takeOption<T>(_ name: String, _ parse: (String) -> T?) -> T? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = parse(arguments[i + 1]) else { return nil }
    arguments.removeSubrange(i...(i + 1))
    return value
}
func positiveInt(_ s: String) -> Int? { Int(s).flatMap { $0 > 0 ? $0 : nil } }
/// `--waits N`: timed waits per row of the wake bench (default 10 000, 1000 with --quick).
let waits = takeOption("--waits", positiveInt)
/// `--signal NAME`: the catch-up table's test signals whose name contains NAME (all without it).
let signalFilter = takeOption("--signal") { $0 }
/// `--seeds N`: Wi-Fi traces per row of the catch-up table (default 8, 1 with --quick).
let catchupSeeds = takeOption("--seeds", positiveInt)
let args = Set(arguments)
let quick = args.contains("--quick")
let all = args.subtracting(["--quick"]).isEmpty
print("punktfunk-bench on \(ProcessInfo.processInfo.activeProcessorCount) cores, FEC kernel \(LeopardFEC.kernel)")
if all || args.contains("fec") {
    for line in runFECBench() { print(line) }
}
if all || args.contains("media") {
    let bench = MediaBench(frames: quick ? 40 : 300, auBytes: 100_000, passes: quick ? 2 : 5)
    do {
        for line in try bench.report() { print(line) }
    } catch {
        print("media bench failed: \(error)")
        exit(1)
    }
}
if args.contains("streamed") {
    // Streamed vs whole AUs end to end on loopback (not in the default set: it encodes a stream).
    do {
        // Two link rates the AUs take milliseconds on, and loopback speed (unpaced).
        for link in [100.0, 250, 0] {
            for line in try StreamedBench(rounds: quick ? 1 : 3, framesPerRound: 150, sliceMs: 2, linkMbps: link).report() { print(line) }
        }
    } catch {
        print("streamed bench failed: \(error)")
        exit(1)
    }
}
if args.contains("rate") {
    // The rate loop through a bottleneck, beside the fixed rate (not in the default set: ~8 min
    // of loopback sessions; --quick: 12 s stretches instead of 40).
    do {
        for line in try RateBench(stretch: quick ? 12 : 40).report() { print(line) }
    } catch {
        print("rate bench failed: \(error)")
        exit(1)
    }
}
if args.contains("x11") {
    // MIT-SHM against PutImage on a private Xvfb (not in the default set: it starts an X server).
    for line in X11HandOverBench(frames: quick ? 10 : 60).report() { print(line) }
}
if all || args.contains("session") {
    let bench = SessionBench(seconds: quick ? 2 : 5, auBytes: 250_000, fps: 2000)
    do {
        for line in try bench.report() { print(line) }
    } catch {
        print("session bench failed: \(error)")
        exit(1)
    }
}
if all || args.contains("decode") {
    do {
        for line in try DecodeBench(seconds: quick ? 1 : 8, passes: quick ? 1 : 7).report() { print(line) }
    } catch {
        print("decode bench failed: \(error)")
        exit(1)
    }
}
if all || args.contains("decode") || args.contains("decode-sync") {
    for line in DecodeSyncBench(frames: quick ? 10_000 : 1_000_000).report() { print(line) }
}
if all || args.contains("display") {
    for line in ConversionBenchmark.report(frames: quick ? 10 : 60) { print(line) }
}
if all || args.contains("pacer") {
    for line in runPacerBench(quick: quick) { print(line) }
}
if all || args.contains("wake") {
    for line in runWakeBench(waits: waits ?? (quick ? 1000 : 10_000)) { print(line) }
}
if all || args.contains("audio") {
    for line in runAudioBench(quick: quick) { print(line) }
}
if args.contains("catchup") && !args.contains("audio") {
    for line in runAudioSignalBench(quick: quick, signalFilter: signalFilter, seeds: catchupSeeds) { print(line) }
}
if all || args.contains("avskew") {
    do {
        for line in try AVSkewBench(seconds: quick ? 3 : 8).report() { print(line) }
    } catch {
        print("avskew bench failed: \(error)")
        exit(1)
    }
}
if all || args.contains("input") {
    for line in runInputBench(quick: quick) { print(line) }
}
if all || args.contains("shell") {
    for line in runShellBench(quick: quick) { print(line) }
}
