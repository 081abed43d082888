import Foundation
import Testing
@testable import Kiosk

@Suite struct KioskConfigTests {
    static let fp = String(repeating: "0f", count: 32)

    static var sample: KioskConfig {
        var c = KioskConfig()
        c.autoconnect = "den.box-1"
        c.displayMode = "1920x1080@59.94"
        c.decoder = "auto"
        c.decodeSync = "va-sync-surface"
        c.bitrateKbps = 40_000
        c.bitrateMode = .fixed
        c.audioDevice = "hw:CARD=PCH,DEV=0"
        c.statsOverlay = true
        c.inputGrab = false
        c.save(.init(id: "den.box-1", name: "Den Box", addresses: ["192.168.1.20", "fe80::1%2"], port: 9777,
                     fingerprint: fp, macs: ["aa:bb:cc:dd:ee:ff", "02:00:00:00:00:01"]))
        c.save(.init(id: "attic", name: "Attic = PC # 2"))
        return c
    }

    @Test func aConfigRoundTripsThroughItsText() {
        let c = Self.sample
        let again = KioskConfig(text: c.text)
        #expect(again.problems.isEmpty, "\(again.problems)")
        // '#' and '=' inside a value survive: only a whole line starting with '#' is a comment.
        #expect(again == c)
        #expect(KioskConfig(text: again.text) == again)
    }

    @Test func badLinesAreNamedByNumberAndIgnored() {
        let text = """
            # comment
            decoder = vaapi
            decoder = quantum
            this line has no equals
            bitrate = -5
            host.den.fp = nothex
              # an indented comment
            host.den.name = Den # 2
            host.den.colour = blue
            frobnicate = 1
            stats-overlay = maybe
              autoconnect   =   den
            """
        let c = KioskConfig(text: text)
        #expect(c.decoder == "vaapi" && c.autoconnect == "den" && c.bitrateKbps == nil)
        #expect(c.hosts == [.init(id: "den", name: "Den # 2")])
        #expect(c.problems.map(\.line) == [3, 4, 5, 6, 9, 10, 11])
        #expect(c.problems[0].description == "config line 3: decoder must be auto, vaapi, v4l2 or software, not \"quantum\" (ignored)")
        #expect(c.problems[1].message == "no '=' in \"this line has no equals\"")
        #expect(c.problems[5].message == "unknown key \"frobnicate\"")
    }

    /// Issue 39: the rate follows the line unless `bitrate-mode = fixed` pins it; a chosen bitrate
    /// is then a ceiling, shown as such on the settings page.
    @Test func bitrateModeIsAutoOrFixedAndTheSettingsPageSaysWhichTheNumberIs() {
        let c = KioskConfig(text: "bitrate = 20000\nbitrate-mode = fixed\nbitrate-mode = adaptive\n")
        #expect(c.bitrateMode == .fixed && c.bitrateKbps == 20_000)
        #expect(c.problems.map(\.message) == ["bitrate-mode must be auto or fixed, not \"adaptive\""])
        let fixed = ShellSettings(config: c, modes: [], audioDevices: [])
        #expect(fixed.choice(.bitrate).map { $0.options[$0.index] } == "20 Mbit/s")
        var auto = KioskConfig(text: "bitrate = 20000\n")
        #expect(auto.bitrateMode == nil)
        let ceiling = ShellSettings(config: auto, modes: [], audioDevices: [])
        #expect(ceiling.choice(.bitrate).map { $0.options[$0.index] } == "Up to 20 Mbit/s")
        auto.bitrateKbps = nil
        #expect(ShellSettings(config: auto, modes: [], audioDevices: []).choice(.bitrate).map { $0.options[$0.index] }
                == "Automatic (adapts to the network)")
    }

    @Test func decodeSyncTakesTheThreePathsOnly() {
        let c = KioskConfig(text: "decode-sync = sync-file\ndecode-sync = sometimes\n")
        #expect(c.decodeSync == "sync-file")
        #expect(c.problems.map(\.message) == ["decode-sync must be auto, sync-file or va-sync-surface, not \"sometimes\""])
        #expect(KioskConfig(text: "decode-sync = auto").decodeSync == "auto")
        #expect(KioskConfig(text: "decode-sync = va-sync-surface").text.contains("decode-sync = va-sync-surface\n"))
    }

    @Test func scalingIsFitOrNative() {
        #expect(KioskConfig(text: "scaling = native").scaling == .native)
        #expect(KioskConfig(text: "scaling = fit").scaling == .fit)
        let bad = KioskConfig(text: "scaling = stretch")
        #expect(bad.scaling == nil && bad.problems.map(\.message) == ["scaling must be fit or native, not \"stretch\""])
        #expect(KioskConfig(text: KioskConfig(text: "scaling = native").text).scaling == .native)
    }

    @Test func writesReplaceTheFileWholeAndLeaveNoTemporary() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-config-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try ConfigFile.load(from: dir) == KioskConfig())
        // A temporary left by an earlier crash does not get in the way.
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try "half a line".write(to: dir.appendingPathComponent("config.tmp"), atomically: false, encoding: .utf8)
        var small = KioskConfig()
        small.decoder = "software"
        var large = Self.sample
        for i in 0..<400 { large.save(.init(id: "h\(i)", name: "Host \(i)", addresses: ["10.0.\(i / 256).\(i % 256)"])) }
        try ConfigFile.store(small, in: dir)
        #expect(try ConfigFile.load(from: dir) == small)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("config.tmp").path))
        let mode = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("config").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A reader racing a writer sees one whole version or the other, never a mix or a cut.
        let texts = [small.text, large.text]
        let versions = [large, small]
        let writer = Thread {
            for i in 0..<150 { try? ConfigFile.store(versions[i % 2], in: dir) }
        }
        writer.start()
        var reads = 0, torn = 0
        while !writer.isFinished || reads < 50 {
            if let text = try? String(contentsOf: dir.appendingPathComponent("config"), encoding: .utf8) {
                reads += 1
                if !texts.contains(text) { torn += 1 }
            }
            if reads > 5000 { break }
        }
        #expect(torn == 0, "\(torn) of \(reads) reads saw a partial file")
    }
}
