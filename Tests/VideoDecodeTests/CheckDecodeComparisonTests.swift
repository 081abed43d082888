import Foundation
import SelfCheck
import SelfCheckDecode
import Testing
import VideoDecode

/// `punktfunk-kiosk check`'s decode section end to end below the command: the embedded clips
/// through libavcodec, and through the VA-API rung over the recording driver (which records the
/// parameter buffers but decodes no pixels, so the comparison path must report the first frame
/// as different — the path a faulty real driver takes).
@Suite("check: decode comparison (embedded clips, recording VA driver)", .serialized)
struct CheckDecodeComparisonTests {
    @Test func theEmbeddedClipsDecodeInSoftwareAndMatchThemselves() throws {
        let expected = ["8-bit 4:2:0": (8, 320, 180, 1), "10-bit BT.2020 PQ": (8, 320, 180, 2),
                        "resolution change": (8, 320, 180, 1), "3 slices": (8, 320, 180, 1)]
        for clip in CheckClip.comparison {
            let a = try DecodeCheck.softwarePictures(clip.bytes)
            let want = try #require(expected[clip.name])
            #expect(a.count == want.0, "\(clip.name)")
            #expect(a.first?.digest.width == want.1 && a.first?.digest.height == want.2, "\(clip.name)")
            #expect(a.first?.bytesPerSample == want.3, "\(clip.name)")
            #expect(FrameComparison.compare(reference: a.map(\.digest), candidate: a.map(\.digest)) == .identical(frames: want.0))
        }
        // The resolution change really changes size mid-clip.
        let rc = try DecodeCheck.softwarePictures(CheckClip.comparison[2].bytes)
        #expect(rc.last?.digest.width == 256 && rc.last?.digest.height == 144)
        let rate = try DecodeCheck.softwareRate(CheckClip.rate, passes: 1)
        #expect(rate.frames == 10)
    }

    @Test func noRenderNodeSaysNoVAAPIDevice() {
        let o = DecodeCheck.observe(nodes: [], ratePasses: 0)
        #expect(o.nodes.isEmpty && o.softwareError == nil)
        let s = DecodeJudge.judge(o)
        #expect(s.verdict == .notAvailable)
        #expect(s.findings[0].why.hasPrefix("no VA-API device"))
    }

    @Test func aNodeThatDoesNotOpenIsNotAvailable() {
        let o = DecodeCheck.observe(nodes: ["/nonexistent/renderD200"], ratePasses: 0)
        #expect(o.nodes.first?.openError != nil)
        #expect(DecodeJudge.judge(o).verdict == .notAvailable)
    }

    @Test(.enabled(if: VARecordingDriver.isAvailable, VARecordingDriver.skipReason))
    func theRecordingDriverTakesTheComparisonPath() throws {
        let device = VARecordingDriver.Device()
        let o = DecodeCheck.observe(nodes: [device.path], open: { _ in try device.connect() }, ratePasses: 1)
        let node = try #require(o.nodes.first)
        #expect(node.openError == nil)
        let main = try #require(node.profiles.first { $0.name == "Main" })
        #expect(main.offered)
        #expect(main.clips.map(\.name) == ["8-bit 4:2:0", "resolution change", "3 slices"])
        for clip in main.clips {
            #expect(clip.vaError == nil, "\(clip.name): \(clip.vaError ?? "")")
            // Every picture came out (the parameters were accepted) but the pixels are not the
            // decode's: frame 0 differs, with a real maximum difference.
            #expect(clip.comparison == .differs(frame: 0, referenceFrames: 8, candidateFrames: 8), "\(clip.name)")
            #expect((clip.maxDifference ?? 0) > 0, "\(clip.name)")
        }
        // Each clip notes its first exported picture (the compositor's dma-buf verdict uses it).
        #expect(main.clips.allSatisfy { $0.exported?.fourcc == 0x3231_564E }, "\(main.clips.map(\.exported))")  // 'NV12'
        #expect(o.rates.contains { $0.rung == "vaapi" && $0.frames == 10 })
        let s = DecodeJudge.judge(o)
        #expect(s.verdict == .failed)
        #expect(s.findings[0].why.hasPrefix("8-bit 4:2:0: frame 0 differs from the software decode, max difference"))
    }
}
