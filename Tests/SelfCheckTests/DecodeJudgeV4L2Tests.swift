import SelfCheck
import Testing

@Suite("Check: V4L2 stateless decoders in the decode section")
struct DecodeJudgeV4L2Tests {
    static let software = DecodeObservation.Rate(rung: "software", clip: "1080p", frames: 60, seconds: 0.5)

    /// An x86 box: no media device. V4L2 says so as a side fact; the section's verdict comes from
    /// VA-API and the software rung as before.
    @Test func noV4L2DecoderIsASideFact() {
        let s = DecodeJudge.judge(.init(nodes: [], rates: [Self.software],
                                        v4l2: .init(absentReason: "no media controller device (/dev/media*)")))
        let v = s.findings.first { $0.subject == "V4L2" }
        #expect(v?.verdict == .notAvailable && v?.informational == true)
        #expect(v?.why == "no V4L2 stateless HEVC decoder: no media controller device (/dev/media*).")
        #expect(s.findings[0].why.hasPrefix("no VA-API device") && s.findings[1].subject == "software rung")
        #expect(s.verdict == .notAvailable)
    }

    /// With VA-API decoding bit-exact, an absent V4L2 decoder leaves the section ok.
    @Test func vaapiOkStaysOk() {
        let node = DecodeObservation.Node(path: "/dev/dri/renderD128", vendor: "Intel iHD", profiles: [
            .init(name: "Main", offered: true, clips: [.init(name: "8-bit 4:2:0", comparison: .identical(frames: 8))]),
        ])
        let s = DecodeJudge.judge(.init(nodes: [node], rates: [Self.software], v4l2: .init(absentReason: "none")))
        #expect(s.verdict == .ok)
    }

    /// visl: the controls were taken, the pictures are test patterns: not available, never ok.
    @Test func theVirtualDecoderIsNotAvailable() {
        let visl = V4L2DecodeObservation.Device(
            path: "/dev/video0", mediaPath: "/dev/media0", driver: "visl", card: "visl", isVirtual: true,
            mode: "slice-based, no start codes", profiles: [
                .init(name: "Main", offered: true, clips: [.init(name: "8-bit 4:2:0"), .init(name: "3 slices")]),
                .init(name: "Main10", offered: true, clips: [.init(name: "10-bit BT.2020 PQ", vaError: "refused")]),
            ])
        let s = DecodeJudge.judge(.init(nodes: [], rates: [Self.software], v4l2: .init(devices: [visl])))
        let f = s.findings.first { $0.subject == "/dev/video0 (visl)" }
        #expect(f?.verdict == .notAvailable && f?.informational == true)
        #expect(f?.why == "visl is the kernel's virtual test decoder: it took the controls of 2 of 3 clips but draws test patterns, so the kiosk never decodes on it.")
        #expect(f?.facts.contains(Fact("10-bit BT.2020 PQ", "controls refused or decode failed: refused")) == true)
    }

    /// A real board: bit-exact clips are ok, and the box's missing VA-API becomes a side fact.
    @Test func aBitExactBoardIsOk() {
        let pi = V4L2DecodeObservation.Device(
            path: "/dev/video19", mediaPath: "/dev/media1", driver: "rpi-hevc-dec", card: "rpi-hevc-dec", isVirtual: false,
            mode: "frame-based, no start codes", profiles: [
                .init(name: "Main", offered: true, clips: [.init(name: "8-bit 4:2:0", comparison: .identical(frames: 8)),
                                                           .init(name: "3 slices", comparison: .identical(frames: 8))]),
                .init(name: "Main10", offered: false),
            ])
        let s = DecodeJudge.judge(.init(nodes: [], rates: [Self.software, .init(rung: "v4l2", clip: "1080p", frames: 60, seconds: 0.5)],
                                        v4l2: .init(devices: [pi])))
        let main = s.findings.first { $0.subject == "/dev/video19 (rpi-hevc-dec) HEVC Main" }
        #expect(main?.verdict == .ok)
        #expect(main?.why == "bit-exact on rpi-hevc-dec: 2 clips, 16 frames equal to the software decode.")
        #expect(main?.facts.contains(Fact("rate 1080p", "120.0 frames/s")) == true)
        #expect(s.findings[0].why.hasPrefix("no VA-API device") && s.findings[0].informational)
        // Main10 without a display format counts, as it does for a VA-API driver without it
        #expect(s.verdict == .notAvailable)
        #expect(s.findings.filter { !$0.informational && $0.verdict != .ok }.map(\.subject) == ["/dev/video19 (rpi-hevc-dec) HEVC Main10"])
    }

    /// A differing picture fails, naming the V4L2 rung.
    @Test func aDifferingClipFails() {
        let d = V4L2DecodeObservation.Device(
            path: "/dev/video1", mediaPath: "/dev/media0", driver: "rkvdec", card: "rkvdec", isVirtual: false, mode: "frame-based, no start codes",
            profiles: [.init(name: "Main", offered: true, clips: [
                .init(name: "3 slices", comparison: .differs(frame: 2, referenceFrames: 8, candidateFrames: 7)),
            ])])
        let s = DecodeJudge.judge(.init(nodes: [], v4l2: .init(devices: [d])))
        let f = s.findings.first { $0.subject == "/dev/video1 (rkvdec) HEVC Main" }
        #expect(f?.verdict == .failed)
        #expect(f?.why == "3 slices: frame 2 differs from the software decode (V4L2 driver rkvdec).")
        #expect(s.verdict == .failed)
    }
}
