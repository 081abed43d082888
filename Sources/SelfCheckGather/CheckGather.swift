import CALSA
import Display
import Foundation
import Input
import Kiosk
import PunktfunkSession
import SelfCheck
import WaylandDisplay
import X11Display
import SystemClock

/// What `check` reads from the box for the display (read-only), sound, input, network, Wi-Fi and box
/// sections. Only gathering: every verdict is `SelfCheck`'s.
public enum CheckGather {
    // MARK: display (read-only: the probe's JSON of each card, no master, nothing committed)

    public static func display() -> DisplayObservation {
        let env = ProcessInfo.processInfo.environment
        let compositor: DisplayObservation.Compositor
        if let w = env["WAYLAND_DISPLAY"], !w.isEmpty { compositor = .wayland(wayland(display: w)) }
        else if let x = env["DISPLAY"], !x.isEmpty { compositor = .x11(x11(display: x, environment: env)) }
        else { compositor = .none }
        let cards = KMSProbe.describeAll().compactMap { text -> DisplayObservation.Card? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
            return card(probe: o)
        }
        return DisplayObservation(compositor: compositor, cards: cards)
    }

    /// The compositor behind `display`, read-only (`WaylandProbe`: no window is mapped).
    public static func wayland(display: String) -> WaylandObservation {
        let r: WaylandProbeResult
        do { r = try WaylandProbe.run(displayName: display) } catch {
            return WaylandObservation(display: display, error: error.description)
        }
        return WaylandObservation(
            display: display, name: r.peer.name, nameSource: r.peer.how,
            globals: r.globals.map { .init($0.interface, $0.version) },
            kioskProtocols: KioskProtocols.all.map {
                .init(interface: $0.interface, version: $0.version, minimum: $0.minimum, required: $0.required, without: $0.without)
            },
            shmFormats: r.shmFormats, presentationClockID: r.presentationClockID,
            outputs: r.outputs.map { o in
                func mode(_ m: WaylandProbeResult.Mode) -> DisplayObservation.Mode {
                    .init(name: "\(m.width)x\(m.height)", refreshMilliHz: m.refreshMilliHz, preferred: m.preferred)
                }
                return .init(name: o.name, scale: o.scale, modes: o.modes.map(mode), current: o.modes.first(where: \.current).map(mode))
            },
            seats: r.seats.map { .init(name: $0.name, capabilities: $0.capabilities) },
            feedback: r.dmabufFeedback.map { f in
                .init(mainDevice: f.mainDevice, tranches: f.tranches.map { t in
                    .init(targetDevice: t.targetDevice, pairs: t.pairs.map { .init(fourcc: $0.format, modifier: $0.modifier) },
                          scanout: t.scanout)
                })
            },
            feedbackError: r.dmabufFeedbackError)
    }

    /// The X server behind `display`, read-only (`X11Probe`: no window is mapped), and what the
    /// kiosk would set on its window for gamescope from this process's environment and ancestry.
    public static func x11(display: String, environment env: [String: String]) -> X11Observation {
        let r: X11ProbeResult
        do { r = try X11Probe.run(displayName: display, environment: env) } catch {
            return X11Observation(display: display, error: error.description)
        }
        func version(_ v: X11ProbeResult.Version?) -> X11Observation.Version? { v.map { .init($0.major, $0.minor) } }
        var how: [String] = []
        if !r.gamescopeRootProperties.isEmpty { how.append("the root has \(r.gamescopeRootProperties.joined(separator: " and "))") }
        if r.gamescopeEnvironment { how.append("GAMESCOPE_WAYLAND_DISPLAY is set") }
        let plan = GamescopeProperties.forWindow(environment: env, insideGamescope: r.gamescope,
                                                 reaperAppID: SteamLaunchAncestry.appID())
        let wm: X11Observation.WindowManager
        switch r.windowManager {
        case .none: wm = .none
        case .stale: wm = .stale
        case .running(_, let name): wm = .running(name: name)
        }
        let path = r.picturePath
        return X11Observation(
            display: display, vendor: r.vendor, release: r.release, rootWidth: r.rootWidth, rootHeight: r.rootHeight,
            outputs: r.crtcs.map { c in
                .init(name: c.outputs.isEmpty ? "CRTC \(c.id)" : c.outputs.joined(separator: "+"), x: c.x, y: c.y,
                      width: c.width, height: c.height, refreshMilliHz: c.refreshMilliHz)
            },
            present: version(r.present), shm: version(r.shm), dri3: version(r.dri3), xinput: version(r.xinput),
            xtest: version(r.xtest), xfixes: version(r.xfixes), randr: version(r.randr),
            shmAttachWorks: r.shmAttachWorks, shmAttachError: r.shmAttachError, xwayland: r.xwayland, windowManager: wm,
            gamescope: how.isEmpty ? nil : how.joined(separator: "; "), steamFocusAppIDs: r.steamFocusAppIDs,
            gamescopeProperties: plan.sentence, steamAppID: plan.appID,
            pixels: path.pixels.rawValue, dri3Offered: path.dri3Offered, pictureSummary: path.summary)
    }

    /// The surfaces the decode section's VA-API devices exported (first picture of each
    /// profile), or why there are none.
    public static func vaExports(_ decode: DecodeObservation) -> (exports: [VAExport], unavailable: String?) {
        var exports: [VAExport] = []
        for node in decode.nodes {
            var st = stat()
            let device: UInt64? = stat(node.path, &st) == 0 ? UInt64(st.st_rdev) : nil
            for p in node.profiles {
                guard let e = p.clips.lazy.compactMap(\.exported).first else { continue }
                exports.append(.init(node: node.path, device: device, format: p.name == "Main10" ? "P010" : "NV12",
                                     fourcc: e.fourcc, modifier: e.modifier))
            }
        }
        if !exports.isEmpty { return (exports, nil) }
        if decode.nodes.isEmpty { return ([], "no VA-API device (no DRM render node)") }
        if let n = decode.nodes.first(where: { $0.openError != nil }), decode.nodes.allSatisfy({ $0.openError != nil }) {
            return ([], "no VA driver initialises on \(n.path)")
        }
        return ([], "no VA-API device decoded a clip (see the decode section)")
    }

    /// One card from `KMSProbe.describe(path:)`'s JSON object.
    public static func card(probe o: [String: Any]) -> DisplayObservation.Card {
        let path = o["device"] as? String ?? "?"
        if let e = o["error"] as? String { return .init(path: path, openError: e) }
        let connectors = (o["connectors"] as? [[String: Any]] ?? []).map { c in
            DisplayObservation.Connector(
                name: c["name"] as? String ?? "?", connected: c["connected"] as? Bool ?? false,
                modes: (c["modes"] as? [[String: Any]] ?? []).map {
                    .init(name: ($0["mode"] as? String ?? "?").components(separatedBy: "@")[0],
                          refreshMilliHz: $0["refresh_mhz"] as? Int ?? 0, preferred: $0["preferred"] as? Bool ?? false)
                },
                hdrOutputMetadata: c["hdr_output_metadata"] as? Bool ?? false, colorspace: c["colorspace"] as? Bool ?? false,
                possibleCRTCs: UInt32(c["possible_crtcs"] as? Int ?? 0))
        }
        let planes = (o["planes"] as? [[String: Any]] ?? []).map { p in
            var video: [String: [UInt64]] = [:]
            for f in p["formats"] as? [[String: Any]] ?? [] {
                guard let name = f["format"] as? String, name == "NV12" || name == "P010" else { continue }
                video[name] = (f["modifiers"] as? [String] ?? []).compactMap { UInt64($0.dropFirst(2), radix: 16) }
            }
            return DisplayObservation.Plane(id: UInt32(p["id"] as? Int ?? 0), kind: p["type"] as? String ?? "?",
                                            possibleCRTCs: UInt32(p["possible_crtcs"] as? Int ?? 0), videoFormats: video)
        }
        return .init(path: path, driver: o["driver"] as? String, connectors: connectors, planes: planes)
    }

    // MARK: sound

    /// - Parameter config: the profile's config (its `audio-device`), nil: none.
    public static func sound(card: String?, connector: String?, config: KioskConfig?) -> SoundObservation {
        let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8))?
            .split(separator: "\n").filter { $0.first == " " || $0.first?.isNumber == true }
            .filter { $0.contains("[") }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        let choice = SessionAudio.choose(explicit: config?.audioDevice, drmNode: card, connector: connector)
        guard !cards.isEmpty else { return .init(cards: [], device: choice.device, reason: choice.reason, open: nil) }
        return .init(cards: cards, device: choice.device, reason: choice.reason, open: silentOpen(choice.device))
    }

    /// Opens `device` as the sink does (S16_LE stereo, 48 kHz, 240-frame periods), writes 0.5 s of
    /// silence and closes it.
    public static func silentOpen(_ device: String, periodFrames: Int = 240) -> SoundObservation.Open {
        var open = SoundObservation.Open(device: device, periodFramesAsked: periodFrames)
        pf_alsa_quiet()
        var pcm: OpaquePointer?
        var rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard rc >= 0, let pcm else { open.error = String(cString: snd_strerror(rc)); return open }
        defer { snd_pcm_close(pcm) }
        var hw: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hw) >= 0, let hw else { open.error = "out of memory"; return open }
        defer { snd_pcm_hw_params_free(hw) }
        snd_pcm_hw_params_any(pcm, hw)
        var cmin: UInt32 = 0, cmax: UInt32 = 0, rmin: UInt32 = 0, rmax: UInt32 = 0
        var dir: Int32 = 0
        if snd_pcm_hw_params_get_channels_min(hw, &cmin) >= 0, snd_pcm_hw_params_get_channels_max(hw, &cmax) >= 0, cmin <= cmax {
            open.channels = Int(cmin)...Int(min(cmax, 64))
        }
        if snd_pcm_hw_params_get_rate_min(hw, &rmin, &dir) >= 0, snd_pcm_hw_params_get_rate_max(hw, &rmax, &dir) >= 0, rmin <= rmax {
            open.rates = Int(rmin)...Int(rmax)
        }
        var rate: UInt32 = 48000
        var period = snd_pcm_uframes_t(periodFrames)
        var periods: UInt32 = 2
        rc = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
        if rc >= 0 { rc = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE) }
        if rc >= 0 { rc = snd_pcm_hw_params_set_channels(pcm, hw, 2) }
        if rc >= 0 { rc = snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, nil) }
        if rc >= 0 { rc = snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, nil) }
        if rc >= 0 { rc = snd_pcm_hw_params_set_periods_near(pcm, hw, &periods, nil) }
        if rc >= 0 { rc = snd_pcm_hw_params(pcm, hw) }
        guard rc >= 0 else { open.error = "hw_params: " + String(cString: snd_strerror(rc)); return open }
        open.rate = Int(rate)
        open.periodFramesGranted = Int(period)
        let frames = Int(rate) / 2
        let silence = [Int16](repeating: 0, count: 2 * Int(period))
        var written = 0
        while written < frames {
            let n = silence.withUnsafeBytes { snd_pcm_writei(pcm, $0.baseAddress, snd_pcm_uframes_t(period)) }
            if n < 0 {
                if snd_pcm_recover(pcm, Int32(n), 1) < 0 { open.error = "write: " + String(cString: snd_strerror(Int32(n))); return open }
                continue
            }
            written += Int(n)
        }
        snd_pcm_drain(pcm)
        open.seconds = Double(written) / Double(rate)
        return open
    }

    // MARK: input

    public static func input() -> InputObservation {
        let fm = FileManager.default
        let events = ((try? fm.contentsOfDirectory(atPath: "/sys/class/input")) ?? []).filter { $0.hasPrefix("event") }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
        var devices: [InputObservation.Device] = []
        for e in events {
            let sys = "/sys/class/input/\(e)/device"
            guard let kind = inputKind(sys) else { continue }
            let name = (try? String(contentsOfFile: "\(sys)/name", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            let node = "/dev/input/\(e)"
            var d = InputObservation.Device(node: node, name: name, kind: kind)
            let fd = Glibc.open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if fd < 0 { d.openError = String(cString: strerror(errno)) } else {
                // EVIOCGRAB = _IOW('E', 0x90, int): taken and given back at once.
                if ioctl(fd, 0x4004_4590, 1) != 0 { d.grabError = String(cString: strerror(errno)) } else { _ = ioctl(fd, 0x4004_4590, 0) }
                close(fd)
            }
            devices.append(d)
        }
        var hidraw: [InputObservation.Hidraw] = []
        for h in ((try? fm.contentsOfDirectory(atPath: "/sys/class/hidraw")) ?? []).sorted() {
            guard let uevent = try? String(contentsOfFile: "/sys/class/hidraw/\(h)/device/uevent", encoding: .utf8) else { continue }
            let upper = uevent.uppercased()
            // Sony DualSense (0CE6) and DualSense Edge (0DF2).
            guard upper.contains("0000054C:00000CE6") || upper.contains("0000054C:00000DF2") else { continue }
            let name = uevent.split(separator: "\n").first { $0.hasPrefix("HID_NAME=") }.map { String($0.dropFirst(9)) } ?? "DualSense"
            hidraw.append(.init(node: "/dev/\(h)", name: name, writable: access("/dev/\(h)", W_OK) == 0))
        }
        let rules = ["/lib/udev/rules.d/70-punktfunk-kiosk.rules", "/usr/lib/udev/rules.d/70-punktfunk-kiosk.rules",
                     "/etc/udev/rules.d/70-punktfunk-kiosk.rules"]
        let installed = rules.first { fm.fileExists(atPath: $0) }
        // Read as probe reads them: opened, asked, closed — nothing claimed or sent.
        let cec = CECAdapterSummary.list().map { a in
            InputObservation.CECAdapter(node: a.path, name: a.problem == nil ? "\(a.driver): \(a.name)" : "", openError: a.problem,
                                        physicalAddress: a.problem != nil || a.physicalAddress == 0xFFFF ? nil : a.physicalAddress)
        }
        return InputObservation(devices: devices, dualSenseHidraw: hidraw, udevRulesPath: installed ?? rules[0],
                                udevRulesInstalled: installed != nil, cecAdapters: cec)
    }

    /// keyboard / mouse / pad / touchpad from the sysfs capability bitmaps; nil for anything else
    /// (power buttons, lid switches, motion sensors).
    public static func inputKind(_ sys: String) -> String? {
        func bits(_ name: String) -> (Int) -> Bool {
            let words = ((try? String(contentsOfFile: "\(sys)/capabilities/\(name)", encoding: .utf8)) ?? "")
                .split(whereSeparator: { $0 == " " || $0 == "\n" }).map { UInt64($0, radix: 16) ?? 0 }
            return { bit in
                let index = words.count - 1 - bit / 64
                return index >= 0 && words[index] & (1 << UInt64(bit % 64)) != 0
            }
        }
        let key = bits("key"), rel = bits("rel"), abs = bits("abs")
        if key(0x130) || key(0x131) { return "pad" }                       // BTN_SOUTH / BTN_EAST
        if abs(0x35) && key(0x14A) { return "touchpad" }                    // ABS_MT_POSITION_X + BTN_TOUCH
        if rel(0) && rel(1) && key(0x110) { return "mouse" }                // REL_X, REL_Y, BTN_LEFT
        if key(30) && key(28) && key(57) { return "keyboard" }              // KEY_A, KEY_ENTER, KEY_SPACE
        return nil
    }

    // MARK: network

    public static func network(seconds: Double) -> NetworkObservation {
        var mdns: NetworkObservation.MDNSSocket
        var hosts: [String] = []
        do {
            let browser = try MDNSBrowser(log: { _ in })
            mdns = browser.mode == .shared ? .shared : .oneShot(reason: "another responder holds it without SO_REUSEPORT")
            hosts = browser.run(for: seconds).map { "\($0.name) (\($0.target):\($0.port))" }
            browser.stop()
        } catch {
            mdns = .failed(reason: "\(error)")
        }
        let asked = UDPSocket.defaultBufferBytes
        var granted = 0
        if let any = SocketAddress(ip: "0.0.0.0", port: 0), let socket = try? UDPSocket(bind: any) {
            granted = socket.bufferSizes.receive / 2  // Linux reports twice the usable size
            socket.close()
        }
        return NetworkObservation(mdns: mdns, hostsSeen: hosts, browseSeconds: seconds,
                                  receiveBufferAsked: asked, receiveBufferGranted: granted)
    }

    // MARK: Wi-Fi

    /// Watches every Wi-Fi interface's events while the rest of `check` runs (the host browse);
    /// `finish` reads the links and ends the watch.
    public final class WiFiListen {
        let started = MonotonicClock.nowNs()
        let watches: [WiFiEventWatch]
        let nl: NL80211?
        let names: [String]
        let nlError: String?

        public init() {
            var socket: NL80211?
            do throws(GenericNetlink.Failure) {
                socket = try NL80211()
                names = try socket!.interfaces()
                nlError = nil
            } catch {
                names = []
                nlError = "\(error)"
            }
            nl = socket
            watches = names.compactMap { try? WiFiEventWatch(interface: $0) }
            for w in watches { w.start() }
        }

        /// - Parameter directory: the profile directory (its `stalls.json`), nil: none.
        public func finish(directory: URL?) -> WiFiObservation {
            var heard: [String: Int] = [:]
            for w in watches {
                // a scan counts once, at its start
                w.drain { e in if e.kind != .scanEnded { heard[e.cause.shortWords, default: 0] += 1 } }
                w.stop()
            }
            let seconds = Double(MonotonicClock.nowNs() - started) / 1e9
            let links = names.map { name -> WiFiObservation.Link in
                guard let nl else { return .init(interface: name, error: "no nl80211 socket") }
                do throws(GenericNetlink.Failure) {
                    let l = try nl.link(name)
                    return .init(interface: name, frequencyMHz: l.frequencyMHz, channel: l.channel, bandGHz: l.bandGHz,
                                 signalDBm: l.signalDBm, txKbps: l.txKbps, powerSave: l.powerSave)
                } catch {
                    return .init(interface: name, error: "\(error)")
                }
            }
            let last = directory.flatMap(LastStreamStalls.read(in:)).map {
                WiFiObservation.LastStream(endedUnixSeconds: $0.endedUnixSeconds, summary: $0.summary, wifiCaused: $0.wifiCaused,
                                           total: $0.total, periodAdvice: $0.periodAdvice)
            }
            return WiFiObservation(links: links, nl80211Error: nlError, canSetPowerSave: CheckGather.hasNetAdmin(),
                                   eventsHeard: heard, listenedSeconds: seconds, lastStream: last)
        }
    }

    /// CAP_NET_ADMIN (12) in this process's effective set (/proc/self/status CapEff).
    static func hasNetAdmin() -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
              let bits = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) else { return geteuid() == 0 }
        return bits & (1 << 12) != 0
    }

    // MARK: the box

    /// - Parameter directory: the profile directory (its config's path and problems), nil: none.
    public static func box(directory: URL?) -> BoxObservation {
        var u = utsname()
        uname(&u)
        func field<T>(_ v: T) -> String {
            withUnsafeBytes(of: v) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let kernel = "\(field(u.release)) \(field(u.machine))"
        let osRelease = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let pretty = osRelease.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { String($0.dropFirst(12)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } ?? "unknown distribution"
        let rt = Int(clamping: PresentThreadScheduling.priorityLimit)
        let fm = FileManager.default
        let logind = fm.fileExists(atPath: "/run/systemd/seats") && fm.fileExists(atPath: "/run/dbus/system_bus_socket")
        let path = directory.map { $0.appendingPathComponent(ConfigFile.fileName).path } ?? "(no profile directory)"
        var problems: [String]?
        if let directory, fm.fileExists(atPath: path) {
            do { problems = try ConfigFile.load(from: directory).problems.map(\.description) } catch { problems = ["cannot read it: \(error)"] }
        }
        return BoxObservation(kernel: kernel, distribution: pretty, rtPriorityLimit: rt, isRoot: geteuid() == 0,
                              logindReachable: logind, configPath: path, configProblems: problems)
    }
}
