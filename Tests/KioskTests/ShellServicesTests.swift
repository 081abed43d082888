import Foundation
import Glibc
import LoopbackListener
import Testing
import PunktfunkSession
import PunktfunkWire
import PunktfunkTestHost
@testable import Kiosk

/// The shell's requests performed against real things: a profile directory on disk, magic
/// packets on a local UDP socket, a speed test over loopback with the in-process test host, and
/// logind where there is no system bus.
@Suite(.serialized) struct ShellServicesTests {
    static let fp = String(repeating: "ab", count: 32)
    static let otherFP = String(repeating: "cd", count: 32)

    static func tempDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pf-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Events posted on `queue` until `done` holds for what arrived, or `seconds` passed.
    static func collect(_ queue: EventQueue, seconds: Double, until done: ([KioskEvent]) -> Bool) -> [KioskEvent] {
        var got: [KioskEvent] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end, !done(got) {
            var p = pollfd(fd: queue.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
            got += queue.drain().map(\.event)
        }
        return got
    }

    static func outcomes(_ events: [KioskEvent], job: Int) -> [ShellOutcome] {
        events.compactMap { if case .shell(job, let o) = $0 { return o }; return nil }
    }

    static func configuration() -> RunnerConfiguration { RunnerConfiguration(display: .headless) }

    // MARK: forget, save

    @Test func forgetRemovesThePinsAndTheSavedEntryAndKeepsTheRest() throws {
        let dir = try Self.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var known = KnownHosts()
        try known.trust(host: "192.168.1.20:9777", fingerprint: Self.fp)
        try known.trust(host: "192.168.1.21:9777", fingerprint: Self.fp)   // the same host, another address
        try known.trust(host: "10.0.0.5:9777", fingerprint: Self.otherFP)
        try known.store(in: dir)
        var config = KioskConfig()
        config.autoconnect = "living-room"
        config.save(KioskConfig.SavedHost(id: "living-room", name: "Living room", addresses: ["192.168.1.20"], fingerprint: Self.fp))
        config.save(KioskConfig.SavedHost(id: "office", name: "Office", addresses: ["10.0.0.5"]))
        try ConfigFile.store(config, in: dir)

        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: dir, identity: nil)
        var configuration = Self.configuration()
        let host = HostEntry(id: "living-room", name: "Living room", address: "192.168.1.20", givenFingerprint: Self.fp)
        services.perform(.forget(host), configuration: &configuration)
        let events = Self.collect(queue, seconds: 10) { $0.contains { if case .trustStoreChanged = $0 { true } else { false } } }
        guard case .trustStoreChanged(let posted)? = events.first(where: { if case .trustStoreChanged = $0 { true } else { false } }) else {
            Issue.record("no trust store change: \(events)"); return
        }
        #expect(posted.entries == ["10.0.0.5:9777": Self.otherFP])
        #expect(try KnownHosts.load(from: dir) == posted)
        let reread = try ConfigFile.load(from: dir)
        #expect(reread.hosts.map(\.id) == ["office"])
        #expect(reread.autoconnect == nil)
        #expect(!events.contains { if case .notice = $0 { true } else { false } }, "\(events)")
    }

    @Test func aTypedHostAndTheSettingsAreSavedToTheConfigAndTheSettingsApplyToTheNextStream() throws {
        let dir = try Self.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: dir, identity: nil)
        var configuration = Self.configuration()
        configuration.audio = .automatic
        services.perform(.saveHost(HostEntry(address: "192.168.1.30:9800")), configuration: &configuration)
        var settings = ShellSettings(config: KioskConfig(), modes: ["1280x720@60"], audioDevices: ["default"])
        settings.bitrateKbps = 40_000
        settings.decoder = "software"
        settings.audioDevice = "hw:CARD=PCH,DEV=3"
        services.perform(.saveSettings(settings, statsOverlay: true), configuration: &configuration)
        #expect(configuration.bitrateKbps == 40_000)
        #expect(configuration.decoder == [.software])
        #expect(configuration.audio == .device("hw:CARD=PCH,DEV=3"))
        // Writes run in order off this thread: wait for the second.
        var config = KioskConfig()
        for _ in 0..<100 where config.statsOverlay == nil {
            Thread.sleep(forTimeInterval: 0.05)
            config = (try? ConfigFile.load(from: dir)) ?? KioskConfig()
        }
        #expect(config.hosts == [KioskConfig.SavedHost(id: "192.168.1.30:9800", name: "192.168.1.30:9800", addresses: ["192.168.1.30"], port: 9800)])
        #expect(config.bitrateKbps == 40_000 && config.decoder == "software" && config.audioDevice == "hw:CARD=PCH,DEV=3")
        #expect(config.statsOverlay == true)
        #expect(queue.drain().isEmpty, "no problem to report")
        // Back to automatic: the host's bitrate, every rung, the display's own output.
        ShellServices.apply(ShellSettings(), to: &configuration)
        #expect(configuration.bitrateKbps == nil && configuration.decoder == [.vaapi, .v4l2, .software] && configuration.audio == .automatic)
    }

    @Test func withoutAProfileNothingIsSavedAndThatIsSaid() {
        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: nil, identity: nil)
        var configuration = Self.configuration()
        services.perform(.saveHost(HostEntry(address: "10.0.0.1")), configuration: &configuration)
        #expect(queue.drain().map(\.event) == [.notice(sentence: "There is no profile directory, so nothing is saved.")])
    }

    // MARK: wake

    static let mac: [UInt8] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55]

    @Test func wakeSendsTheMagicPacketAgainWhileCountingSecondsUntilItTimesOut() throws {
        let listener = try LoopbackListener()
        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: nil, identity: nil)
        services.wakePort = listener.port
        services.wakeLimitSeconds = 2
        services.wakeResendSeconds = 1
        var configuration = Self.configuration()
        let host = HostEntry(id: "tv", name: "TV", address: "127.0.0.1", macs: ["02:11:22:33:44:55"])
        services.perform(.wake(job: 7, host: host), configuration: &configuration)
        #expect(listener.receive() == MagicPacket.bytes(for: Self.mac), "the unicast to the host's last address arrives")
        #expect(listener.receive() == MagicPacket.bytes(for: Self.mac), "and again a second later")
        let events = Self.collect(queue, seconds: 6) { Self.outcomes($0, job: 7).contains(.wakeTimedOut) }
        let outcomes = Self.outcomes(events, job: 7)
        guard case .wakeSent(let sent, let destinations)? = outcomes.first else { Issue.record("\(outcomes)"); return }
        #expect(sent >= 1 && sent <= destinations)
        #expect(Array(outcomes.dropFirst()) == [.waited(seconds: 1), .waited(seconds: 2), .wakeTimedOut])
    }

    @Test func aCancelledWakeStopsCounting() throws {
        let listener = try LoopbackListener()
        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: nil, identity: nil)
        services.wakePort = listener.port
        services.wakeLimitSeconds = 3
        var configuration = Self.configuration()
        services.perform(.wake(job: 8, host: HostEntry(id: "tv", name: "TV", address: "127.0.0.1", macs: ["02:11:22:33:44:55"])),
                         configuration: &configuration)
        _ = Self.collect(queue, seconds: 3) { !Self.outcomes($0, job: 8).isEmpty }
        services.perform(.cancel(job: 8), configuration: &configuration)
        let after = Self.collect(queue, seconds: 4) { _ in false }
        #expect(!Self.outcomes(after, job: 8).contains(.wakeTimedOut), "\(after)")
        #expect(Self.outcomes(after, job: 8).count <= 1, "at most the second under way when cancelled")
    }

    @Test func aWakeWithoutAnyMACSaysHowToGetOne() {
        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: nil, identity: nil)
        var configuration = Self.configuration()
        services.perform(.wake(job: 9, host: HostEntry(id: "tv", name: "TV", address: "127.0.0.1")), configuration: &configuration)
        let events = Self.collect(queue, seconds: 3) { !Self.outcomes($0, job: 9).isEmpty }
        guard case .wakeFailed(let sentence)? = Self.outcomes(events, job: 9).first else { Issue.record("\(events)"); return }
        #expect(sentence.contains("No Wake-on-LAN address (MAC) is known for TV") && sentence.contains("host.tv.macs"))
    }

    // MARK: speed test

    @Test func aSpeedTestAgainstTheTestHostReportsThroughputLossAndRTT() throws {
        let host = try DemoHost(seconds: 10)
        defer { host.stop() }
        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: nil, identity: nil)
        services.speedTestKbps = 50_000
        var configuration = Self.configuration()
        let entry = HostEntry(id: "demo", name: "demo", address: host.address.description, givenFingerprint: host.fingerprint)
        services.perform(.speedTest(job: 3, host: entry), configuration: &configuration)
        let events = Self.collect(queue, seconds: 20) {
            Self.outcomes($0, job: 3).contains { if case .speedTestDone = $0 { true } else if case .speedTestFailed = $0 { true } else { false } }
        }
        let outcomes = Self.outcomes(events, job: 3)
        #expect(outcomes.first == .speedTestStep(.measuring))
        guard case .speedTestDone(let result)? = outcomes.last else { Issue.record("\(outcomes)"); return }
        #expect(result.targetKbps == 50_000)
        // Loopback carries the whole burst.
        #expect(abs(result.throughputKbps - 50_000) / 50_000 < 0.35, "\(result)")
        #expect(result.lossPercent < 5, "\(result)")
        #expect(result.rttMs != nil)
        #expect(result.suggestedKbps >= 20_000)
    }

    @Test func aSpeedTestWithAnUnpairedHostIsRefusedAndAnUnknownNameFails() throws {
        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: nil, identity: nil)
        var configuration = Self.configuration()
        services.perform(.speedTest(job: 4, host: HostEntry(address: "127.0.0.1:9")), configuration: &configuration)
        services.perform(.speedTest(job: 5, host: HostEntry(address: "no-such-host.invalid")), configuration: &configuration)
        let events = Self.collect(queue, seconds: 20) { Self.outcomes($0, job: 4).count + Self.outcomes($0, job: 5).count >= 2 }
        guard case .speedTestFailed(let refused)? = Self.outcomes(events, job: 4).first else { Issue.record("\(events)"); return }
        #expect(refused.contains("not paired"))
        guard case .speedTestFailed(let unknown)? = Self.outcomes(events, job: 5).first else { Issue.record("\(events)"); return }
        #expect(!unknown.isEmpty)
    }

    @Test func aCancelledSpeedTestEndsItsSessionAndReportsNothing() throws {
        let host = try DemoHost(seconds: 10)
        defer { host.stop() }
        let queue = EventQueue()
        let services = ShellServices(events: queue, configDirectory: nil, identity: nil)
        var configuration = Self.configuration()
        let entry = HostEntry(id: "demo", name: "demo", address: host.address.description, givenFingerprint: host.fingerprint)
        services.perform(.speedTest(job: 6, host: entry), configuration: &configuration)
        _ = Self.collect(queue, seconds: 10) { Self.outcomes($0, job: 6).contains(.speedTestStep(.measuring)) }
        services.perform(.cancel(job: 6), configuration: &configuration)
        let after = Self.collect(queue, seconds: 4) { _ in false }
        #expect(Self.outcomes(after, job: 6).isEmpty, "\(after)")
    }

    // MARK: logind

    @Test func withoutASystemBusPowerIsNotOfferedAndASentenceSaysWhy() {
        let logind = Logind(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/pf-test-bus"])
        let ability = logind.ability()
        #expect(!ability.canPowerOff && !ability.canRestart)
        let sentence = ability.sentence ?? ""
        #expect(sentence.hasPrefix("Power off and restart are not offered: logind could not be asked ("), "\(sentence)")
        #expect(logind.powerOff()?.hasPrefix("logind refused PowerOff: ") == true)
        // No busctl at all is the same kind of sentence.
        let missing = Logind(busctl: "/nonexistent/busctl").ability()
        #expect(!missing.canPowerOff && missing.sentence?.contains("/nonexistent/busctl cannot run") == true, "\(missing)")
    }

    @Test func onlyYesCountsAsAllowed() {
        #expect(Logind.meaning("challenge").contains("polkit rule"))
        #expect(Logind.meaning("na") == "not supported on this machine")
        #expect(Logind.meaning("no") == "not permitted for this user")
    }
}
