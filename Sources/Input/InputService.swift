import CPunktfunkLinux
import Foundation
import Glibc
import PunktfunkWire
import SystemClock

/// The input thread: every evdev keyboard, mouse, touchpad and pad, hot-plugged, mapped onto
/// the wire through an `InputMapper`, and the host's feedback (rumble, DualSense output) back
/// onto the devices.
///
/// One native thread waits in epoll over the device fds, the udev monitor and an eventfd
/// (commands from other threads). Keyboards and mice are grabbed (EVIOCGRAB) while the service
/// runs and released when it stops. `stop()` lets go of everything the host holds, stops the
/// motors and trigger effects, hands the LEDs back and joins the thread.
///
/// Thread contract: `setPolicy`, `feedback`, `stop` and `counters` may be called from any
/// thread; the sink and `onEscape` are called on the input thread.
public final class InputService: @unchecked Sendable {
    public struct Options: Sendable {
        /// EVIOCGRAB keyboards and mice while in use.
        public var grab = true
        /// SDL-format mapping lines for pads the kernel maps oddly.
        public var mappings: [SDLMapping] = []
        public init() {}
    }

    private let mapper: InputMapper
    private let options: Options
    private let lock = NSLock()
    private let wake: Int32
    private var pendingPolicy: InputPolicy??
    private var pendingGrants: AccessGrants?
    private var pendingFeedback: [HostDatagram] = []
    private var stopRequested = false
    private var published = InputCounters()
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    /// Called on the input thread when an escape chord fires.
    public var onEscape: () -> Void {
        get { mapper.onEscape }
        set { mapper.onEscape = newValue }
    }

    public init(sink: InputSink, options: Options = Options()) {
        mapper = InputMapper(sink: sink)
        self.options = options
        wake = pf_wake_fd()
    }

    deinit { if wake >= 0 { close(wake) } }

    /// Starts the thread. - Returns: a sentence when input cannot run at all (no epoll, no
    /// eventfd); devices that cannot be opened are only reported.
    public func start() -> String? {
        guard wake >= 0 else { return "input: no eventfd (\(String(cString: strerror(-wake))))" }
        let ep = pf_epoll_create()
        guard ep >= 0 else { return "input: no epoll (\(String(cString: strerror(-ep))))" }
        let t = Thread { [self] in
            let loop = Loop(service: self, epoll: ep)
            loop.run()
            close(ep)
            finished.signal()
        }
        t.name = "input"
        t.stackSize = 1 << 20
        thread = t
        t.start()
        return nil
    }

    /// The session's policy (nil: suspended — no session, or resuming).
    public func setPolicy(_ policy: InputPolicy?) {
        post { pendingPolicy = .some(policy) }
    }

    /// The host changed this device's access grants (AccessUpdate): the policy keeps its
    /// capabilities and takes the new grants.
    public func updateGrants(_ grants: AccessGrants) {
        post { pendingGrants = grants.normalized }
    }

    /// A host datagram for the devices (rumble, HID output); others are ignored.
    public func feedback(_ datagram: HostDatagram) {
        switch datagram {
        case .rumble, .hidOutput: post { if pendingFeedback.count < 256 { pendingFeedback.append(datagram) } }
        default: break
        }
    }

    /// Releases everything held on the host, resets the devices' feedback, ungrabs, and joins
    /// the thread (at most `timeout` seconds). Idempotent.
    public func stop(timeout: Double = 2) {
        guard thread != nil else { return }
        post { stopRequested = true }
        _ = finished.wait(timeout: .now() + timeout)
        thread = nil
    }

    public var counters: InputCounters { lock.withLock { published } }

    private func post(_ body: () -> Void) {
        lock.withLock(body)
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// What the thread owns.
    private final class Loop: InputServiceLoopAccess {
        let service: InputService
        let epoll: Int32
        let udev: UdevDevices?
        var devices: [Int: EvdevDevice] = [:]
        var byNode: [String: Int] = [:]
        /// Group key → the pad's device id.
        var padOfGroup: [String: Int] = [:]
        /// Sibling nodes (touchpad, motion) waiting for their pad, by group key.
        var orphans: [String: [EvdevDevice]] = [:]
        var feedback: PadFeedback
        var nextID = 0
        var tags = [UInt64](repeating: 0, count: 32)
        var hangups = [Int32](repeating: 0, count: 32)
        var mapper: InputMapper { service.mapper }

        init(service: InputService, epoll: Int32) {
            self.service = service
            self.epoll = epoll
            udev = UdevDevices()
            feedback = PadFeedback()
        }

        func say(_ line: String) { FileHandle.standardError.write(Data("punktfunk-kiosk: input: \(line)\n".utf8)) }

        func run() {
            _ = pf_epoll_add(epoll, service.wake, 0)
            if let udev {
                if udev.monitorDescriptor >= 0 { _ = pf_epoll_add(epoll, udev.monitorDescriptor, 1) }
                // Pads first, so their siblings find them.
                let nodes = udev.enumerate()
                for n in nodes { add(n, padsOnly: true) }
                for n in nodes where byNode[n.devnode] == nil { add(n, padsOnly: false) }
            } else {
                say("libudev is unavailable; no devices")
            }
            var running = true
            while running {
                let now = MonotonicClock.nowNs()
                let next = mapper.tick(nowNs: now)
                feedback.tick(nowNs: now, devices: self)
                let waitMs = Int32(clamping: (next > now ? next - now : 0) / 1_000_000 + 1)
                let n = pf_epoll_wait(epoll, &tags, &hangups, Int32(tags.count), min(waitMs, feedback.nextDeadlineMs(nowNs: now)))
                if n < 0 && n != -EINTR { say("epoll failed: \(String(cString: strerror(-n)))"); break }
                for i in 0..<max(0, Int(n)) {
                    switch tags[i] {
                    case 0: running = commands()
                    case 1: hotplug()
                    default: readDevice(Int(tags[i] - 2), hungUp: hangups[i] != 0)
                    }
                }
                publish()
            }
            // Let go of everything: host first (releases leave before the session ends), then
            // the devices' feedback, then the grabs.
            mapper.releaseAll()
            mapper.setPolicy(nil)        // the pads stay: no removal goes out for them
            feedback.reset(devices: self)
            publish()
            for id in Array(devices.keys) { drop(id, reason: nil) }
            orphans.removeAll()
        }

        func publish() {
            let c = mapper.counters
            service.lock.withLock { service.published = c }
        }

        /// Applies queued commands. - Returns: false when asked to stop.
        func commands() -> Bool {
            var counter: UInt64 = 0
            _ = read(service.wake, &counter, 8)
            let (policy, grants, datagrams, stop) = service.lock.withLock { () -> (InputPolicy??, AccessGrants?, [HostDatagram], Bool) in
                defer {
                    service.pendingPolicy = nil
                    service.pendingGrants = nil
                    service.pendingFeedback.removeAll(keepingCapacity: true)
                }
                return (service.pendingPolicy, service.pendingGrants, service.pendingFeedback, service.stopRequested)
            }
            if let policy { mapper.setPolicy(policy) }
            if let grants { mapper.updateGrants(grants) }
            for d in datagrams { feedback.apply(d, nowNs: MonotonicClock.nowNs(), devices: self) }
            return !stop
        }

        func hotplug() {
            guard let udev else { return }
            while let change = udev.receive() {
                switch change {
                case .added(let node)?: if byNode[node.devnode] == nil { add(node, padsOnly: false) }
                case .removed(let devnode)?: if let id = byNode[devnode] { drop(id, reason: "removed") }
                case nil: continue
                }
            }
        }

        func add(_ node: InputNode, padsOnly: Bool) {
            let device: EvdevDevice
            switch EvdevDevice.open(node) {
            case .success(let d): device = d
            case .failure(let why): if !padsOnly { say(why) }; return
            }
            if padsOnly && device.kind != .gamepad { return }
            let group = node.groupKey
            let role: DeviceRole
            switch device.kind {
            case .keyboard: role = .keyboard
            case .mouse: role = .mouse
            case .gamepad:
                var desc = device.padDescription()
                let guid = SDLMapping.guid(bustype: device.bustype, vendor: device.vendor, product: device.product,
                                           version: device.version, name: device.name)
                if let m = SDLMapping.find(guid, in: service.options.mappings) {
                    desc.layout = m.apply(to: desc.layout, buttons: device.sdlButtonCodes(), axes: device.sdlAxisCodes())
                    for (code, _) in desc.layout.axisCodes.enumerated() where desc.ranges[desc.layout.axisCodes[code]] == nil {
                        if let r = device.range(desc.layout.axisCodes[code]) { desc.ranges[desc.layout.axisCodes[code]] = r }
                    }
                    say("\(node.devnode) uses the SDL mapping \"\(m.name)\"")
                }
                role = .gamepad(desc)
            case .touchpad:
                if let group, let pad = padOfGroup[group] {
                    role = .padTouchpad(controller: pad, x: device.range(EV.absMTPositionX) ?? AxisRange(minimum: 0, maximum: 1),
                                        y: device.range(EV.absMTPositionY) ?? AxisRange(minimum: 0, maximum: 1))
                } else if let group, device.vendor == 0x054C {
                    orphans[group, default: []].append(device)
                    return
                } else {
                    role = .touchpad(x: device.range(EV.absX) ?? AxisRange(minimum: 0, maximum: 1),
                                     y: device.range(EV.absY) ?? AxisRange(minimum: 0, maximum: 1))
                }
            case .motion:
                guard let group else { return }
                guard let pad = padOfGroup[group] else { orphans[group, default: []].append(device); return }
                role = motionRole(device, pad: pad)
            case .other:
                return
            }
            let id = nextID
            nextID += 1
            devices[id] = device
            byNode[node.devnode] = id
            let rc = pf_epoll_add(epoll, device.fd, UInt64(id + 2))
            if rc < 0 { say("cannot watch \(node.devnode): \(String(cString: strerror(-rc)))") }
            if service.options.grab, device.kind == .keyboard || device.kind == .mouse, let why = device.grab(true) { say(why) }
            mapper.add(device: id, role: role)
            if case .gamepad(let pad) = role {
                var state: [(UInt16, UInt16, Int32)] = []
                for code in device.sdlButtonCodes() where device.isDown(code) { state.append((EV.key, code, 1)) }
                for code in pad.layout.axisCodes + [EV.absHat0X, EV.absHat0Y] where device.hasAbs(code) {
                    state.append((EV.abs, code, device.value(abs: code)))
                }
                mapper.seedPad(device: id, events: state)
            }
            if case .keyboard = role {
                for part in EscapeChord.keyboard.parts {
                    for code in part where device.isDown(UInt16(code)) { mapper.seedPressed(device: id, code: UInt16(code)) }
                }
            }
            say("\(node.devnode) \"\(device.name)\" is a \(describe(role))\(mapper.slot(of: id).map { " in slot \($0)" } ?? "")")
            if case .gamepad = role, let group {
                padOfGroup[group] = id
                feedback.attach(pad: id, node: node, device: device, slot: mapper.slot(of: id), devices: self)
                for sibling in orphans.removeValue(forKey: group) ?? [] {
                    // Reopened through the normal path so it gets its role and epoll watch.
                    let n = sibling.node
                    add(n, padsOnly: false)
                }
            }
        }

        func motionRole(_ d: EvdevDevice, pad: Int) -> DeviceRole {
            let one = AxisRange(minimum: -1, maximum: 1, resolution: 1)
            return .padMotion(controller: pad, accel: [EV.absX, EV.absY, EV.absZ].map { d.range($0) ?? one },
                              gyro: [EV.absRX, EV.absRY, EV.absRZ].map { d.range($0) ?? one })
        }

        func describe(_ role: DeviceRole) -> String {
            switch role {
            case .keyboard: "keyboard"
            case .mouse: "mouse"
            case .touchpad: "touchpad"
            case .gamepad(let p): "gamepad (\(p.kind.name))"
            case .padTouchpad: "pad touchpad"
            case .padMotion: "pad motion sensor"
            }
        }

        func readDevice(_ id: Int, hungUp: Bool) {
            guard let d = devices[id] else { return }
            let end = d.read { type, code, value, _ in
                self.mapper.handle(device: id, type: type, code: code, value: value)
            }
            if case .gone(let e) = end {
                drop(id, reason: e == ENODEV ? "gone (ENODEV)" : "read failed: \(String(cString: strerror(e)))")
            } else if hungUp {
                drop(id, reason: "hung up")
            }
        }

        /// Stops using device `id`: the mapper releases what it held, the grab goes with it.
        func drop(_ id: Int, reason: String?) {
            guard let d = devices.removeValue(forKey: id) else { return }
            byNode[d.node.devnode] = nil
            _ = pf_epoll_remove(epoll, d.fd)
            mapper.remove(device: id)
            feedback.detach(pad: id)
            if let group = d.node.groupKey, padOfGroup[group] == id { padOfGroup[group] = nil }
            if let reason { say("\(d.node.devnode) \(reason)") }
            _ = d.grab(false)
        }

        /// The device of a wire pad slot.
        func padDevice(slot: Int) -> (id: Int, device: EvdevDevice)? {
            for (id, d) in devices where mapper.slot(of: id) == slot { return (id, d) }
            return nil
        }
    }
}
