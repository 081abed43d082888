import FFmpegOracle
import Testing
@testable import HEVC

/// The trace_headers comparison shared by the generated and the committed fixtures.
enum Oracle {
    /// NAL unit types whose syntax the parser reads completely; for others (SEI, AUD, …) only
    /// the elements it does read are looked up in ffmpeg's trace.
    static func parsedCompletely(_ type: UInt8) -> Bool { type <= 9 || (16...21).contains(type) || (32...34).contains(type) }

    /// What is compared of one syntax element: bit position, name and value.
    struct Syntax: Equatable, CustomStringConvertible {
        var position: Int
        var name: String
        var value: Int64
        var description: String { "\(position) \(name) = \(value)" }
    }

    /// Index of the first differing element, or of the end of the shorter list when lengths differ.
    static func firstMismatch(_ a: [Syntax], _ b: [Syntax]) -> Int? {
        for k in 0..<min(a.count, b.count) where a[k] != b[k] { return k }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    /// Parses `bytes` with tracing on and records an issue for every unit whose syntax elements
    /// differ from ffmpeg's (name, bit position, value, order), and for every slice whose
    /// headerBitSize is not where ffmpeg's byte_alignment() ends.
    /// - Returns: the number of elements compared.
    static func compare(_ bytes: [UInt8], with trace: [HeaderTrace.Unit], fixture: String,
                        sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var parser = HEVCParser(tracing: true)
        let nals = AnnexB.nalUnits(in: bytes)
        #expect(nals.count == trace.count, "\(fixture): NAL unit count ours \(nals.count), ffmpeg \(trace.count)",
                sourceLocation: sourceLocation)
        var compared = 0
        for (index, (nal, oracle)) in zip(nals, trace).enumerated() {
            let unit: HEVCParser.ParsedNALUnit
            do { unit = try parser.parseNALUnit(nal) } catch {
                Issue.record("\(fixture) NAL \(index) (\(oracle.title)): \(error)", sourceLocation: sourceLocation)
                continue
            }
            let ours = unit.syntaxElements.map {
                Syntax(position: $0.bitPosition, name: $0.name, value: $0.value)
            }
            let theirs = oracle.elements.map { Syntax(position: $0.position, name: $0.name, value: $0.value) }
            if !parsedCompletely(unit.header.nalUnitType) {
                let byKey = Dictionary(theirs.map { ("\($0.position) \($0.name)", $0) }, uniquingKeysWith: { a, _ in a })
                for e in ours where byKey["\(e.position) \(e.name)"] != e {
                    Issue.record("\(fixture) NAL \(index) type \(unit.header.nalUnitType): ours \(e), not in ffmpeg's trace",
                                 sourceLocation: sourceLocation)
                }
                compared += ours.count
                continue
            }
            if let k = firstMismatch(ours, theirs) {
                let o = k < ours.count ? ours[k].description : "—"
                let t = k < theirs.count ? theirs[k].description : "—"
                Issue.record("\(fixture) NAL \(index) type \(unit.header.nalUnitType): element \(k) ours \(o), ffmpeg \(t)",
                             sourceLocation: sourceLocation)
            }
            if case .slice(let s) = unit.payload {
                #expect(s.headerBitSize == (theirs.last.map { $0.position + 1 } ?? -1),
                        "\(fixture) NAL \(index): header bit size", sourceLocation: sourceLocation)
            }
            compared += theirs.count
        }
        return compared
    }
}
