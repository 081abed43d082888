import Foundation
import SelfCheck
import Testing

/// Report aggregation, exit status, text and JSON rendering, and the sound, input, network and
/// box judges fed recorded observations.
@Suite("check: report and the other sections")
struct ReportTests {
    static func report(_ sections: [Section]) -> Report { Report(program: "punktfunk-kiosk 0.0", sections: sections) }

    @Test func exitStatusFollowsFailures() {
        let ok = Self.report([Section(.box, [Finding("a", .ok, "fine.")]), Section(.decode, [Finding("b", .notAvailable, "no GPU.")])])
        #expect(ok.exitCode == 0)
        #expect(ok.verdict == .notAvailable)
        let degraded = Self.report([Section(.box, [Finding("a", .degraded, "slow.")])])
        #expect(degraded.exitCode == 0)
        let failed = Self.report([Section(.box, [Finding("a", .ok, "fine."), Finding("c", .failed, "broken.")])])
        #expect(failed.exitCode == 1)
        #expect(failed.section(.box)?.verdict == .failed)
    }

    @Test func informationalNotAvailableDoesNotColourTheSection() {
        let s = Section(.input, [Finding("devices", .ok, "1 keyboard."), Finding("CEC", .notAvailable, "none.", informational: true)])
        #expect(s.verdict == .ok)
        let t = Section(.input, [Finding("devices", .notAvailable, "none."), Finding("udev", .ok, "installed.")])
        #expect(t.verdict == .notAvailable)
    }

    @Test func textRendering() {
        let r = Self.report([Section(.decode, [Finding("VA-API", .notAvailable, "no VA-API device.", action: "Use software.",
                                                       facts: [Fact("nodes", "0")])])])
        let text = ReportText.render(r)
        #expect(text == """
            punktfunk-kiosk 0.0 check

            Decode: not available
              [not available] VA-API: no VA-API device.
                  → Use software.
                  nodes: 0

            Result: nothing failed (not available); exit 0.

            """)
        let failed = ReportText.render(Self.report([Section(.sound, [Finding("hw:0", .failed, "busy.")])]))
        #expect(failed.hasSuffix("Result: 1 check failed; exit 1.\n"))
    }

    @Test func jsonRenderingParses() throws {
        let r = Self.report([Section(.network, [Finding("mDNS port 5353", .ok, "bindable.", facts: [Fact("mode", "shared")])]),
                             Section(.sound, [Finding("default", .failed, "busy.", action: "Close it.")])])
        let json = ReportJSON.render(r)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["exit_code"] as? Int == 1)
        #expect(object["verdict"] as? String == "failed")
        let sections = try #require(object["sections"] as? [[String: Any]])
        #expect(sections.map { $0["id"] as? String } == ["network", "sound"])
        let f = try #require((sections[0]["findings"] as? [[String: Any]])?.first)
        #expect(f["subject"] as? String == "mDNS port 5353")
        #expect(f["facts"] as? [String: String] == ["mode": "shared"])
        #expect(f["action"] is NSNull)
        #expect(sections[1]["verdict"] as? String == "failed")
    }

    @Test func soundJudging() {
        let none = SoundJudge.judge(.init(cards: [], device: "default", reason: "no HDMI/DP outputs found", open: nil))
        #expect(none.verdict == .notAvailable)
        let ok = SoundJudge.judge(.init(cards: ["PCH: HDA Intel PCH"], device: "hw:CARD=PCH,DEV=3",
                                        reason: "the HDMI/DP output whose ELD names SAM QN65, the display on HDMI-A-1",
                                        open: .init(device: "hw:CARD=PCH,DEV=3", channels: 2...8, rates: 32000...192000,
                                                    periodFramesAsked: 240, periodFramesGranted: 240)))
        #expect(ok.verdict == .ok)
        #expect(ok.findings[0].why.hasPrefix("plays to hw:CARD=PCH,DEV=3 (the HDMI/DP output whose ELD names SAM QN65"))
        #expect(ok.findings[0].facts.contains(Fact("channels", "2–8")))
        let busy = SoundJudge.judge(.init(cards: ["PCH"], device: "default", reason: "no HDMI/DP outputs found",
                                          open: .init(device: "default", error: "Device or resource busy", periodFramesAsked: 240)))
        #expect(busy.verdict == .failed)
        let loopback = SoundJudge.judge(.init(cards: ["Loopback"], device: "default", reason: "r",
                                              open: .init(device: "default", rates: 4000...4_294_967_295, periodFramesAsked: 240)))
        #expect(loopback.findings[0].facts.contains(Fact("rates", "4000 Hz and up")))
        let no48 = SoundJudge.judge(.init(cards: ["X"], device: "hw:0", reason: "r",
                                          open: .init(device: "hw:0", rates: 44100...44100, periodFramesAsked: 240)))
        #expect(no48.verdict == .degraded)
    }

    @Test func inputJudging() {
        let rules = "/lib/udev/rules.d/70-punktfunk-kiosk.rules"
        let nothing = InputJudge.judge(.init(devices: [], udevRulesPath: rules, udevRulesInstalled: true))
        #expect(nothing.verdict == .notAvailable)
        let good = InputJudge.judge(.init(devices: [.init(node: "/dev/input/event3", name: "AT keyboard", kind: "keyboard"),
                                                    .init(node: "/dev/input/event7", name: "DualSense", kind: "pad")],
                                          dualSenseHidraw: [.init(node: "/dev/hidraw0", name: "DualSense", writable: true)],
                                          udevRulesPath: rules, udevRulesInstalled: true))
        #expect(good.verdict == .ok)
        #expect(good.findings[0].why == "1 keyboard, 1 pad: every one opens and can be grabbed.")
        let denied = InputJudge.judge(.init(devices: [.init(node: "/dev/input/event3", name: "kbd", kind: "keyboard", openError: "Permission denied"),
                                                      .init(node: "/dev/input/event4", name: "mouse", kind: "mouse")],
                                            dualSenseHidraw: [.init(node: "/dev/hidraw0", name: "DualSense", writable: false)],
                                            udevRulesPath: rules, udevRulesInstalled: false,
                                            cecAdapters: [.init(node: "/dev/cec0", openError: "cannot open /dev/cec0: Permission denied")]))
        #expect(denied.verdict == .degraded)
        #expect(denied.findings.first { $0.subject == "CEC" }?.verdict == .degraded)
        let grabbed = InputJudge.judge(.init(devices: [.init(node: "/dev/input/event3", name: "kbd", kind: "keyboard", grabError: "Device or resource busy")],
                                             udevRulesPath: rules, udevRulesInstalled: true))
        #expect(grabbed.findings[0].verdict == .degraded)
    }

    @Test func cecAdapterJudging() {
        let rules = "/lib/udev/rules.d/70-punktfunk-kiosk.rules"
        let pad = InputObservation.Device(node: "/dev/input/event7", name: "DualSense", kind: "pad")
        func cec(_ a: InputObservation.CECAdapter) -> Section {
            InputJudge.judge(.init(devices: [pad], udevRulesPath: rules, udevRulesInstalled: true, cecAdapters: [a]))
        }
        // CEC 1.4b §8.7: a physical address is written n.n.n.n, one hex digit per nibble, most
        // significant first; the TV is 0.0.0.0 and its first HDMI input's source 1.0.0.0.
        let linked = cec(.init(node: "/dev/cec0", name: "vivid: vivid-000-vid-out0", physicalAddress: 0x1000))
        #expect(linked.verdict == .ok)
        #expect(linked.findings.last?.facts == [Fact("physical address", "1.0.0.0")])
        let deep = cec(.init(node: "/dev/cec1", name: "x", physicalAddress: 0x21A0))
        #expect(deep.findings.last?.facts == [Fact("physical address", "2.1.a.0")])
        // No sink yet: said, but the box is not worse for it.
        let waiting = cec(.init(node: "/dev/cec0", name: "cros-ec-cec: cros-ec-cec"))
        #expect(waiting.findings.last?.verdict == .notAvailable)
        #expect(waiting.verdict == .ok)
    }

    @Test func networkJudging() {
        let ok = NetworkJudge.judge(.init(mdns: .shared, hostsSeen: ["Living Room (192.168.1.20)"], browseSeconds: 3,
                                          receiveBufferAsked: 4 << 20, receiveBufferGranted: 4 << 20))
        #expect(ok.verdict == .ok)
        let small = NetworkJudge.judge(.init(mdns: .oneShot(reason: "Address already in use"), hostsSeen: [], browseSeconds: 3,
                                             receiveBufferAsked: 4 << 20, receiveBufferGranted: 208 << 10))
        #expect(small.verdict == .degraded)
        #expect(small.findings[2].why == "the kernel grants 208 KiB of the 4096 KiB the media socket asks for: bursts at high bitrates may be dropped.")
        #expect(small.findings[1].verdict == .notAvailable && small.findings[1].informational)
    }

    @Test func boxJudging() {
        let ok = BoxJudge.judge(.init(kernel: "6.1.0-26-amd64", distribution: "Debian GNU/Linux 12 (bookworm)", rtPriorityLimit: 0,
                                      isRoot: true, logindReachable: true, configPath: "/var/lib/punktfunk-kiosk/config", configProblems: nil))
        #expect(ok.verdict == .ok)
        let bad = BoxJudge.judge(.init(kernel: "6.1", distribution: "Debian", rtPriorityLimit: 0, isRoot: false, logindReachable: false,
                                       configPath: "/c", configProblems: ["line 3: unknown key \"decodr\""]))
        #expect(bad.verdict == .degraded)
        #expect(bad.findings.last?.why == "/c: 1 problem, first: line 3: unknown key \"decodr\".")
    }
}
