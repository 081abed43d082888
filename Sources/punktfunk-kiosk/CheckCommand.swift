import ArgumentParser
import Foundation
import SelfCheck
import SelfCheckGather

/// `punktfunk-kiosk check`: a self-test of this box's GPU decode, display, sound, input, network,
/// Wi-Fi and system, each section ok / degraded / failed / not available with one sentence of why and
/// one of what to do. The judging is `SelfCheck` (pure, unit-tested), the gathering
/// `SelfCheckGather`; this file only parses the options. Exit 0 when nothing failed, 1 otherwise.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Test this box's GPU decode, display, sound, input, network and Wi-Fi, and print a verdict for each.",
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
            browses for hosts; Wi-Fi reads each Wi-Fi link over nl80211 (signal, band, power save), \
            listens for scans, roams and beacon loss during the browse, and reads the last \
            stream's stalls and their causes from the profile directory. \
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
        let report = CheckRun.report(takeScreen: display, seconds: seconds, card: drmDevice, config: ProfileConfig.load(),
                                     directory: ProfileConfig.directory)
        print(json ? ReportJSON.render(report) : ReportText.render(report), terminator: json ? "\n" : "")
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}
