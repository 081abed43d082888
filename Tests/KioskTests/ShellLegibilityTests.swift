import Foundation
import Testing
import PunktfunkSession
import Kiosk
import Shell

/// The shell's screens as the VM harness sees them: drawn at 1024x768 (the harness's bochs-drm
/// mode), written as PPM screendumps and read back by the same OCR judgement the harness's
/// `shell` check uses (Tests/vm/verify_shell.py, Debian `tesseract-ocr`): the host's name on the
/// home card (a card fits about 12 characters, so "VM Living R…" counts), the pairing prompt on
/// the PIN page with the digits typed, the in-stream menu.
@Suite struct ShellLegibilityTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let verifier = repo.appendingPathComponent("Tests/vm/verify_shell.py").path
    static let tesseract = ["/usr/bin/tesseract", "/usr/local/bin/tesseract"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    static let host = HostEntry(id: "vm-host", name: "VM Living Room", address: "127.0.0.1:9777")

    /// The box after start-up with the harness's host listed, driven by `inputs`.
    static func box(_ inputs: [NavigationInput]) -> KioskMachine {
        var m = KioskMachine(policy: KioskPolicy(afterJob: .returnToHosts), hosts: [host])
        _ = m.handle(.started(StartReport(display: .glass(name: "Virtual-1 1024x768@60"), knownHosts: KnownHosts())), now: 1)
        for (i, input) in inputs.enumerated() { _ = m.handle(.navigate(input), now: UInt64(2 + i)) }
        return m
    }

    /// `state`'s screen drawn at 1024x768 into a binary PPM at `path`.
    static func writeScreendump(_ state: KioskState, to path: String) throws {
        let scene = try #require(ShellSceneBuilder.scene(for: state, glyphs: .xbox))
        let (w, h) = (1024, 768)
        var words = [UInt32](repeating: 0, count: w * h)
        words.withUnsafeMutableBytes { _ = ShellRenderer(width: w, height: h).draw(scene, over: nil, into: $0.baseAddress!, stride: w * 4) }
        var ppm = Array("P6\n\(w) \(h)\n255\n".utf8)
        ppm.reserveCapacity(ppm.count + w * h * 3)
        for p in words { ppm += [UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p)] }
        try Data(ppm).write(to: URL(fileURLWithPath: path))
    }

    @Test(.enabled(if: ShellLegibilityTests.tesseract, "needs tesseract-ocr (Tests/tools/install-deps.sh installs it)"))
    func theHarnessReadsTheHostNameThePairingPromptAndTheMenuAt1024x768() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-shell-legibility-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // Home; the PIN page (A on the card, down to "Pair with PIN", A) with 4 8 2 1 typed on the pad.
        try Self.writeScreendump(Self.box([]).state, to: "\(dir)/home.ppm")
        let pin: [NavigationInput] = [.activate, .move(.down), .activate,
                                      .move(.down), .activate, .move(.down), .move(.right), .activate,
                                      .move(.up), .move(.up), .activate, .move(.left), .activate]
        let typed = Self.box(pin)
        #expect(typed.state.shell.pinDraft(Self.host.id) == "4821")
        try Self.writeScreendump(typed.state, to: "\(dir)/pin.ppm")
        var menu = Self.box([]).state
        menu.phase = .inStreamMenu(StreamProgress(job: 1, target: .host(Self.host), sinceNs: 1), selection: .resume)
        try Self.writeScreendump(menu, to: "\(dir)/menu.ppm")

        let judge = Process()
        judge.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        judge.arguments = ["python3", Self.verifier, "ocr",
                           "\(dir)/home.ppm", "Hosts", "VM Living Room…",
                           "\(dir)/pin.ppm", "Pair with VM Living Room", "shows in its console's pairing prompt", "4 8 2 1",
                           "\(dir)/menu.ppm", "Resume", "Show stats", "Disconnect", "Quit"]
        let output = Pipe()
        judge.standardOutput = output
        judge.standardError = output
        try judge.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        judge.waitUntilExit()
        #expect(judge.terminationStatus == 0, "\(text)")
        if judge.terminationStatus == 0 { try? FileManager.default.removeItem(atPath: dir) }
    }
}
