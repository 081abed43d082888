import Testing
@testable import HEVC

@Suite struct NALUnitTypeTests {
    @Test func irapRange() {
        #expect(NALUnitType.idrWRADL.isIRAP && NALUnitType.craNUT.isIRAP && NALUnitType.blaNLP.isIRAP)
        #expect(!NALUnitType.trailR.isIRAP && !NALUnitType.sps.isIRAP)
    }
}
