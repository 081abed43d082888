import Foundation
import Testing
@testable import PunktfunkWire

/// `ScrollAccumulator` against the upstream `scroll-vectors.json` (crates/core/punktfunk-core/
/// testdata @867f3f44, copied to Tests/Fixtures/upstream), plus the kind-16 body rules
/// (data-plane.md §6.2 "Scroll").
@Suite struct DatagramScrollTests {
    struct Vectors: Decodable {
        struct Wire: Decodable { let source: UInt8; let phase: UInt8; let axis: UInt32; let delta: Int32 }
        struct Step: Decodable { let source: UInt8; let phase: UInt8; let axis: UInt32; let delta: Double; let wire: Wire? }
        struct Case: Decodable { let name: String; let steps: [Step] }
        let cases: [Case]
    }

    @Test func upstreamVectors() throws {
        let vectors = try JSONDecoder().decode(Vectors.self, from: try Fixtures.data("upstream/scroll-vectors.json"))
        #expect(vectors.cases.count == 10)
        var steps = 0
        for c in vectors.cases {
            var acc = ScrollAccumulator()   // each case starts fresh
            for (i, s) in c.steps.enumerated() {
                let source = try #require(ScrollSource(rawValue: s.source))
                let phase = try #require(ScrollPhase(rawValue: s.phase))
                let got = acc.event(source: source, phase: phase, axis: s.axis, delta: s.delta)
                let want = try s.wire.map { w in
                    ScrollEvent(source: try #require(ScrollSource(rawValue: w.source)),
                                phase: try #require(ScrollPhase(rawValue: w.phase)),
                                axis: try #require(ScrollAxis(rawValue: w.axis)), delta: w.delta)
                }
                #expect(got == want, "\(c.name) step \(i)")
                if let got { #expect(try InputEvent(decoding: got.event.encoded) == got.event, "\(c.name) step \(i) is valid on the wire") }
                steps += 1
            }
        }
        #expect(steps == 27)
    }

    @Test func fractionsCarryPerAxis() {
        var acc = ScrollAccumulator()
        #expect(acc.event(source: .finger, phase: .update, axis: 0, delta: 0.003) == nil)   // 0.768
        #expect(acc.event(source: .finger, phase: .update, axis: 1, delta: 0.003) == nil)   // other axis, own residue
        #expect(acc.event(source: .finger, phase: .update, axis: 0, delta: 0.003)?.delta == 1)
        #expect(acc.event(source: .finger, phase: .update, axis: 0, delta: -1.0)?.delta == -255)
    }

    @Test func invalidInputsChangeNoState() {
        var acc = ScrollAccumulator()
        #expect(acc.event(source: .finger, phase: .update, axis: 0, delta: 0.003) == nil)
        #expect(acc.event(source: .finger, phase: .update, axis: 0, delta: .nan) == nil)
        #expect(acc.event(source: .finger, phase: .update, axis: 0, delta: .infinity) == nil)
        #expect(acc.event(source: .wheel, phase: .begin, axis: 0, delta: 1) == nil)   // would be a source switch
        #expect(acc.event(source: .finger, phase: .update, axis: 0, delta: 0.003)?.delta == 1)
    }

    @Test func saturatesBothWays() {
        var acc = ScrollAccumulator()
        #expect(acc.event(source: .continuous, phase: .none, axis: 0, delta: -1e12)?.delta == .min)
        #expect(acc.event(source: .continuous, phase: .none, axis: 0, delta: 1e12)?.delta == .max)
        #expect(acc.event(source: .continuous, phase: .none, axis: 0, delta: 0.5)?.delta == 128)   // no stranded residue
    }

    @Test func scrollEventRules() throws {
        for source in ScrollSource.allCases {
            for phase in ScrollPhase.allCases {
                let e = ScrollEvent(source: source, phase: phase, axis: .horizontal, delta: 0)
                let legal = !(source.isWheel && phase != .none) && !(phase.isMomentum && !source.canGlide)
                #expect(e.isValid == legal, "\(source) \(phase)")
                if legal { #expect(try ScrollEvent(e.event) == e) }
            }
        }
        #expect(!ScrollEvent(source: .finger, phase: .end, axis: .vertical, delta: 1).isValid)
        #expect(throws: WireError.self) { try ScrollEvent(InputEvent.keyDown(vk: 1)) }
    }
}
