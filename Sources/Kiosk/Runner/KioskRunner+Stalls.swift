import Foundation
import PunktfunkSession
import PunktfunkWire
import SystemClock

/// `stalls.json` writes, in order, away from the pump thread.
private let stallsFileQueue = DispatchQueue(label: "stalls-file")

extension KioskRunner {
    /// Chains the stall ledger's news onto `session` (pump thread): each settled stall as one
    /// `{"stall":…}` line on stdout beside the stats (when they are printed), and a period with its
    /// advice said once — again only when its cause or spacing (by more than the ledger's
    /// tolerance) changes — as the machine's notice (the console's stderr line, the shell's notice).
    /// With a profile `directory`, the ledger's figures go to `LastStreamStalls` there too.
    static func followStalls(_ session: ClientSession, printLines: Bool, events: EventQueue, directory: URL?) {
        let toRealtime = MonotonicClock.realtimeMinusMonotonicNs()
        var told: StallLedger.Period?
        let previous = session.onStall
        session.onStall = { stall, ledger in
            previous?(stall, ledger)
            if let directory {
                // The file is written off the pump thread, one write after another.
                let kept = LastStreamStalls(ledger: ledger, nowUnixSeconds: Int(Date().timeIntervalSince1970))
                stallsFileQueue.async { try? kept.write(in: directory) }
            }
            if printLines { FileHandle.standardOutput.write(Data((stallLine(stall, realtimeMinusMonotonicNs: toRealtime) + "\n").utf8)) }
            guard let period = ledger.period else { return }
            if let t = told, t.cause == period.cause,
               (t.spacingNs > period.spacingNs ? t.spacingNs - period.spacingNs : period.spacingNs - t.spacingNs) <= StallLedger.periodToleranceNs {
                return
            }
            told = period
            events.post(.notice(sentence: period.advice))   // the console prints it, the shell shows it
        }
    }

    /// `{"stall":{"start_unix_ms":…,"ms":…,"worst_ms":…,"symptoms":[…],"cause":"scan","cause_offset_ms":…}}`:
    /// wall-clock times, so a check can lay them beside another program's (iw's) event times.
    static func stallLine(_ s: StallLedger.Stall, realtimeMinusMonotonicNs: Int64) -> String {
        let startMs = (Int64(bitPattern: s.startNs) &+ realtimeMinusMonotonicNs) / 1_000_000
        let offset = s.causeOffsetNs.map { String($0 / 1_000_000) } ?? "null"
        return "{\"stall\":{\"start_unix_ms\":\(startMs),\"start_mono_ns\":\(s.startNs),\"ms\":\(s.lengthMs),\"worst_ms\":\(s.worstMs),"
            + "\"symptoms\":[\(s.symptoms.names.map { "\"\($0)\"" }.joined(separator: ","))],"
            + "\"cause\":\"\((s.cause ?? .none).key)\",\"cause_offset_ms\":\(offset)}}"
    }
}
