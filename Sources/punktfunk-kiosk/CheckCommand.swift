import ArgumentParser
import Foundation
import SelfCheck
import SelfCheckDecode
import VideoDecode

/// `punktfunk-kiosk check`: a self-test of this box's GPU decode, display, sound, input, network
/// and system, each section ok / degraded / failed / not available with one sentence of why and
/// one of what to do. The judging is `SelfCheck` (pure, unit-tested); this file and
/// `CheckGather*.swift` only gather what the box offers. Exit 0 when nothing failed, 1 otherwise.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Test this box's GPU decode, display, sound, input and network, and print a verdict for each.",
        discussion: """
            Decode compares every frame of short clips built into the binary (8-bit, 10-bit BT.2020 PQ, \
            a resolution change, slices) decoded by each VA-API device and each V4L2 stateless \
            decoder (ARM boards) against the software decoder; HEVC decoding is bit-exact, so any \
            difference is a driver fault. Display reads the \
            connector, its modes and HDR properties and which planes list NV12/P010; with --display \
            it takes the screen for a few seconds: the kernel's TEST_ONLY verdict on a decoded \
            surface per plane, then a flip run measuring the refresh interval, its jitter and missed \
            vblanks. Under a Wayland compositor (WAYLAND_DISPLAY) it also probes the compositor \
            read-only, mapping no window: its name (the socket's peer process), its globals against \
            the ones the kiosk uses, its outputs, seats and presentation clock, and its linux-dmabuf \
            feedback against the surfaces the VA-API devices export. Sound opens the device the \
            kiosk would choose for 0.5 s of silence; input opens \
            and grabs every keyboard, mouse and pad for a moment; network binds the mDNS port and \
            browses for hosts. \
            Verdicts: ok; degraded (works, worse than it could: the action says what to change); \
            failed (will not work); not available (absent here, e.g. no GPU; never counted as ok). \
            Exit status: 0 when nothing failed, 1 otherwise.
            """)

    @Flag(help: "Print the report as one JSON object instead of text.") var json = false
    @Flag(help: "Take the screen for a few seconds: TEST_ONLY plane checks and a flip run on the panel.") var display = false
    @Option(help: "Seconds of the flip run (with --display) and of the host browse.") var seconds: Double = 3
    @Option(name: .customLong("drm-device"),
            help: "The DRM card to check the display of (default: the first with a connected display, as the kiosk picks).")
    var drmDevice: String?

    func validate() throws {
        guard seconds > 0, seconds <= 60 else { throw ValidationError("--seconds must be in (0, 60]") }
    }

    func run() throws {
        let report = Self.gather(display: display, seconds: seconds, card: drmDevice)
        print(json ? ReportJSON.render(report) : ReportText.render(report), terminator: json ? "\n" : "")
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }

    static func gather(display takeScreen: Bool, seconds: Double, card: String?) -> Report {
        let sync = ProfileConfig.load().decodeSync.flatMap(DecodeSyncSetting.init(rawValue:)) ?? .auto
        let decode = DecodeCheck.observe(decodeSync: sync)
        var displayObservation = CheckGather.display()
        if let card {
            let listed = displayObservation.cards.map(\.path)
            displayObservation.cards.removeAll { $0.path != card }
            if displayObservation.cards.isEmpty {
                displayObservation.cards = [.init(path: card, openError: "not a DRM card of this box (cards: \(listed.isEmpty ? "none" : listed.joined(separator: ", ")))")]
            }
        }
        (displayObservation.vaExports, displayObservation.vaUnavailable) = CheckGather.vaExports(decode)
        if takeScreen { CheckDisplayRun.run(into: &displayObservation, seconds: seconds) }
        let connector = DisplayJudge.chosenConnector(displayObservation.cards)
        let sections = [
            DecodeJudge.judge(decode),
            DisplayJudge.judge(displayObservation),
            SoundJudge.judge(CheckGather.sound(card: connector?.0.path, connector: connector?.1.name)),
            InputJudge.judge(CheckGather.input()),
            NetworkJudge.judge(CheckGather.network(seconds: seconds)),
            BoxJudge.judge(CheckGather.box()),
            HelloReport.section(HelloReport.plan(card: card)),
        ]
        return Report(program: "punktfunk-kiosk", sections: sections)
    }
}
