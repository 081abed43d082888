import SelfCheck
import Testing

/// The display section's judging: connector choice, plane accept/refuse, HDR properties, flip
/// statistics, no device, a compositor.
@Suite("check: display judging")
struct DisplayJudgeTests {
    static let hdmi = DisplayObservation.Connector(
        name: "HDMI-A-1", connected: true,
        modes: [.init(name: "3840x2160", refreshMilliHz: 60000, preferred: true), .init(name: "1920x1080", refreshMilliHz: 59940, preferred: false)],
        hdrOutputMetadata: true, colorspace: true, possibleCRTCs: 0b1)
    static let card = DisplayObservation.Card(
        path: "/dev/dri/card0", driver: "i915",
        connectors: [.init(name: "DP-1", connected: false, modes: [], hdrOutputMetadata: true, colorspace: true), hdmi],
        planes: [.init(id: 31, kind: "primary", possibleCRTCs: 0b1, videoFormats: ["NV12": [0, 0x0100_0000_0000_0002]]),
                 .init(id: 40, kind: "overlay", possibleCRTCs: 0b10, videoFormats: ["P010": [0]])])

    func finding(_ s: Section, _ subject: String) -> Finding? { s.findings.first { $0.subject == subject } }

    @Test func noCardIsNotAvailable() {
        let s = DisplayJudge.judge(.init(cards: []))
        #expect(s.verdict == .notAvailable)
        #expect(finding(s, "KMS")?.verdict == .notAvailable)
        #expect(finding(s, "compositor") == nil)
        #expect(finding(s, "KMS")?.facts.first?.value.hasPrefix("not under a compositor") == true)
    }

    @Test func theFirstConnectedConnectorIsUsed() {
        let s = DisplayJudge.judge(.init(cards: [Self.card]))
        let c = finding(s, "HDMI-A-1")
        #expect(c?.verdict == .ok)
        #expect(c?.why == "HDMI-A-1 is connected; preferred mode 3840x2160@60.")
        #expect(finding(s, "HDR")?.verdict == .ok)
    }

    @Test func offeredButUntestedPlanesAreNotOK() {
        let s = DisplayJudge.judge(.init(cards: [Self.card]))
        let nv12 = finding(s, "NV12 plane")
        #expect(nv12?.verdict == .notAvailable)
        #expect(nv12?.facts.first?.value == "plane 31 (primary): linear I915_Y_TILED")
        // P010 is only on a plane of another CRTC: the CPU path.
        #expect(finding(s, "P010 plane")?.verdict == .degraded)
        #expect(finding(s, "flip run")?.verdict == .notAvailable)
    }

    @Test func planeAcceptAndRefuse() {
        let tests: [DisplayObservation.PlaneTest] = [
            .init(format: "NV12", source: "an exported VA-API surface", outcome: .accepted(plane: 31, kind: "primary", modifier: 0x0100_0000_0000_0002)),
            .init(format: "P010", source: "an exported VA-API surface", outcome: .cpuFallback(reason: "TEST_ONLY refused by every plane: EINVAL")),
        ]
        let s = DisplayJudge.judge(.init(cards: [Self.card], planeTests: tests))
        #expect(finding(s, "NV12 plane")?.verdict == .ok)
        #expect(finding(s, "NV12 plane")?.why == "an exported VA-API surface is accepted on plane 31 (primary) with modifier I915_Y_TILED by a TEST_ONLY commit.")
        #expect(finding(s, "P010 plane")?.verdict == .degraded)
        #expect(finding(s, "P010 plane")?.why.contains("CPU conversion path") == true)
    }

    @Test func aCardWithoutAtomicKMSIsASideFact() {
        let vgem = DisplayObservation.Card(path: "/dev/dri/card2",
                                           openError: "DRM client capability UNIVERSAL_PLANES refused: Operation not supported (errno 95)")
        let s = DisplayJudge.judge(.init(cards: [Self.card, vgem]))
        let f = finding(s, "/dev/dri/card2")
        #expect(f?.verdict == .notAvailable && f?.informational == true)
        #expect(f?.why.hasPrefix("/dev/dri/card2 is not an atomic KMS display device") == true)
        let denied = DisplayJudge.judge(.init(cards: [.init(path: "/dev/dri/card0", openError: "open: Permission denied (errno 13)")]))
        #expect(finding(denied, "/dev/dri/card0")?.verdict == .failed)
    }

    @Test func noConnectedDisplayFails() {
        var card = Self.card
        card.connectors = [card.connectors[0]]
        let s = DisplayJudge.judge(.init(cards: [card]))
        #expect(finding(s, "connector")?.verdict == .failed)
    }

    @Test func missingHDRPropertiesMeanSDR() {
        var card = Self.card
        card.connectors[1].hdrOutputMetadata = false
        let hdr = finding(DisplayJudge.judge(.init(cards: [card])), "HDR")
        #expect(hdr?.verdict == .notAvailable)
        #expect(hdr?.why == "HDMI-A-1 lacks HDR_OUTPUT_METADATA: HDR streams are shown in SDR.")
    }

    @Test func flipStatistics() {
        // 60 Hz, one interval of two periods (a missed vblank), otherwise exact.
        let p: UInt64 = 16_666_667
        var t: [UInt64] = [0]
        for i in 1...10 { t.append(t.last! + (i == 5 ? 2 * p : p)) }
        let s = FlipStatistics(.init(timestampsNs: t, periodNs: p))
        #expect(s.flips == 11)
        #expect(s.missedVblanks == 1)
        #expect(abs(s.meanIntervalNs - 1.1 * Double(p)) < 1)
        #expect(s.jitterNs > 4_000_000 && s.jitterNs < 6_000_000)
        let d = finding(DisplayJudge.judge(.init(cards: [Self.card], flipRun: .init(timestampsNs: t, periodNs: p), displayRequested: true)), "flip run")
        #expect(d?.verdict == .degraded)
    }

    @Test func aCleanFlipRunIsOK() {
        let p: UInt64 = 16_666_667
        let t = (0..<180).map { UInt64($0) * p + ($0 % 2 == 0 ? 0 : 50_000) }
        let d = finding(DisplayJudge.judge(.init(cards: [Self.card], flipRun: .init(timestampsNs: t, periodNs: p), displayRequested: true)), "flip run")
        #expect(d?.verdict == .ok)
        #expect(d?.why == "180 flips: refresh interval 16.67 ms (60 Hz), jitter 0.05 ms, 0 missed vblanks.")
    }

    @Test func flipsWithoutARealVblankAreNotMeasured() {
        let t = (0..<50).map { UInt64($0) * 2_000_000 }  // every 2 ms on a 60 Hz mode: a virtual GPU
        let d = finding(DisplayJudge.judge(.init(cards: [Self.card], flipRun: .init(timestampsNs: t, periodNs: 16_666_667), displayRequested: true)), "flip run")
        #expect(d?.verdict == .notAvailable)
        #expect(d?.why.contains("no real vblank") == true)
    }

    @Test func aFailedFlipRunFails() {
        let d = finding(DisplayJudge.judge(.init(cards: [Self.card], flipRunError: "not DRM master: EACCES", displayRequested: true)), "flip run")
        #expect(d?.verdict == .failed)
    }

    @Test func underWaylandAnUnreachableCompositorIsNotAvailable() {
        let w = WaylandObservation(display: "wayland-0", error: "no Wayland compositor at wayland-0: No such file or directory")
        let s = DisplayJudge.judge(.init(compositor: .wayland(w), cards: [Self.card]))
        #expect(finding(s, "compositor")?.verdict == .notAvailable)
        #expect(finding(s, "compositor")?.why.contains("the probe could not talk to the compositor") == true)
    }
}
