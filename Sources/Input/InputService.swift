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
/// Two routes (`InputRoute`): `.host` maps every device onto the attached session's sink
/// (`InputMapper`); `.shell` maps them onto `NavigationEvent`s for the `NavigationHandler`
/// (`NavigationMapper`), and the host holds nothing. A service made with a sink is the host
/// route for its life (one stream); one made with a handler starts in the shell and lives as
/// long as the process, sessions attaching and detaching (`attach(sink:)`, `detach()`), the
/// runner switching the route (`setRoute`).
///
/// Thread contract: `setPolicy`, `setRoute`, `attach`, `detach`, `identify`, `feedback`, `stop`,
/// `pads` and `counters` may be called from any thread; the sink, the handler, `onEscape` and
/// `onPadsChanged` are called on the input thread (set those before `start()`).
public final class InputService: @unchecked Sendable {
    public struct Options: Sendable {
        /// EVIOCGRAB keyboards and mice while in use.
        public var grab = true
        /// SDL-format mapping lines for pads the kernel maps oddly.
        public var mappings: [SDLMapping] = []
        /// Read keyboards, mice and touchpads through evdev. Off under a compositor: they are its
        /// devices there and reach the kiosk through `seat(_:)`; pads stay on evdev either way.
        public var evdevKeyboardsAndMice = true
        /// The TV's remote and power over HDMI-CEC (nil: CEC off; nothing is opened).
        public var cec: CECOptions?
        public init() {}
    }

    private let mapper: InputMapper
    private let navigation = NavigationMapper()
    /// Hears the shell route (weak: its owner usually owns the service). Set before `start()`.
    public weak var navigationHandler: NavigationHandler?
    private let options: Options
    private var pendingRoute: InputRoute?
    private var pendingSink: InputSink?
    private var pendingIdentify: [Int] = []
    private var publishedPads: [PadInfo] = []
    /// Signalled by the input thread when a `detach` was carried out.
    private let detached = DispatchSemaphore(value: 0)
    /// The sink a `detach` asked to let go of.
    private var detachRequested: InputSink?
    private let lock = NSLock()
    private let wake: Int32
    private var pendingPolicy: InputPolicy??
    private var pendingGrants: AccessGrants?
    private var pendingFeedback: [HostDatagram] = []
    /// The host's pointer capture as the newest 0xD0 says, and whether the input thread has it.
    private var hostCaptured = false, hostCapturedChanged = false
    /// Seat events (`seat(_:)`) not yet applied, in arrival order.
    private var pendingSeat: [SeatEvent] = []
    /// Seat events dropped because the input thread fell this far behind.
    static let seatBacklog = 4096
    private var pendingCEC: [CECCommand] = []
    private var publishedCEC: String?
    private var stopRequested = false
    private var published = InputCounters()
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    /// The pointer the box draws for the host: in its desktop mode mice and touchpads move it and
    /// the host gets their motion as places (`InputMapper.localPointer`). Set before `start()`;
    /// kept weakly (its owner keeps it).
    public var localPointer: LocalPointer? {
        get { mapper.localPointer }
        set { mapper.localPointer = newValue }
    }

    /// Called on the input thread when an escape chord fires.
    public var onEscape: () -> Void {
        get { mapper.onEscape }
        set { mapper.onEscape = newValue }
    }

    /// Called on the input thread with what the HDMI-CEC bus says (the TV's standby, the adapter
    /// ready or gone). Set before `start()`.
    public var onCEC: (CECNotice) -> Void = { _ in }

    /// Called on the input thread when the pads in use (or their batteries) change.
    public var onPadsChanged: ([PadInfo]) -> Void = { _ in }

    /// A service for one stream: every device goes to `sink`, the host route for its life.
    public init(sink: InputSink, options: Options = Options()) {
        mapper = InputMapper(sink: sink)
        self.options = options
        wake = pf_wake_fd()
        navigation.setRoute(.host)
    }

    /// A service for the process's life: the shell route first, `navigationHandler` hearing
    /// navigation; sessions attach and detach.
    public init(options: Options = Options()) {
        mapper = InputMapper(sink: DetachedSink())
        mapper.leaveForShell()
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

    /// Where the devices' input goes from now (see `InputRoute`). Going to the shell releases
    /// everything the host holds first; a press made in one route is never acted on in the other.
    public func setRoute(_ route: InputRoute) {
        post { pendingRoute = route }
    }

    /// A session's sink takes the host route's events from now (its policy follows with
    /// `setPolicy` once the session is established). A session still attached is let go first
    /// (as `detach`).
    public func attach(sink: InputSink) {
        post { pendingSink = sink }
    }

    /// The session of `sink` goes: everything its host holds is released (queued before the
    /// session's quit when called before the pipeline stops), the policy is dropped, the sink
    /// let go. Nothing happens when another session's sink was attached since. Waits for the
    /// input thread to do it (at most `timeout` seconds).
    public func detach(_ sink: InputSink, timeout: Double = 1) {
        guard thread != nil else { return }
        while detached.wait(timeout: .now()) == .success {}   // a late signal of an earlier timeout
        post { detachRequested = sink }
        _ = detached.wait(timeout: .now() + timeout)
    }

    /// Rumble (and on a DualSense, a lightbar flash) for 300 ms on the pad in `slot`.
    public func identify(slot: Int) {
        post { if pendingIdentify.count < 16 { pendingIdentify.append(slot) } }
    }

    /// The pads in use now, by slot.
    public var pads: [PadInfo] { lock.withLock { publishedPads } }

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
        case .cursor(let state):
            // Once per captured frame: the input thread hears only a change.
            let captured = state.flags.contains(.relativeHint)
            guard lock.withLock({ captured != hostCaptured }) else { return }
            post { hostCaptured = captured; hostCapturedChanged = true }
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

    /// Events of a compositor's seat (keyboard and pointer focus, keys, pointer motion, buttons,
    /// scrolling, the pointer lock): mapped on the input thread, in order, exactly as evdev
    /// keyboards and mice are (`SeatInput`), into whichever route is current. Any thread (the
    /// Wayland backend's dispatch thread); never blocks. A backlog past `seatBacklog` events
    /// drops the newest.
    public func seat(_ events: [SeatEvent]) {
        guard !events.isEmpty else { return }
        post { pendingSeat.append(contentsOf: events.prefix(max(0, Self.seatBacklog - pendingSeat.count))) }
    }

    public func seat(_ event: SeatEvent) { seat([event]) }
    /// Asks the TV for something over HDMI-CEC (ignored when CEC is off or has no adapter; a
    /// command before the adapter has its addresses waits for them).
    public func cec(_ command: CECCommand) {
        post { if pendingCEC.count < 16 { pendingCEC.append(command) } }
    }

    /// The CEC counters as one line (nil: no adapter in use).
    public var cecCounters: String? { lock.withLock { publishedCEC } }

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
        var navigation: NavigationMapper { service.navigation }
        /// The compositor's seat as two more devices of the mappers.
        lazy var seatInput = SeatInput(mapper: service.mapper, navigation: service.navigation)
        /// Battery readings by device id (pads with a HID parent).
        var batteries: [Int: (percent: Int?, charging: Bool?)] = [:]
        var nextBatteryNs: UInt64 = 0
        var pads: [PadInfo] = []
        /// The HDMI-CEC adapter in use (nil: CEC off, none, or gone).
        var cec: CECLink?

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
            let service = self.service
            navigation.onEvent = { event in service.navigationHandler?.navigate(event, nowNs: MonotonicClock.nowNs()) }
            if let options = service.options.cec { startCEC(options) }
            var running = true
            while running {
                let now = MonotonicClock.nowNs()
                var next = mapper.tick(nowNs: now)
                if let due = service.navigationHandler?.tick(nowNs: now) { next = min(next, due) }
                if let due = cec?.tick(now: now) { next = min(next, due) }
                feedback.tick(nowNs: now, devices: self)
                if now >= nextBatteryNs {
                    nextBatteryNs = now + PadBattery.refreshNs
                    readBatteries()
                }
                let waitMs = Int32(clamping: (next > now ? next - now : 0) / 1_000_000 + 1)
                let n = pf_epoll_wait(epoll, &tags, &hangups, Int32(tags.count), min(waitMs, feedback.nextDeadlineMs(nowNs: now)))
                if n < 0 && n != -EINTR { say("epoll failed: \(String(cString: strerror(-n)))"); break }
                for i in 0..<max(0, Int(n)) {
                    switch tags[i] {
                    case 0: running = commands()
                    case 1: hotplug()
                    case CECLink.epollTag: if cec?.readable(now: MonotonicClock.nowNs()) == false { dropCEC() }
                    default: readDevice(Int(tags[i] - 2), hungUp: hangups[i] != 0)
                    }
                }
                publish()
            }
            cec?.shutdown()              // the remote's held key goes up (to the host, if it holds it)
            navigation.setRoute(.host)   // the shell's held directions end
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
            let line = cec?.countersLine
            service.lock.withLock { service.published = c; service.publishedCEC = line }
        }

        /// Opens the CEC adapter; its remote becomes a keyboard of both mappers.
        func startCEC(_ options: CECOptions) {
            let hooks = CECLink.Hooks(
                hostKey: { [unowned self] code, down in
                    mapper.handle(device: CECLink.deviceID, type: EV.key, code: code, value: down ? 1 : 0)
                    mapper.handle(device: CECLink.deviceID, type: EV.syn, code: EV.synReport, value: 0)
                },
                shellKey: { [unowned self] code, down in
                    navigation.handle(device: CECLink.deviceID, type: EV.key, code: code, value: down ? 1 : 0)
                },
                openMenu: { [unowned self] in mapper.onEscape() },
                route: { [unowned self] in navigation.route },
                notify: { [unowned self] notice in service.onCEC(notice) },
                say: { [unowned self] line in say(line) })
            guard let link = CECLink.start(options, epoll: epoll, hooks: hooks) else { return }
            cec = link
            mapper.addRemote(device: CECLink.deviceID)
            navigation.add(device: CECLink.deviceID, role: .keyboard, family: .tvRemote)
        }

        /// The adapter went away: its remote leaves the mappers (what it held is released).
        func dropCEC() {
            guard let link = cec else { return }
            _ = pf_epoll_remove(epoll, link.adapter.fd)
            cec = nil
            mapper.remove(device: CECLink.deviceID)
            navigation.remove(device: CECLink.deviceID)
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
            let captured = service.lock.withLock { () -> Bool? in
                defer { service.hostCapturedChanged = false }
                return service.hostCapturedChanged ? service.hostCaptured : nil
            }
            if let captured { mapper.setPointerCaptured(captured) }
            let cecCommands = service.lock.withLock { () -> [CECCommand] in
                defer { service.pendingCEC.removeAll(keepingCapacity: true) }
                return service.pendingCEC
            }
            for c in cecCommands { cec?.command(c, now: MonotonicClock.nowNs()) }
            let (route, sink, detach, identify) = service.lock.withLock { () -> (InputRoute?, InputSink?, InputSink?, [Int]) in
                defer {
                    service.pendingRoute = nil
                    service.pendingSink = nil
                    service.detachRequested = nil
                    service.pendingIdentify.removeAll(keepingCapacity: true)
                }
                return (service.pendingRoute, service.pendingSink, service.detachRequested, service.pendingIdentify)
            }
            if let detach {
                if detach === mapper.sink { letGoOfSession() }
                service.detached.signal()
            }
            if let sink {
                if !(mapper.sink is DetachedSink) { letGoOfSession() }
                mapper.setSink(sink)
            }
            if let route {
                // Order keeps "nothing held": the host lets go before the shell hears anything;
                // the shell lets go (its held directions end) before the host hears anything.
                if route == .shell { mapper.leaveForShell(); navigation.setRoute(.shell) }
                else { navigation.setRoute(.host); mapper.returnFromShell() }
                say("input goes to the \(route == .shell ? "shell" : "host")")
            }
            for slot in identify { feedback.identify(slot: slot, nowNs: MonotonicClock.nowNs(), devices: self) }
            if let policy { mapper.setPolicy(policy) }
            if let grants { mapper.updateGrants(grants) }
            let seatEvents = service.lock.withLock { () -> [SeatEvent] in
                defer { service.pendingSeat.removeAll(keepingCapacity: true) }
                return service.pendingSeat
            }
            for event in seatEvents { seatInput.handle(event) }
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
            if !service.options.evdevKeyboardsAndMice, device.kind.isKeyboardOrPointer { return }
            let group = node.groupKey
            let role: DeviceRole
            switch device.kind {
            case .keyboard: role = .keyboard
            case .mouse: role = .mouse
            case .absolutePointer:
                role = .absolutePointer(x: device.range(EV.absX) ?? AxisRange(minimum: 0, maximum: 1),
                                        y: device.range(EV.absY) ?? AxisRange(minimum: 0, maximum: 1))
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
                    guard service.options.evdevKeyboardsAndMice else { return }
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
            if service.options.grab, device.kind.isKeyboardOrPointer, let why = device.grab(true) { say(why) }
            mapper.add(device: id, role: role)
            navigation.add(device: id, role: role)
            if case .absolutePointer = role {
                mapper.seedPosition(device: id, x: device.value(abs: EV.absX), y: device.value(abs: EV.absY))
                navigation.handle(device: id, type: EV.abs, code: EV.absX, value: device.value(abs: EV.absX))
                navigation.handle(device: id, type: EV.abs, code: EV.absY, value: device.value(abs: EV.absY))
            }
            if case .gamepad(let pad) = role {
                var state: [(UInt16, UInt16, Int32)] = []
                for code in device.sdlButtonCodes() where device.isDown(code) { state.append((EV.key, code, 1)) }
                for code in pad.layout.axisCodes + [EV.absHat0X, EV.absHat0Y] where device.hasAbs(code) {
                    state.append((EV.abs, code, device.value(abs: code)))
                }
                mapper.seedPad(device: id, events: state)
                // Buttons already down are not the shell's presses: the first frame sees them
                // as they are, and only their releases follow (ignored).
                for (t, c, v) in state { navigation.handle(device: id, type: t, code: c, value: v) }
                navigation.seedFrame(device: id)
            }
            if case .keyboard = role {
                for part in EscapeChord.keyboard.parts {
                    for code in part where device.isDown(UInt16(code)) { mapper.seedPressed(device: id, code: UInt16(code)) }
                }
                for code: UInt16 in [42, 54, 29, 97, 56, 100] where device.isDown(code) { navigation.seedPressed(device: id, code: code) }
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
            if case .gamepad = role {
                if let hid = node.hidParent { batteries[id] = PadBattery.read(hidDevice: hid) }
                publishPads()
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
            case .absolutePointer: "pointer at absolute positions (tablet, touchscreen)"
            case .gamepad(let p): "gamepad (\(p.kind.name))"
            case .padTouchpad: "pad touchpad"
            case .padMotion: "pad motion sensor"
            }
        }

        func readDevice(_ id: Int, hungUp: Bool) {
            guard let d = devices[id] else { return }
            let end = d.read { type, code, value, _ in
                self.mapper.handle(device: id, type: type, code: code, value: value)
                self.navigation.handle(device: id, type: type, code: code, value: value)
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
            let wasPad = mapper.slot(of: id) != nil
            mapper.remove(device: id)
            navigation.remove(device: id)
            feedback.detach(pad: id)
            batteries[id] = nil
            if wasPad { publishPads() }
            if let group = d.node.groupKey, padOfGroup[group] == id { padOfGroup[group] = nil }
            if let reason { say("\(d.node.devnode) \(reason)") }
            _ = d.grab(false)
        }

        /// Releases go to the attached session, then nothing more reaches it; the pads' feedback
        /// from its host ends.
        func letGoOfSession() {
            mapper.releaseAll()
            mapper.setPolicy(nil)
            mapper.setPointerCaptured(false)
            service.lock.withLock { service.hostCaptured = false; service.hostCapturedChanged = false }
            mapper.setSink(DetachedSink())
            feedback.reset(devices: self)
        }

        /// Reads every pad's battery again and publishes the list if anything changed.
        func readBatteries() {
            for (id, d) in devices where mapper.slot(of: id) != nil {
                if let hid = d.node.hidParent { batteries[id] = PadBattery.read(hidDevice: hid) }
            }
            publishPads()
        }

        /// The pads in use, by slot, for `pads` and `onPadsChanged` (only when changed).
        func publishPads() {
            var list: [PadInfo] = []
            for (id, d) in devices {
                guard let slot = mapper.slot(of: id), case .gamepad(let pad)? = roleOfPad(id) else { continue }
                let b = batteries[id]
                list.append(PadInfo(slot: slot, kind: pad.kind, name: d.name, battery: b?.percent ?? nil, charging: b?.charging ?? nil))
            }
            list.sort { $0.slot < $1.slot }
            guard list != pads else { return }
            pads = list
            service.lock.withLock { service.publishedPads = list }
            service.onPadsChanged(list)
        }

        func roleOfPad(_ id: Int) -> DeviceRole? { mapper.role(of: id) }

        /// The device of a wire pad slot.
        func padDevice(slot: Int) -> (id: Int, device: EvdevDevice)? {
            for (id, d) in devices where mapper.slot(of: id) == slot { return (id, d) }
            return nil
        }
    }
}

/// Hears the shell route's navigation on the input thread, and keeps its own timing there (a
/// held direction's auto-repeat fires even while other threads are busy).
public protocol NavigationHandler: AnyObject {
    /// One event, at `nowNs` (CLOCK_MONOTONIC).
    func navigate(_ event: NavigationEvent, nowNs: UInt64)
    /// Called on every pass of the input loop. - Returns: when to be called next (nil: no
    /// deadline; the loop waits for devices).
    func tick(nowNs: UInt64) -> UInt64?
}

/// The sink while no session is attached: takes nothing.
final class DetachedSink: InputSink {
    func send(_ event: InputEvent, reliable: Bool) -> Bool { false }
    func send(_ rich: RichInput) -> Bool { false }
}
