import Audio
import Foundation
import PunktfunkSession
import VideoDecode

/// Performs the shell's requests (`KioskEffect.shell`) for the runner: each off the runner's
/// thread (a thread per job or write), reporting back by posting events on the runner's
/// `EventQueue` — wake and speed test progress as `.shell(job:_:)`, the trust store after a forget
/// as `.trustStoreChanged`, what could not be done as `.notice`. `perform` itself only starts
/// things and updates the runner's configuration for the next stream, so it never blocks.
final class ShellServices {
    private let events: EventQueue
    /// The profile directory (nil: the anonymous profile; nothing is read or written).
    let configDirectory: URL?
    private let identity: TLSIdentity?
    private let cancellation = JobCancellation()
    var logind = Logind()
    /// UDP port of magic packets (tests send them to a local socket).
    var wakePort = WakeOnLAN.defaultPort
    var wakeLimitSeconds = WakeProgress.limitSeconds
    /// Magic packets go out again this often while waiting, seconds.
    var wakeResendSeconds = 10
    /// The speed test's probe rate, kbit/s.
    var speedTestKbps: UInt32 = 200_000

    init(events: EventQueue, configDirectory: URL?, identity: TLSIdentity?) {
        self.events = events; self.configDirectory = configDirectory; self.identity = identity
    }

    /// The saved config, or nil without a profile or when it cannot be read (said on stderr).
    func savedConfig() -> KioskConfig? {
        guard let configDirectory else { return nil }
        do { return try ConfigFile.load(from: configDirectory) } catch {
            say("cannot read \(configDirectory.path)/\(ConfigFile.fileName): \(error)")
            return nil
        }
    }

    var configPath: String? { configDirectory.map { $0.appendingPathComponent(ConfigFile.fileName).path } }

    /// ALSA playback PCMs to offer: `default`, then each HDMI/DP output (`hw:CARD=…,DEV=…`).
    static func audioDevices() -> [String] {
        ["default"] + AlsaCardScan.hdmiOutputs().map(\.pcmName)
    }

    /// Asks logind what it allows and probes the decoders, on a thread → `.boxChecked`.
    func checkBox() {
        let events = self.events, logind = self.logind
        let thread = Thread {
            events.post(.boxChecked(BoxFacts(power: logind.ability(), decoders: Self.decoderSummary())))
        }
        thread.name = "box-check"
        thread.start()
    }

    /// One line on what decodes HEVC here.
    static func decoderSummary() -> String {
        let report = VAAPIProbe.report()
        let nodes = report.renderNodes.filter { $0.error == nil && !$0.hevcProfiles.isEmpty }
        guard !nodes.isEmpty, !report.decodableHEVCProfiles.isEmpty else {
            let decoders = V4L2Decoders.scan().devices.filter { !$0.isVirtual && $0.decodesMain }
            if !decoders.isEmpty {
                let names = decoders.map { "\($0.videoPath) (\($0.driver))" }
                let main10 = decoders.contains(where: \.decodesMain10) ? ", Main10" : ""
                return "V4L2 on \(names.joined(separator: ", ")): HEVC Main\(main10); software as fallback"
            }
            let why = report.renderNodes.compactMap(\.error).first ?? "no render node decodes HEVC"
            return "software (VA-API: \(why))"
        }
        let profiles = report.decodableHEVCProfiles.map { $0.replacingOccurrences(of: "VAProfileHEVC", with: "") }
        let names = nodes.map { "\($0.path) (\($0.vendor ?? $0.kernelDriver ?? "?"))" }
        return "VA-API on \(names.joined(separator: ", ")): HEVC \(profiles.joined(separator: ", ")); software as fallback"
    }

    /// Starts `request`; settings that apply to the next stream go into `configuration`.
    func perform(_ request: ShellRequest, configuration: inout RunnerConfiguration) {
        switch request {
        case .wake(let job, let host):
            WakeJob(job: job, host: host, saved: savedConfig()?.host(host.id), port: wakePort, limitSeconds: wakeLimitSeconds,
                    resendSeconds: wakeResendSeconds)
                .start(events: events, cancellation: cancellation)
        case .speedTest(let job, let host):
            let known = configDirectory.flatMap { try? KnownHosts.load(from: $0) } ?? KnownHosts()
            var test = SpeedTestJob(job: job, host: host, identity: identity, knownHosts: known)
            test.targetKbps = speedTestKbps
            test.start(events: events, cancellation: cancellation)
        case .cancel(let job):
            cancellation.cancel(job)
        case .identifyController:
            break   // the input's (the runner hands it to ShellInput)
        case .forget(let host):
            write { writes, events in
                let (known, problem) = writes.forget(host)
                if let known { events.post(.trustStoreChanged(known)) }
                if let problem { events.post(.notice(sentence: problem)) }
            }
        case .saveHost(let host):
            write { writes, events in
                if let problem = writes.save(host) { events.post(.notice(sentence: problem)) }
            }
        case .saveSettings(let settings, let statsOverlay):
            Self.apply(settings, to: &configuration)
            write { writes, events in
                if let problem = writes.save(settings, statsOverlay: statsOverlay) { events.post(.notice(sentence: problem)) }
            }
        case .powerOff, .restart:
            let events = self.events, logind = self.logind
            let thread = Thread {
                if let problem = request == .powerOff ? logind.powerOff() : logind.restart() {
                    events.post(.notice(sentence: problem))
                }
            }
            thread.name = "power"
            thread.start()
        }
    }

    /// The next stream asks for the chosen bitrate, decodes with the chosen rungs and plays to the
    /// chosen device (the mode applies at the next start: the display is opened once).
    static func apply(_ settings: ShellSettings, to configuration: inout RunnerConfiguration) {
        configuration.bitrateKbps = settings.bitrateKbps
        configuration.bitrateMode = settings.bitrateMode
        configuration.scaling = settings.scaling
        switch settings.decoder {
        case "vaapi": configuration.decoder = [.vaapi]
        case "v4l2": configuration.decoder = [.v4l2]
        case "software": configuration.decoder = [.software]
        default: configuration.decoder = DecoderRungKind.automatic
        }
        configuration.hello.hdr = settings.hdr
        configuration.hello.audioChannels = settings.audioChannels
        configuration.hello.audioRedundancy = settings.audioRedundancy
        if let device = settings.audioDevice {
            configuration.audio = .device(device)
        } else if case .device = configuration.audio {
            configuration.audio = .automatic
        }
    }

    /// Runs a profile write off the runner's thread, after the writes requested before it.
    private func write(_ body: @escaping @Sendable (ProfileWrites, EventQueue) -> Void) {
        guard let configDirectory else {
            events.post(.notice(sentence: "There is no profile directory, so nothing is saved."))
            return
        }
        let writes = ProfileWrites(directory: configDirectory), events = self.events
        writeQueue.async { body(writes, events) }
    }

    /// Profile writes, one after another in request order.
    private let writeQueue = DispatchQueue(label: "profile-writes")

    private func say(_ line: String) {
        FileHandle.standardError.write(Data("punktfunk-kiosk: \(line)\n".utf8))
    }
}
