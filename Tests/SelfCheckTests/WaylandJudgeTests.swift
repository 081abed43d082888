import SelfCheck
import Testing

/// The display section under a compositor, fed recorded probe results: the globals of sway 1.7,
/// weston 10 and cage 0.1.4 headless as measured here (research/wayland.md §2), and a weston
/// with a GPU whose linux-dmabuf v4 feedback has a scan-out and a composited tranche.
@Suite("check: display judging under a Wayland compositor")
struct WaylandJudgeTests {
    /// WaylandDisplay's `KioskProtocols.all`, copied: the backend's own notices.
    static let kiosk: [WaylandObservation.KioskProtocol] = [
        .init(interface: "wl_compositor", version: 4, minimum: 4, required: true,
              without: "the compositor offers no wl_compositor ≥ 4 (damage_buffer)"),
        .init(interface: "xdg_wm_base", version: 5, required: true,
              without: "the compositor offers no xdg_wm_base (xdg-shell): it cannot show a fullscreen window (gamescope in Debian 12 shows X11 clients only)"),
        .init(interface: "wl_shm", version: 1, required: true, without: "the compositor offers no wl_shm"),
        .init(interface: "zwp_linux_dmabuf_v1", version: 4, minimum: 4, required: false,
              without: "no zwp_linux_dmabuf_v1 v4: VA-API pictures are read back and shown through wl_shm"),
        .init(interface: "wp_presentation", version: 1, required: false,
              without: "no wp_presentation: no glass times, frames count as shown on commit"),
        .init(interface: "wp_viewporter", version: 1, required: false,
              without: "no wp_viewporter: pictures are drawn at the surface size, letterboxed on the CPU"),
        .init(interface: "wl_subcompositor", version: 1, required: false,
              without: "no wl_subcompositor: panels are blended into the picture"),
        .init(interface: "wl_seat", version: 8, required: false,
              without: "no wl_seat: keyboard and mouse are not read (pads stay on evdev)"),
        .init(interface: "zwp_relative_pointer_manager_v1", version: 1, required: false,
              without: "no pointer lock / relative pointer: the pointer moves the host's cursor absolutely while streaming"),
        .init(interface: "zwp_pointer_constraints_v1", version: 1, required: false,
              without: "no pointer lock / relative pointer: the pointer moves the host's cursor absolutely while streaming"),
        .init(interface: "zwp_keyboard_shortcuts_inhibit_manager_v1", version: 1, required: false,
              without: "no keyboard shortcuts inhibitor: the compositor keeps its shortcuts (the escape chord still works)"),
        .init(interface: "zwp_idle_inhibit_manager_v1", version: 1, required: false,
              without: "no zwp_idle_inhibit_manager_v1: the screen may blank while streaming"),
        .init(interface: "wp_content_type_manager_v1", version: 1, required: false,
              without: "no wp_content_type_manager_v1: no \"game\" content hint"),
    ]

    static let headless = WaylandObservation.Output(
        name: "HEADLESS-1", scale: 1, modes: [.init(name: "1280x720", refreshMilliHz: 60000, preferred: true)],
        current: .init(name: "1280x720", refreshMilliHz: 60000, preferred: true))

    static func observe(_ name: String, _ globals: [(String, UInt32)], clock: Int32? = nil, seats: [WaylandObservation.Seat] = [],
                        feedback: WaylandObservation.Feedback? = nil) -> WaylandObservation {
        WaylandObservation(display: "wayland-1", name: name, nameSource: "the socket's peer process (SO_PEERCRED pid 42, /proc/42/comm)",
                           globals: globals.map { .init($0.0, $0.1) }, kioskProtocols: kiosk, shmFormats: [0, 1],
                           presentationClockID: clock, outputs: [headless], seats: seats, feedback: feedback)
    }

    static let sway = observe("sway", [
        ("wl_shm", 1), ("wl_compositor", 4), ("wl_subcompositor", 1), ("wl_data_device_manager", 3), ("wl_output", 4),
        ("wp_viewporter", 1), ("wp_presentation", 1), ("xdg_wm_base", 2), ("zwp_relative_pointer_manager_v1", 1),
        ("zwp_pointer_constraints_v1", 1), ("zwp_keyboard_shortcuts_inhibit_manager_v1", 1), ("zwp_idle_inhibit_manager_v1", 1),
        ("zwp_virtual_keyboard_manager_v1", 1), ("wl_seat", 7),
    ], clock: 1, seats: [.init(name: "seat0", capabilities: 0)])

    static let westonGlobals: [(String, UInt32)] = [
        ("wl_compositor", 4), ("wl_subcompositor", 1), ("wp_viewporter", 1), ("zxdg_output_manager_v1", 3), ("wp_presentation", 1),
        ("zwp_relative_pointer_manager_v1", 1), ("zwp_pointer_constraints_v1", 1), ("zwp_input_timestamps_manager_v1", 1),
        ("weston_capture_v1", 1), ("wl_shm", 1), ("xdg_wm_base", 3), ("wl_output", 4),
    ]
    static let weston = observe("weston", westonGlobals, clock: 4)

    static let cage = observe("cage", [
        ("wl_shm", 1), ("wl_compositor", 4), ("wl_subcompositor", 1), ("wl_data_device_manager", 3), ("wl_output", 3),
        ("xdg_wm_base", 2), ("zwp_idle_inhibit_manager_v1", 1), ("zwlr_screencopy_manager_v1", 3), ("wl_seat", 7),
    ], seats: [.init(name: "seat0", capabilities: 0)])

    static let card = DisplayObservation.Card(path: "/dev/dri/card0", driver: "i915")
    static let dri0: UInt64 = 0xE200      // 226:0
    static let render128: UInt64 = 0xE280 // 226:128
    static let yTiled: UInt64 = 0x0100_0000_0000_0002
    static let nv12: UInt32 = 0x3231_564E  // 'NV12'
    static let p010: UInt32 = 0x3031_3050  // 'P010'
    static let xr24: UInt32 = 0x3432_5258  // 'XR24'

    static let gpuFeedback = WaylandObservation.Feedback(mainDevice: render128, tranches: [
        .init(targetDevice: dri0, pairs: [.init(fourcc: xr24, modifier: 0), .init(fourcc: nv12, modifier: 0)], scanout: true),
        .init(targetDevice: render128, pairs: [.init(fourcc: xr24, modifier: 0), .init(fourcc: xr24, modifier: yTiled),
                                               .init(fourcc: nv12, modifier: 0), .init(fourcc: nv12, modifier: yTiled),
                                               .init(fourcc: p010, modifier: 0)], scanout: false),
    ])
    static let westonGPU = observe("weston", westonGlobals + [("zwp_linux_dmabuf_v1", 4)], clock: 1, feedback: gpuFeedback)

    func judge(_ w: WaylandObservation, exports: [VAExport] = [], unavailable: String? = "no VA-API device (no DRM render node)") -> Section {
        DisplayJudge.judge(.init(compositor: .wayland(w), cards: [], vaExports: exports, vaUnavailable: unavailable))
    }

    func finding(_ s: Section, _ subject: String) -> Finding? { s.findings.first { $0.subject == subject } }
    func degraded(_ s: Section) -> [String] { s.findings.filter { $0.verdict == .degraded }.map(\.subject) }

    @Test func swayHasWhatIsRequiredAndLacksDmabufAndTheContentHint() {
        let s = judge(Self.sway)
        let c = finding(s, "compositor")
        #expect(c?.verdict == .ok)
        #expect(c?.why == "sway (wayland-1) offers what the Wayland backend needs: wl_compositor v4, xdg_wm_base v2, wl_shm v1.")
        #expect(c?.facts.first?.value == "sway — the socket's peer process (SO_PEERCRED pid 42, /proc/42/comm)")
        #expect(c?.facts.contains(Fact("presentation clock", "MONOTONIC")) == true)
        #expect(c?.facts.contains(Fact("output HEADLESS-1", "1280x720@60, scale 1")) == true)
        #expect(c?.facts.contains(Fact("seat seat0", "no devices")) == true)
        #expect(c?.facts.contains(Fact("wl_shm formats", "ARGB8888 XRGB8888")) == true)
        #expect(degraded(s) == ["zwp_linux_dmabuf_v1", "wp_content_type_manager_v1"])
        #expect(finding(s, "zwp_linux_dmabuf_v1")?.why == "no zwp_linux_dmabuf_v1 v4: VA-API pictures are read back and shown through wl_shm.")
        // No feedback: the import verdict is a side fact, the missing protocol already says it.
        #expect(finding(s, "dma-buf import")?.verdict == .notAvailable)
        #expect(finding(s, "dma-buf import")?.informational == true)
        // No DRM card but the compositor presents: the KMS finding does not colour the section.
        #expect(finding(s, "KMS")?.informational == true)
        #expect(s.verdict == .degraded)
    }

    @Test func westonHeadlessHasMonotonicRawAndNoSeat() {
        let s = judge(Self.weston)
        let c = finding(s, "compositor")
        #expect(c?.verdict == .ok)
        #expect(c?.why.contains("xdg_wm_base v3") == true)
        #expect(c?.facts.contains(Fact("presentation clock", "MONOTONIC_RAW (mapped onto MONOTONIC, re-sampled about once a second)")) == true)
        #expect(c?.facts.contains(Fact("seats", "none (no wl_seat)")) == true)
        #expect(degraded(s) == ["zwp_linux_dmabuf_v1", "wl_seat", "zwp_keyboard_shortcuts_inhibit_manager_v1",
                                "zwp_idle_inhibit_manager_v1", "wp_content_type_manager_v1"])
        #expect(finding(s, "wl_seat")?.why == "no wl_seat: keyboard and mouse are not read (pads stay on evdev).")
        #expect(finding(s, "zwp_keyboard_shortcuts_inhibit_manager_v1")?.why
                == "no keyboard shortcuts inhibitor: the compositor keeps its shortcuts (the escape chord still works).")
    }

    @Test func cageLacksViewporterAndPresentation() {
        let s = judge(Self.cage)
        #expect(finding(s, "compositor")?.verdict == .ok)
        #expect(degraded(s).contains("wp_viewporter"))
        #expect(degraded(s).contains("wp_presentation"))
        #expect(degraded(s).contains("zwp_pointer_constraints_v1"))
        #expect(finding(s, "wp_viewporter")?.why == "no wp_viewporter: pictures are drawn at the surface size, letterboxed on the CPU.")
        #expect(finding(s, "wp_presentation")?.why == "no wp_presentation: no glass times, frames count as shown on commit.")
        #expect(finding(s, "compositor")?.facts.contains { $0.name == "presentation clock" } == false)
        // The protocols it does offer are listed with the version bound.
        #expect(finding(s, "zwp_linux_dmabuf_v1")?.facts.first == Fact("bound", "wl_subcompositor v1, wl_seat v7, zwp_idle_inhibit_manager_v1 v1"))
    }

    @Test func aCompositorWithoutXdgShellFails() {
        let gamescope = Self.observe("gamescope", [("wl_compositor", 4), ("wl_shm", 1), ("wl_output", 3), ("wl_seat", 5)])
        let s = judge(gamescope)
        let c = finding(s, "compositor")
        #expect(c?.verdict == .failed)
        #expect(c?.why.contains("no xdg_wm_base (xdg-shell)") == true)
        #expect(finding(s, "KMS")?.informational == false)
        #expect(s.verdict == .failed)
    }

    @Test func anOldDmabufCountsAsMissing() {
        let s = judge(Self.observe("weston", Self.westonGlobals + [("zwp_linux_dmabuf_v1", 3)], clock: 1))
        #expect(finding(s, "zwp_linux_dmabuf_v1")?.why.hasSuffix("(only v3, needs v4).") == true)
    }

    @Test func feedbackTranchesAgainstTheVAExports() {
        let exports = [VAExport(node: "/dev/dri/renderD128", device: Self.render128, format: "NV12", fourcc: Self.nv12, modifier: Self.yTiled),
                       VAExport(node: "/dev/dri/renderD128", device: Self.render128, format: "P010", fourcc: Self.p010,
                                modifier: 0x0100_0000_0000_0006)]
        let s = judge(Self.westonGPU, exports: exports, unavailable: nil)
        #expect(!degraded(s).contains("zwp_linux_dmabuf_v1"))
        let nv12 = finding(s, "NV12 dma-buf")
        #expect(nv12?.verdict == .ok)
        #expect(nv12?.why == "weston lists NV12 with modifier I915_Y_TILED (as /dev/dri/renderD128 exports it) in tranche 1 (composited, not scan-out).")
        #expect(nv12?.facts.first == Fact("main device", "226:128"))
        #expect(nv12?.facts.contains(Fact("tranche 0 (scan-out, device 226:0)", "NV12: linear; 1 other format (XR24)")) == true)
        #expect(nv12?.facts.contains(Fact("tranche 1 (composited, device 226:128)", "NV12: linear I915_Y_TILED; P010: linear; 1 other format (XR24)")) == true)
        let p010 = finding(s, "P010 dma-buf")
        #expect(p010?.verdict == .degraded)
        #expect(p010?.why == "weston does not list P010 with modifier 0x100000000000006, which /dev/dri/renderD128 exports: VA-API pictures are read back and shown through wl_shm.")
    }

    @Test func aLinearExportGoesToTheScanoutTranche() {
        let exports = [VAExport(node: "/dev/dri/renderD128", device: Self.render128, format: "NV12", fourcc: Self.nv12, modifier: 0)]
        let s = judge(Self.westonGPU, exports: exports, unavailable: nil)
        #expect(finding(s, "NV12 dma-buf")?.why.hasSuffix("in scan-out tranche 0: it may go on a plane directly.") == true)
    }

    @Test func aDecoderOnAnotherGPUIsNoted() {
        let renderD129: UInt64 = 0xE281  // 226:129
        let exports = [VAExport(node: "/dev/dri/renderD129", device: renderD129, format: "NV12", fourcc: Self.nv12, modifier: 0)]
        let d = finding(judge(Self.westonGPU, exports: exports, unavailable: nil), "NV12 dma-buf")
        #expect(d?.verdict == .ok)
        #expect(d?.facts.contains { $0.name == "device" && $0.value.hasPrefix("the compositor renders on 226:128") } == true)
        #expect(d?.facts.contains(Fact("exported by", "/dev/dri/renderD129 (device 226:129): NV12 with modifier linear")) == true)
    }

    @Test func feedbackWithoutAVADeviceIsNotAvailable() {
        let s = judge(Self.westonGPU)
        let d = finding(s, "dma-buf import")
        #expect(d?.verdict == .notAvailable)
        #expect(d?.informational == false)
        #expect(d?.why == "not known whether a decoded surface is accepted (it lists NV12/P010): no VA-API device (no DRM render node).")
    }

    @Test func unreadableFeedbackIsDegraded() {
        var w = Self.observe("weston", Self.westonGlobals + [("zwp_linux_dmabuf_v1", 4)], clock: 1)
        w.feedbackError = "unreadable: indexOutOfRange(index: 9, tableCount: 4)"
        #expect(finding(judge(w), "dma-buf import")?.verdict == .degraded)
    }
}
