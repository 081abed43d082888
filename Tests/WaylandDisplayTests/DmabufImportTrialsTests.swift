import Testing
@testable import WaylandDisplay

@Suite struct DmabufImportTrialsTests {
    let nv12 = FormatModifier(format: 0x3231_564E, modifier: 0)            // 'NV12', linear
    let p010Tiled = FormatModifier(format: 0x3031_3050, modifier: 0x0100_0000_0000_0002)

    @Test func theFirstPictureAsksAndTheAnswerDecidesTheRest() {
        var trials = DmabufImportTrials()
        let key = DmabufImportTrials.Key(pair: nv12, width: 1920, height: 1080)
        #expect(trials.step(for: key) == .askFirst)
        #expect(trials.step(for: key) == .readBack)   // still unanswered: never create_immed
        #expect(trials.verdicts[key] == .pending)
        trials.record(key, accepted: true)
        #expect(trials.step(for: key) == .importNow)
        #expect(trials.step(for: key) == .importNow)
        #expect(trials.verdicts == [key: .accepted])
    }

    @Test func aRefusedCombinationIsNeverTriedAgainButOthersAre() {
        var trials = DmabufImportTrials()
        let big = DmabufImportTrials.Key(pair: p010Tiled, width: 7680, height: 4320)
        let small = DmabufImportTrials.Key(pair: p010Tiled, width: 3840, height: 2160)
        #expect(trials.step(for: big) == .askFirst)
        trials.record(big, accepted: false)
        for _ in 0..<3 { #expect(trials.step(for: big) == .readBack) }
        #expect(trials.verdicts == [big: .refused])
        // the same pair at another size is its own question (a size limit, not the pair)
        #expect(trials.step(for: small) == .askFirst)
        trials.record(small, accepted: true)
        #expect(trials.step(for: small) == .importNow)
        #expect("\(big)" == "P010:0x100000000000002 7680x4320")
    }
}
