/// What `punktfunk-kiosk check` found: sections (decode, display, sound, input, network, Wi-Fi, the
/// box), each a list of findings with a verdict, one sentence of why and, unless all is well, one
/// of what to do. Pure values: the command gathers observations, the judges in this module turn
/// them into findings, and `ReportText` / `ReportJSON` print them.

/// One verdict. Ordered by how bad it is for the aggregation; `notAvailable` is not a fault (no
/// GPU, nothing plugged in) and never counts as "ok" either.
public enum Verdict: String, Sendable, Codable, CaseIterable {
    case ok
    case notAvailable = "not available"
    case degraded
    case failed

    var severity: Int {
        switch self {
        case .ok: 0
        case .notAvailable: 1
        case .degraded: 2
        case .failed: 3
        }
    }

    /// The worst of `verdicts` (failed, degraded, not available, ok in that order); `notAvailable`
    /// for an empty list.
    public static func worst(_ verdicts: [Verdict]) -> Verdict {
        verdicts.max { $0.severity < $1.severity } ?? .notAvailable
    }
}

/// One named fact of a finding (ordered, unlike a dictionary): `driver = iHD 24.1`.
public struct Fact: Sendable, Codable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) { self.name = name; self.value = value }
}

/// One thing checked: a verdict, the sentence that says why, and what to do about it.
public struct Finding: Sendable, Codable, Equatable {
    /// What was checked, e.g. "/dev/dri/renderD128 Main10", "mDNS port 5353".
    public var subject: String
    public var verdict: Verdict
    /// One sentence: why this verdict.
    public var why: String
    /// One sentence: what to do (nil when nothing needs doing).
    public var action: String?
    public var facts: [Fact]
    /// A side fact (no CEC adapter, no host answering, a flip run not asked for): its "not
    /// available" does not make the section "not available". Degraded and failed always count.
    public var informational: Bool

    public init(_ subject: String, _ verdict: Verdict, _ why: String, action: String? = nil, facts: [Fact] = [],
                informational: Bool = false) {
        self.subject = subject; self.verdict = verdict; self.why = why; self.action = action; self.facts = facts
        self.informational = informational
    }
}

/// The sections in report order.
public enum SectionID: String, Sendable, Codable, CaseIterable {
    case decode, display, sound, input, network, wifi, box
    /// What the box asks a host for and why (informational; the kiosk's `HelloPlan`).
    case hello

    public var title: String {
        switch self {
        case .decode: "Decode"
        case .display: "Display"
        case .sound: "Sound"
        case .input: "Input"
        case .network: "Network"
        case .wifi: "Wi-Fi"
        case .box: "The box"
        case .hello: "What this box asks a host for"
        }
    }
}

public struct Section: Sendable, Codable, Equatable {
    public var id: SectionID
    public var findings: [Finding]
    /// Failed or degraded when any finding is; else "not available" when a finding that is not
    /// informational is (no GPU: the decode section is "not available", never "ok"); else ok.
    public var verdict: Verdict {
        let worst = Verdict.worst(findings.map(\.verdict))
        if worst == .failed || worst == .degraded { return worst }
        if findings.contains(where: { !$0.informational && $0.verdict == .notAvailable }) { return .notAvailable }
        return findings.contains { $0.verdict == .ok } ? .ok : .notAvailable
    }

    public init(_ id: SectionID, _ findings: [Finding]) { self.id = id; self.findings = findings }
}

public struct Report: Sendable, Equatable {
    /// The program and its version, e.g. "punktfunk-kiosk 0.9".
    public var program: String
    public var sections: [Section]

    public init(program: String, sections: [Section]) { self.program = program; self.sections = sections }

    /// Nothing failed (degraded and not available do not fail the check).
    public var passed: Bool { !sections.contains { $0.findings.contains { $0.verdict == .failed } } }
    /// The documented exit status: 0 when nothing failed, 1 otherwise.
    public var exitCode: Int32 { passed ? 0 : 1 }
    public var verdict: Verdict { Verdict.worst(sections.map(\.verdict)) }

    public func section(_ id: SectionID) -> Section? { sections.first { $0.id == id } }
}
