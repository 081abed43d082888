import Foundation

/// The report as a person reads it (and pastes it into a bug report): one header line per
/// section with its verdict, then one line per finding, its facts indented under it.
///
///     Decode: not available
///       [not available] VA-API: no VA-API device (/dev/dri has no render node).
///         → Decoding uses the software rung; install a GPU driver with VA-API for hardware decode.
public enum ReportText {
    public static func render(_ report: Report) -> String {
        var lines = ["\(report.program) check"]
        for section in report.sections {
            lines.append("")
            lines.append("\(section.id.title): \(section.verdict.rawValue)")
            for f in section.findings {
                lines.append("  [\(f.verdict.rawValue)] \(f.subject): \(f.why)")
                if let action = f.action { lines.append("      → \(action)") }
                for fact in f.facts { lines.append("      \(fact.name): \(fact.value)") }
            }
        }
        lines.append("")
        let failed = report.sections.flatMap(\.findings).filter { $0.verdict == .failed }.count
        lines.append(report.passed
            ? "Result: nothing failed (\(report.verdict.rawValue)); exit 0."
            : "Result: \(failed) check\(failed == 1 ? "" : "s") failed; exit 1.")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The report as one JSON object (`--json`), for scripts and the VM harness:
///
///     {"program": …, "verdict": "ok", "exit_code": 0,
///      "sections": [{"id": "decode", "title": "Decode", "verdict": …,
///                    "findings": [{"subject": …, "verdict": …, "why": …, "action": …,
///                                  "facts": {"name": "value", …}}]}]}
///
/// Keys are sorted; `action` is null when nothing needs doing; facts keep their order in the text
/// report but become an object here (names are unique within a finding).
public enum ReportJSON {
    struct Document: Encodable {
        var program: String
        var verdict: Verdict
        var exitCode: Int32
        var sections: [SectionDocument]
    }
    struct SectionDocument: Encodable {
        var id: SectionID
        var title: String
        var verdict: Verdict
        var findings: [FindingDocument]
    }
    struct FindingDocument: Encodable {
        var subject: String
        var verdict: Verdict
        var why: String
        var action: String?
        var facts: [String: String]

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(subject, forKey: .subject)
            try c.encode(verdict, forKey: .verdict)
            try c.encode(why, forKey: .why)
            try c.encode(action, forKey: .action)  // null, not absent
            try c.encode(facts, forKey: .facts)
        }
        enum CodingKeys: String, CodingKey { case subject, verdict, why, action, facts }
    }

    public static func render(_ report: Report) -> String {
        let doc = Document(
            program: report.program, verdict: report.verdict, exitCode: report.exitCode,
            sections: report.sections.map { s in
                SectionDocument(id: s.id, title: s.id.title, verdict: s.verdict, findings: s.findings.map { f in
                    FindingDocument(subject: f.subject, verdict: f.verdict, why: f.why, action: f.action,
                                    facts: Dictionary(f.facts.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
                })
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        guard let data = try? encoder.encode(doc) else { return "{\"error\":\"the report could not be encoded\"}" }
        return String(decoding: data, as: UTF8.self)
    }
}
