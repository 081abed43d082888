import Testing
import Screen
@testable import Display

/// The order in which the presenter reaches a fitted picture (issue 29, "What to build" 2: the
/// plane's scaler when a TEST_ONLY commit accepts it; where none scales, the fallback — a CPU
/// scale within its budget, else 1:1 with the stats saying why), and the CPU scale's budget.
@Suite struct FitAttemptsTests {
    static let nv12Primary = PlanePlan(plane: 31, kind: .primary, format: .nv12, modifier: FormatModifier.linear)
    static let nv12Overlay = PlanePlan(plane: 40, kind: .overlay, format: .nv12, modifier: FormatModifier.linear,
                                       backgroundPlane: 31)
    static let xrgb = PlanePlan(plane: 31, kind: .primary, format: .xrgb8888, modifier: FormatModifier.linear)
    static let demo = (width: 640, height: 360)
    static let place = PixelRect(x: 0, y: 96, width: 1024, height: 576)
    static let oneToOne = PixelRect(x: 192, y: 204, width: 640, height: 360)

    @Test func planesFirstThenTheCPUThenOneToOneWithTheReason() {
        let a = FitAttempts.attempts(plans: [Self.nv12Primary, Self.nv12Overlay, Self.xrgb], picture: Self.demo,
                                     place: Self.place, oneToOne: Self.oneToOne, cpuFit: .allowed)
        #expect(a.map(\.plan.plane) == [31, 40, 31, 31, 40, 31])
        #expect(a.map(\.route.name) == ["plane", "plane", "cpu", "1:1", "1:1", "1:1"])
        #expect(a.prefix(3).allSatisfy { $0.destination == Self.place })
        #expect(a.suffix(3).allSatisfy { $0.destination == Self.oneToOne })
        guard case .oneToOne(let why) = a[3].route else { Issue.record("no reason"); return }
        #expect(why == "no plane scales 640x360 → 1024x576 and the XRGB8888 plane was refused")
    }

    /// bochs-drm and virtio-gpu: only XRGB8888 on one primary that does not scale.
    @Test func withoutAYUVPlaneTheCPUScalesUntilItsBudgetIsSpent() {
        let fits = FitAttempts.attempts(plans: [Self.xrgb], picture: Self.demo, place: Self.place, oneToOne: Self.oneToOne,
                                        cpuFit: .allowed)
        #expect(fits.map(\.route) == [.cpu, .oneToOne(why: "no plane takes the picture's format and the XRGB8888 plane was refused")])
        let spent = FitAttempts.attempts(plans: [Self.xrgb], picture: Self.demo, place: Self.place, oneToOne: Self.oneToOne,
                                         cpuFit: .overBudget(meanNs: 23_440_000, budgetNs: 8_333_333))
        #expect(spent.map(\.destination) == [Self.oneToOne])
        #expect(spent.first?.route == .oneToOne(why: "no plane takes the picture's format; the CPU scale took 23.4 ms a picture, over its budget of 8.3 ms"))
    }

    @Test func importedPicturesStayZeroCopyRatherThanBeScaledOnTheCPU() {
        let a = FitAttempts.attempts(plans: [Self.nv12Primary], picture: Self.demo, place: Self.place, oneToOne: Self.oneToOne,
                                     cpuFit: .imported)
        #expect(a.map(\.route.name) == ["plane", "1:1"])
        #expect(a[1].route.description.contains("imported pictures stay zero-copy"))
    }

    @Test func aPictureAtItsOwnSizeOrLargerHasNoOneToOneFallback() {
        let own = PixelRect(x: 0, y: 0, width: 640, height: 360)
        let same = FitAttempts.attempts(plans: [Self.nv12Primary, Self.xrgb], picture: Self.demo, place: own, oneToOne: own,
                                        cpuFit: .overBudget(meanNs: 1, budgetNs: 0))
        #expect(same.map(\.route) == [.unscaled, .unscaled])
        // 1920x1080 on 1280x800: scaled down either way; the CPU does it whatever it costs.
        let down = PixelRect(x: 0, y: 40, width: 1280, height: 720)
        let larger = FitAttempts.attempts(plans: [Self.nv12Primary, Self.xrgb], picture: (1920, 1080), place: down, oneToOne: down,
                                          cpuFit: .overBudget(meanNs: 30_000_000, budgetNs: 8_333_333))
        #expect(larger.map(\.route) == [.plane, .cpu])
    }

    @Test func theBudgetJudgesEightPicturesAfterTwoOfWarmUpOnce() {
        var b = CPUFitBudget(budgetNs: 8_000_000)
        for _ in 0..<CPUFitBudget.warmUp { #expect(b.record(100_000_000) == nil) }  // page faults: not judged
        for _ in 0..<7 { #expect(b.record(9_000_000) == nil) }
        #expect(b.record(9_000_000) == 9_000_000)
        #expect(b.record(50_000_000) == nil, "judged once")
        #expect(b.meanNs == 9_000_000)
        var ok = CPUFitBudget(budgetNs: 8_000_000)
        for _ in 0..<(CPUFitBudget.warmUp + CPUFitBudget.judged) { #expect(ok.record(3_000_000) == nil) }
        #expect(ok.meanNs == 3_000_000)
    }

    /// An emulated CPU (the VM's TCG guest: 90–600 ms a picture) is refused at its first judged
    /// picture, not after eight more seconds of slow pictures.
    @Test func oneHopelessConversionEndsTheJudging() {
        var b = CPUFitBudget(budgetNs: 8_000_000)
        for _ in 0..<CPUFitBudget.warmUp { _ = b.record(240_000_000) }
        #expect(b.record(240_000_000) == 240_000_000)
        #expect(b.record(1_000) == nil)
        var spike = CPUFitBudget(budgetNs: 8_000_000)
        for _ in 0..<CPUFitBudget.warmUp { _ = spike.record(1) }
        #expect(spike.record(20_000_000) == nil, "2.5× the budget once: the average decides")
        for _ in 0..<7 { #expect(spike.record(2_000_000) == nil) }
        #expect(spike.meanNs == 4_250_000)
    }
}
