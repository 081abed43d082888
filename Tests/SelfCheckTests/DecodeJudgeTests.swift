import Foundation
import SelfCheck
import Testing

/// The decode section's judging fed recorded outputs: framemd5 lists that are equal, differ or
/// are short, a machine without a render node, a driver that does not initialise.
@Suite("check: decode judging")
struct DecodeJudgeTests {
    /// `ffmpeg -f framemd5` of three frames (recorded; the MD5s are of nothing in particular).
    static let reference = """
        #format: frame checksums
        #version: 2
        #hash: MD5
        #tb 0: 1/25
        #media_type 0: video
        #codec_id 0: rawvideo
        #dimensions 0: 320x180
        #sar 0: 1/1
        #stream#, dts,        pts, duration,     size, hash
        0,          0,          0,        1,    86400, 2b6f2d3e0c5e1a0a9d7f0a1b2c3d4e5f
        0,          1,          1,        1,    86400, 0f1e2d3c4b5a69788796a5b4c3d2e1f0
        0,          2,          2,        1,    86400, 00112233445566778899aabbccddeeff
        """

    @Test func parsesFrameMD5Output() {
        let d = FrameMD5Text.parse(Self.reference)
        #expect(d.count == 3)
        #expect(d[0] == FrameDigest(width: 320, height: 180, md5: "2b6f2d3e0c5e1a0a9d7f0a1b2c3d4e5f"))
        #expect(d[2].md5 == "00112233445566778899aabbccddeeff")
    }

    @Test func equalListsAreIdentical() {
        let d = FrameMD5Text.parse(Self.reference)
        #expect(FrameComparison.compare(reference: d, candidate: d) == .identical(frames: 3))
    }

    @Test func firstDifferingFrameIsReported() {
        let d = FrameMD5Text.parse(Self.reference)
        var other = d
        other[1].md5 = "ffffffffffffffffffffffffffffffff"
        other[2].md5 = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
        #expect(FrameComparison.compare(reference: d, candidate: other) == .differs(frame: 1, referenceFrames: 3, candidateFrames: 3))
        let (v, why) = DecodeJudge.clipVerdict(.init(name: "8-bit", comparison: .differs(frame: 1, referenceFrames: 3, candidateFrames: 3),
                                                     maxDifference: 4))
        #expect(v == .failed)
        #expect(why == "frame 1 differs from the software decode, max difference 4")
    }

    @Test func aMissingFrameIsADifferenceAtTheEnd() {
        let d = FrameMD5Text.parse(Self.reference)
        let c = FrameComparison.compare(reference: d, candidate: Array(d.prefix(2)))
        #expect(c == .differs(frame: 2, referenceFrames: 3, candidateFrames: 2))
        #expect(DecodeJudge.clipVerdict(.init(name: "x", comparison: c)).1 == "the VA-API rung put out 2 frames, the software rung 3")
    }

    @Test func aDifferentSizeIsADifference() {
        let d = FrameMD5Text.parse(Self.reference)
        var other = d
        other[0].width = 256
        #expect(FrameComparison.compare(reference: d, candidate: other) == .differs(frame: 0, referenceFrames: 3, candidateFrames: 3))
    }

    @Test func maxDifferenceIn8And16BitSamples() {
        #expect(PixelDifference.max([10, 20, 30], [10, 27, 29], bytesPerSample: 1) == 7)
        // 10-bit samples in the high bits of little-endian words (P010 layout): 0x0400 vs 0x0440.
        #expect(PixelDifference.max([0x00, 0x04, 0x40, 0x00], [0x40, 0x04, 0x40, 0x00], bytesPerSample: 2) == 0x40)
        #expect(PixelDifference.max([1, 2], [1], bytesPerSample: 1) == nil)
    }

    @Test func noRenderNodeIsNotAvailableNeverOK() {
        let s = DecodeJudge.judge(.init(nodes: [], rates: [.init(rung: "software", clip: "1080p", frames: 60, seconds: 0.5)]))
        #expect(s.findings[0].verdict == .notAvailable)
        #expect(s.findings[0].why.hasPrefix("no VA-API device"))
        // The software rung at 120 frames/s is fine, but the section is "not available", not "ok".
        #expect(s.findings[1].verdict == .ok)
        #expect(s.verdict == .notAvailable)
        #expect(!s.findings.contains { $0.verdict == .failed })
    }

    /// Each opened node says which fence its pictures take and why, as an informational finding
    /// after its profiles (it never changes the section's verdict); a node that did not open says nothing.
    @Test func theSyncPathIsReportedPerNode() {
        let node = DecodeObservation.Node(path: "/dev/dri/renderD128", kernelDriver: "xe", vendor: "Intel iHD driver 24.1.0",
                                          profiles: [.init(name: "Main", offered: true, clips: [.init(name: "8-bit 4:2:0", comparison: .identical(frames: 8))])],
                                          drmDriver: "xe", syncPath: "va-sync-surface",
                                          syncWhy: "xe is explicit-sync only: an exported buffer carries no decode fence, so the decode thread waits in vaSyncSurface")
        let s = DecodeJudge.judge(.init(nodes: [node, .init(path: "/dev/dri/renderD129", openError: "no driver")]))
        let sync = s.findings.filter { $0.subject.hasSuffix("decode sync") }
        #expect(sync.count == 1)
        #expect(sync.first?.subject == "/dev/dri/renderD128 decode sync")
        #expect(sync.first?.why.hasPrefix("va-sync-surface: xe is explicit-sync only") == true)
        #expect(sync.first?.informational == true && sync.first?.verdict == .ok)
        #expect(sync.first?.facts.contains(Fact("DRM driver", "xe")) == true)
        #expect(s.findings[0].subject == "/dev/dri/renderD128 HEVC Main")
    }

    @Test func aDriverThatDoesNotInitialiseIsNotAvailable() {
        let s = DecodeJudge.judge(.init(nodes: [.init(path: "/dev/dri/renderD128", kernelDriver: "virtio_gpu",
                                                      openError: "vaInitialize(/dev/dri/renderD128) failed: status 0x1")]))
        #expect(s.findings[0].verdict == .notAvailable)
        #expect(s.findings[0].why.contains("virtio_gpu"))
        #expect(s.findings[0].why.hasPrefix("no VA-API device"))
    }

    @Test func bitExactOnTheDriver() {
        let node = DecodeObservation.Node(path: "/dev/dri/renderD128", kernelDriver: "i915",
                                          vendor: "Intel iHD driver 23.1.1", profiles: [
            .init(name: "Main", offered: true, clips: [.init(name: "8-bit 4:2:0", comparison: .identical(frames: 8)),
                                                       .init(name: "3 slices", comparison: .identical(frames: 8))]),
            .init(name: "Main10", offered: false),
        ])
        let s = DecodeJudge.judge(.init(nodes: [node], rates: [.init(rung: "vaapi", clip: "1080p", frames: 60, seconds: 0.1)]))
        #expect(s.findings[0].verdict == .ok)
        #expect(s.findings[0].why == "bit-exact on Intel iHD driver 23.1.1: 2 clips, 16 frames equal to the software decode.")
        #expect(s.findings[0].facts.contains(Fact("rate 1080p", "600.0 frames/s")))
        #expect(s.findings[1].verdict == .notAvailable)  // Main10 not offered
    }

    @Test func aDifferingClipFailsTheProfile() {
        let node = DecodeObservation.Node(path: "/dev/dri/renderD128", vendor: "Mesa Gallium driver 22.3.6", profiles: [
            .init(name: "Main", offered: true, clips: [
                .init(name: "8-bit 4:2:0", comparison: .identical(frames: 8)),
                .init(name: "3 slices", comparison: .differs(frame: 3, referenceFrames: 8, candidateFrames: 8), maxDifference: 12),
            ]),
        ])
        let s = DecodeJudge.judge(.init(nodes: [node]))
        #expect(s.findings[0].verdict == .failed)
        #expect(s.findings[0].why == "3 slices: frame 3 differs from the software decode, max difference 12 (VA driver Mesa Gallium driver 22.3.6).")
        #expect(s.verdict == .failed)
    }

    @Test func aVADecodeErrorFails() {
        let node = DecodeObservation.Node(path: "/dev/dri/renderD128", vendor: "v", profiles: [
            .init(name: "Main", offered: true, clips: [.init(name: "8-bit 4:2:0", vaError: "vaEndPicture failed")]),
        ])
        #expect(DecodeJudge.judge(.init(nodes: [node])).findings[0].verdict == .failed)
    }

    @Test func slowSoftwareDecodeIsDegraded() {
        let s = DecodeJudge.judge(.init(nodes: [], rates: [.init(rung: "software", clip: "1080p", frames: 60, seconds: 2)]))
        #expect(s.findings[1].verdict == .degraded)
        #expect(s.findings[1].why == "libavcodec decodes 1080p at 30.0 frames/s, below the 60 a 1080p60 stream needs.")
    }
}
