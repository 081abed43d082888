/// What a kiosk without its shell shows a person: one line on stderr per change worth saying,
/// drawn from the state alone (the old and the new one), like any other view of it.
public enum KioskConsole {
    /// The lines to say for the step from `old` to `new`, in order (without the program prefix).
    public static func lines(from old: KioskState, to new: KioskState) -> [String] {
        var out: [String] = []
        if old.display == nil, let sentence = new.display?.problem, !isLeaving(new) {
            out.append("\(sentence) Running without a display.")
        }
        switch (old.phase, new.phase) {
        case (_, .connecting(let c)):
            if case .waitingForApproval(_, _, let count) = c.step, count == 1, approvalCount(old.phase) != 1 {
                out.append("waiting for approval on the host")
            }
            if case .resuming(let attempt) = c.step, attempt != resumeAttempt(old.phase) {
                out.append(resumingLine(attempt))
            }
        case (_, .pairing(let p)):
            if case .waitingForApproval(_, let count) = p.step, count == 1, approvalCount(old.phase) != 1 {
                out.append("waiting for approval on the host")
            }
        case (_, .streaming(let s)), (_, .inStreamMenu(let s, _)):
            if let attempt = s.resuming, attempt != resumeAttempt(old.phase) {
                out.append(resumingLine(attempt))
            }
        case (.error, .error):
            break
        case (_, .error(let sentence, _)):
            out.append(sentence)
        case (.leaving, .leaving):
            break
        case (_, .leaving(let l)):
            if let reason = l.reason { out.append(reason) }
        default:
            break
        }
        if let notice = new.notice { out.append(notice) }
        if old.power != new.power { out.append(new.power == .standby ? "standby: nothing on glass until a wake" : "awake") }
        return out
    }

    private static func isLeaving(_ s: KioskState) -> Bool {
        if case .leaving = s.phase { return true }
        return false
    }

    private static func approvalCount(_ phase: KioskPhase) -> Int? {
        switch phase {
        case .connecting(let c):
            if case .waitingForApproval(_, _, let count) = c.step { return count }
        case .pairing(let p):
            if case .waitingForApproval(_, let count) = p.step { return count }
        default: break
        }
        return nil
    }

    private static func resumeAttempt(_ phase: KioskPhase) -> Int? {
        switch phase {
        case .streaming(let s), .inStreamMenu(let s, _): return s.resuming
        case .connecting(let c): if case .resuming(let attempt) = c.step { return attempt }
        default: break
        }
        return nil
    }

    private static func resumingLine(_ attempt: Int) -> String {
        "the connection was lost; resuming the session (attempt \(attempt))"
    }
}
