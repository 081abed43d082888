import PunktfunkWire

/// Maps evdev events of the devices in use onto the wire, through an `InputSink`. Pure: no
/// I/O, no clock (the caller passes `nowNs`), so every rule is unit-tested with plain values.
///
/// Per device, events are folded until SYN_REPORT and the frame is sent whole: mouse motion
/// summed, wheel detents or hi-res units summed, key and button edges in order, a pad's new
/// state as one snapshot (or its changed buttons and axes). Only what the policy's grants
/// allow is sent; nothing is sent while there is no policy (no session, or the connection is
/// being resumed).
///
/// Invariants: the host never holds a key, button or pad state we did not send and cannot take
/// back — `HeldState` records what went out, `releaseAll()` takes all of it back, and a policy
/// that comes back after a gap (resume) first releases what was held before the gap. The
/// escape chords' own keys are released to the host when a chord arms and withheld until it
/// fires (on the release of its last key). After `init`, handling an event allocates nothing.
public final class InputMapper {
    /// Where events go: the attached session's sink (a `DetachedSink` when none).
    public private(set) var sink: InputSink
    /// The devices' input goes to the shell: nothing is sent and the host holds nothing (see
    /// `leaveForShell`). The policy stays, so returning needs no new arrival announcements.
    public private(set) var inShell = false
    /// Called when an escape chord fires (input thread).
    public var onEscape: () -> Void = {}
    public private(set) var counters = InputCounters()
    public private(set) var held = HeldState()
    public private(set) var policy: InputPolicy?
    /// The host captured its pointer (0xD0's relative-mode hint, data-plane.md §7.3): absolute
    /// pointers send their motion as deltas (`mouseMove`) instead of positions (`mouseMoveAbs`).
    public private(set) var pointerCaptured = false
    /// The pointer the box draws for the host (`HostPointer`): in its desktop mode a mouse's or a
    /// touchpad's motion moves it and goes as `mouseMoveAbs` at its new place.
    public weak var localPointer: LocalPointer?

    /// Snapshot refresh period (data-plane.md §6.2), ns.
    public static let refreshNs: UInt64 = 100_000_000
    /// Arrival and removal are sent once and repeated this many times, one refresh apart.
    public static let announceRepeats = 2

    private var devices: [Int: Device] = [:]
    private var slots = PadSlotTable()
    /// Per slot: the pad's wrapping sequence (snapshots, removal).
    private var seqs = [UInt8](repeating: 0, count: Gamepad.maxPads)
    /// Per slot: a snapshot was sent since the pad arrived (it is refreshed).
    private var touched = [Bool](repeating: false, count: Gamepad.maxPads)
    /// Per slot: announcements still to repeat (arrival kind or removal).
    private var repeats = [Announcement?](repeating: nil, count: Gamepad.maxPads)
    private var keyboardChord = EscapeChord.keyboard
    private var nextRefreshNs: UInt64 = 0
    /// A gap (no policy) came after input was held: release when the policy returns.
    private var owesRelease = false

    private enum Announcement { case arrival(UInt8, left: Int), removal(left: Int) }

    public init(sink: InputSink) {
        self.sink = sink
        devices.reserveCapacity(32)
    }

    // MARK: - Policy

    /// Sets (or, with nil, suspends) the session's policy. Suspending keeps what the host holds
    /// on record; the next policy first releases it (the resumed session's host still holds it).
    public func setPolicy(_ next: InputPolicy?) {
        let was = policy
        policy = next
        guard next != nil else {
            if was != nil, !held.isEmpty { owesRelease = true }
            return
        }
        if owesRelease {
            owesRelease = false
            releaseAll()
        }
        if was == nil { announcePresentPads() }
    }

    /// New access grants mid-session (AccessUpdate). What a withdrawn grant covered is released
    /// first, while it may still be sent.
    public func updateGrants(_ grants: AccessGrants) {
        guard var p = policy, p.grants != grants else { return }
        if !p.grants.subtracting(grants).isEmpty, !held.isEmpty { releaseAll() }
        p.grants = grants
        policy = p
    }

    /// Sends to `next` from now on (a session attached or detached). Call `releaseAll()` on
    /// the old sink first when it still reaches its host.
    public func setSink(_ next: InputSink) { sink = next }

    /// Whether the host has captured its pointer (the newest 0xD0 says; false without one).
    public func setPointerCaptured(_ captured: Bool) { pointerCaptured = captured }

    // MARK: - Route

    /// The input goes to the shell: everything the host holds is released first, then nothing
    /// is sent (pad arrivals and removals meanwhile are repeated once the input comes back) and
    /// the escape chord does not fire.
    public func leaveForShell() {
        guard !inShell else { return }
        releaseAll()
        inShell = true
    }

    /// The input goes to the host again. Pad buttons down now were pressed for the shell: they
    /// are held back from the host until released (as at a pad's start); a keyboard key's
    /// release is not sent without its press (`HeldState`).
    public func returnFromShell() {
        guard inShell else { return }
        inShell = false
        // Arrivals and removals that waited go first (before any state of those pads).
        if policy != nil { for slot in 0..<Gamepad.maxPads { repeatAnnouncement(slot: slot) } }
        for d in devices.values where d.slot != nil {
            d.heldAtStart.formUnion(d.padState.buttons.subtracting(d.withheld))
        }
    }

    // MARK: - Devices

    /// A device came into use as `role`. A pad takes a stable slot and is announced.
    public func add(device id: Int, role: DeviceRole) {
        let d = Device(role: role)
        if case .gamepad(let pad) = role {
            guard let slot = slots.assign(device: id, uniq: pad.uniq) else {
                counters.droppedOther += 1
                return
            }
            d.slot = slot
            d.padState = PadWireState()
            touched[slot] = false
            if policy != nil { announce(slot: slot, kind: pad.kind) }
        }
        devices[id] = d
        counters.devices = devices.count
    }

    /// The TV remote (HDMI-CEC) came into use as a keyboard whose media keys (play/pause, stop,
    /// next/previous) also reach the host (`CECRemoteKeys.mediaVK`).
    public func addRemote(device id: Int) {
        add(device: id, role: .keyboard)
        devices[id]?.mediaKeys = true
    }

    /// A key that was already down when `device` came into use (the kernel's key state): never
    /// sent — its press did not happen in the stream — but it counts for the escape chord.
    public func seedPressed(device id: Int, code: UInt16) {
        guard let d = devices[id], case .keyboard = d.role else { return }
        keyboardChord.seed(UInt32(code))
        if let vk = EvdevKeyMap.vk(evdev: code) { d.keysDown.insert(vk) }
    }

    /// An absolute pointer's position when it came into use: its first motion is measured from
    /// here (nothing is sent for it).
    public func seedPosition(device id: Int, x: Int32, y: Int32) {
        guard let d = devices[id], case .absolutePointer = d.role else { return }
        d.absX = x; d.absY = y; d.lastX = x; d.lastY = y
        d.hadPosition = true
    }

    /// A pad's state when it came into use (the kernel's, as libevdev synced it): `events` are
    /// (type, code, value) as they would arrive. Sticks and triggers are taken as they are (the
    /// next frame sends them); buttons already down are held back from the host until they are
    /// released — their press did not happen in the stream.
    public func seedPad(device id: Int, events: [(UInt16, UInt16, Int32)]) {
        guard let d = devices[id], case .gamepad = d.role else { return }
        for (t, c, v) in events {
            if t == EV.key { key(d, code: c, value: v) } else if t == EV.abs { abs(d, code: c, value: v) }
        }
        d.heldAtStart = d.padState.buttons
        d.physicalSeen = d.padState.buttons
        for bit in 0..<32 where d.padState.buttons.rawValue & (1 << bit) != 0 { d.chord.seed(UInt32(1) << UInt32(bit)) }
    }

    /// The device left (udev remove, ENODEV). Its held keys and buttons are released; a pad is
    /// removed (GamepadRemove), which releases everything it held on the host.
    public func remove(device id: Int) {
        guard let d = devices.removeValue(forKey: id) else { return }
        counters.devices = devices.count
        switch d.role {
        case .keyboard:
            for vk in d.keysDown where held.key(vk: vk, down: false) { emit(.keyUp(vk: vk), reliable: true, grant: .keyboard) }
            keyboardChord.reset()
        case .mouse, .touchpad, .absolutePointer:
            for b in MouseButton.allCases where d.buttonsDown & (1 << UInt8(b.rawValue)) != 0 && held.mouseButton(b, down: false) {
                emit(.mouseButtonUp(b), reliable: false, grant: .pointer)
            }
        case .gamepad:
            guard let slot = d.slot else { return }
            slots.release(device: id)
            held.pad(slot, sent: PadWireState())
            touched[slot] = false
            seqs[slot] &+= 1
            if policy != nil, inShell {
                repeats[slot] = .removal(left: Self.announceRepeats + 1)
            } else if policy != nil {
                emit(.gamepadRemove(pad: UInt8(slot), seq: seqs[slot]), reliable: false, grant: .gamepad)
                repeats[slot] = .removal(left: Self.announceRepeats)
            } else {
                repeats[slot] = nil
            }
        case .padTouchpad(let controller, _, _):
            // A lost click is a lost button: clear it on the pad.
            if let pad = devices[controller], pad.padState.buttons.contains(.touchpad) {
                pad.padState.buttons.remove(.touchpad)
                flushPad(pad)
            }
        case .padMotion: break
        }
    }

    public var deviceIDs: Dictionary<Int, Device>.Keys { devices.keys }

    /// The wire slot of a pad device.
    public func slot(of device: Int) -> Int? { devices[device]?.slot }

    /// The role device `device` is in use as.
    public func role(of device: Int) -> DeviceRole? { devices[device]?.role }

    // MARK: - Events

    /// One evdev event of `device`. SYN_REPORT sends the folded frame; SYN_DROPPED discards the
    /// partial frame (the caller resyncs the device and feeds its corrected state, then a
    /// SYN_REPORT).
    public func handle(device id: Int, type: UInt16, code: UInt16, value: Int32) {
        guard let d = devices[id] else { return }
        switch type {
        case EV.syn:
            if code == EV.synReport { flush(d) } else if code == EV.synDropped { d.discardFrame() }
        case EV.key: key(d, code: code, value: value)
        case EV.rel: rel(d, code: code, value: value)
        case EV.abs: abs(d, code: code, value: value)
        default: break
        }
    }

    private func key(_ d: Device, code: UInt16, value: Int32) {
        guard value != 2 else { return }     // autorepeat: the host repeats on its own
        switch d.role {
        case .keyboard, .mouse, .touchpad, .absolutePointer:
            d.pushEdge(code: code, down: value != 0)
        case .gamepad(let pad):
            if let b = pad.layout.button(forKey: code) {
                if value != 0 { d.padState.buttons.insert(b) } else { d.padState.buttons.remove(b) }
            } else if !pad.analogTriggers, code == EV.btnTL2 {
                d.padState.leftTrigger = value != 0 ? 255 : 0
            } else if !pad.analogTriggers, code == EV.btnTR2 {
                d.padState.rightTrigger = value != 0 ? 255 : 0
            }
        case .padTouchpad(let controller, _, _):
            if code == EV.btnLeft, let pad = devices[controller] {
                if value != 0 { pad.padState.buttons.insert(.touchpad) } else { pad.padState.buttons.remove(.touchpad) }
                pad.pendingFromSibling = true
            } else if code == EV.btnTouch {
                d.touchDown = value != 0
            }
        case .padMotion: break
        }
    }

    private func rel(_ d: Device, code: UInt16, value: Int32) {
        switch code {
        case EV.relX: d.dx &+= value
        case EV.relY: d.dy &+= value
        case EV.relWheel: d.wheel &+= value
        case EV.relHWheel: d.hwheel &+= value
        case EV.relWheelHiRes: d.wheelHiRes &+= value; d.hasHiRes = true
        case EV.relHWheelHiRes: d.hwheelHiRes &+= value; d.hasHiRes = true
        default: break
        }
    }

    private func abs(_ d: Device, code: UInt16, value: Int32) {
        switch d.role {
        case .gamepad(let pad):
            if code == EV.absHat0X {
                d.padState.buttons.remove([.dpadLeft, .dpadRight])
                if value < 0 { d.padState.buttons.insert(.dpadLeft) } else if value > 0 { d.padState.buttons.insert(.dpadRight) }
            } else if code == EV.absHat0Y {
                d.padState.buttons.remove([.dpadUp, .dpadDown])
                if value < 0 { d.padState.buttons.insert(.dpadUp) } else if value > 0 { d.padState.buttons.insert(.dpadDown) }
            } else if let axis = pad.layout.axis(forAbs: code), let range = pad.ranges[code] {
                switch axis {
                case .leftStickX: d.padState.leftStickX = range.stick(value)
                case .leftStickY: d.padState.leftStickY = range.stick(value, invert: true)
                case .rightStickX: d.padState.rightStickX = range.stick(value)
                case .rightStickY: d.padState.rightStickY = range.stick(value, invert: true)
                case .leftTrigger: d.padState.leftTrigger = range.trigger(value)
                case .rightTrigger: d.padState.rightTrigger = range.trigger(value)
                }
            }
        case .touchpad, .absolutePointer:
            if code == EV.absX { d.absX = value; d.absXSeen = true } else if code == EV.absY { d.absY = value; d.absYSeen = true }
        case .padTouchpad:
            d.touch(code: code, value: value)
        case .padMotion:
            let i: Int
            switch code {
            case EV.absX: i = 0
            case EV.absY: i = 1
            case EV.absZ: i = 2
            case EV.absRX: i = 3
            case EV.absRY: i = 4
            case EV.absRZ: i = 5
            default: return
            }
            d.motion[i] = value
            d.motionChanged = true
        default: break
        }
    }

    // MARK: - Frames

    private func flush(_ d: Device) {
        switch d.role {
        case .keyboard: flushKeys(d)
        case .mouse: flushMouse(d)
        case .touchpad(let rx, let ry): flushTouchpad(d, rx: rx, ry: ry)
        case .absolutePointer(let rx, let ry): flushAbsolutePointer(d, rx: rx, ry: ry)
        case .gamepad: flushPad(d)
        case .padTouchpad(let controller, let rx, let ry): flushPadTouch(d, controller: controller, rx: rx, ry: ry)
        case .padMotion(let controller, let accel, let gyro): flushMotion(d, controller: controller, accel: accel, gyro: gyro)
        }
    }

    private func flushKeys(_ d: Device) {
        for i in 0..<d.edgeCount {
            let (code, down) = d.edges[i]
            guard let vk = EvdevKeyMap.vk(evdev: code) ?? (d.mediaKeys ? CECRemoteKeys.mediaVK(code) : nil) else { continue }
            if down { d.keysDown.insert(vk) } else { d.keysDown.remove(vk) }
            switch keyboardChord.edge(UInt32(code), down: down) {
            case .pass:
                if allowed(.keyboard), held.key(vk: vk, down: down) {
                    emit(down ? .keyDown(vk: vk) : .keyUp(vk: vk), reliable: true, grant: .keyboard)
                }
            case .armed:
                // The chord's keys leave the host now; the chord keeps them until it fires.
                for part in keyboardChord.parts {
                    for c in part {
                        if let v = EvdevKeyMap.vk(evdev: UInt16(c)), held.key(vk: v, down: false) {
                            emit(.keyUp(vk: v), reliable: true, grant: .keyboard)
                        }
                    }
                }
            case .withheld: break
            case .fired: if !inShell { onEscape() }
            }
        }
        d.edgeCount = 0
    }

    /// The button an evdev code is (an absolute pointer's touch or pen tip is the left button,
    /// its stylus buttons the right and middle ones).
    private func mouseButton(_ code: UInt16, absolute: Bool) -> MouseButton? {
        if absolute {
            switch code {
            case EV.btnTouch: return .left
            case EV.btnStylus: return .right
            case EV.btnStylus2: return .middle
            default: break
            }
        }
        return switch code {
        case EV.btnLeft: .left
        case EV.btnRight: .right
        case EV.btnMiddle: .middle
        case EV.btnSide: .x1
        case EV.btnExtra: .x2
        default: nil
        }
    }

    /// Relative motion of a mouse or touchpad: the box-drawn pointer's new place in its desktop
    /// mode, else the counts.
    private func move(dx: Int32, dy: Int32) {
        // Only motion the host will get moves the drawn pointer (emit counts a drop).
        let sendable = !inShell && policy?.grants.contains(.pointer) == true
        if sendable, let p = localPointer?.move(dx: dx, dy: dy) {
            emit(.mouseMoveAbs(x: p.x, y: p.y, referenceWidth: p.width, referenceHeight: p.height), reliable: false, grant: .pointer)
        } else {
            emit(.mouseMove(dx: dx, dy: dy), reliable: false, grant: .pointer)
        }
    }

    private func flushMouse(_ d: Device) {
        if d.dx != 0 || d.dy != 0 { move(dx: d.dx, dy: d.dy) }
        d.dx = 0; d.dy = 0
        flushButtons(d)
        flushWheels(d)
    }

    private func flushWheels(_ d: Device) {
        // A hi-res wheel reports both; the hi-res units (120 per detent) are the finer truth.
        let v = d.hasHiRes ? d.wheelHiRes : d.wheel &* 120
        let h = d.hasHiRes ? d.hwheelHiRes : d.hwheel &* 120
        if v != 0 { scroll(d, axis: .vertical, v120: v) }
        if h != 0 { scroll(d, axis: .horizontal, v120: h) }
        d.wheel = 0; d.hwheel = 0; d.wheelHiRes = 0; d.hwheelHiRes = 0
    }

    private func flushButtons(_ d: Device) {
        let isAbsolute = if case .absolutePointer = d.role { true } else { false }
        for i in 0..<d.edgeCount {
            let (code, down) = d.edges[i]
            guard let b = mouseButton(code, absolute: isAbsolute) else { continue }
            let bit = UInt8(1) << UInt8(b.rawValue)
            d.buttonsDown = down ? d.buttonsDown | bit : d.buttonsDown & ~bit
            if allowed(.pointer), held.mouseButton(b, down: down) {
                emit(down ? .mouseButtonDown(b) : .mouseButtonUp(b), reliable: false, grant: .pointer)
            }
        }
        d.edgeCount = 0
    }

    private func scroll(_ d: Device, axis: ScrollAxis, v120: Int32) {
        if policy?.normalisedScroll == true {
            if let e = d.scroll.event(source: .wheel, phase: .none, axis: axis.rawValue, delta: Double(v120)) {
                emit(.scroll(e), reliable: false, grant: .pointer)
            }
        } else {
            emit(.mouseScroll(axis: axis, delta: v120), reliable: false, grant: .pointer)
        }
    }

    /// An absolute pointer position (a compositor's pointer while it is not locked, `SeatInput`):
    /// `mouseMoveAbs` at (x, y) pixels of a `width` × `height` reference surface (the panel).
    /// Nothing goes out without a reference size (the host drops size 0).
    public func pointerAbsolute(x: Int32, y: Int32, width: Int, height: Int) {
        guard let w = UInt16(exactly: width), let h = UInt16(exactly: height), w > 0, h > 0 else { return }
        emit(.mouseMoveAbs(x: x, y: y, referenceWidth: w, referenceHeight: h), reliable: false, grant: .pointer)
    }

    /// An absolute pointer's frame: while the host's pointer is free its position goes as
    /// `mouseMoveAbs` on its own range (the range is the reference surface, so the host spreads it
    /// over its screen); while the host has captured its pointer, the motion since the previous
    /// position goes as `mouseMove`, the whole range spanning the host's width and height (the
    /// fractions are carried). Then its buttons, then its wheels.
    private func flushAbsolutePointer(_ d: Device, rx: AxisRange, ry: AxisRange) {
        if d.absXSeen || d.absYSeen {
            if pointerCaptured {
                if d.hadPosition {
                    let mx = Self.pixelsPerUnit(rx, policy?.hostWidth ?? 0), my = Self.pixelsPerUnit(ry, policy?.hostHeight ?? 0)
                    d.carryX += Double(Int64(d.absX) - Int64(d.lastX)) * mx
                    d.carryY += Double(Int64(d.absY) - Int64(d.lastY)) * my
                    let wx = d.carryX.rounded(.towardZero), wy = d.carryY.rounded(.towardZero)
                    d.carryX -= wx; d.carryY -= wy
                    if wx != 0 || wy != 0 {
                        emit(.mouseMove(dx: Int32(clamping: Int64(wx)), dy: Int32(clamping: Int64(wy))), reliable: false, grant: .pointer)
                    }
                }
            } else if let x = Self.onReference(d.absX, rx), let y = Self.onReference(d.absY, ry) {
                emit(.mouseMoveAbs(x: x.value, y: y.value, referenceWidth: x.size, referenceHeight: y.size),
                     reliable: false, grant: .pointer)
            }
            d.lastX = d.absX; d.lastY = d.absY
            d.hadPosition = true
            d.absXSeen = false; d.absYSeen = false
        }
        flushButtons(d)
        flushWheels(d)
    }

    /// `v` on a reference surface of `r`'s extent (`max − min + 1` units; a range wider than a
    /// u16 is scaled down to 65535), clamped into it. nil for a range of one value or none.
    static func onReference(_ v: Int32, _ r: AxisRange) -> (value: Int32, size: UInt16)? {
        let span = Int64(r.maximum) - Int64(r.minimum) + 1
        guard span > 1 else { return nil }
        let offset = min(max(Int64(v) - Int64(r.minimum), 0), span - 1)
        if span <= 65535 { return (Int32(offset), UInt16(span)) }
        return (Int32(offset * 65535 / span), 65535)
    }

    /// Host pixels per device unit when `r` spans `pixels` (1 when the host's size is unknown).
    static func pixelsPerUnit(_ r: AxisRange, _ pixels: Int) -> Double {
        let span = Int64(r.maximum) - Int64(r.minimum)
        guard span > 0, pixels > 0 else { return 1 }
        return Double(pixels) / Double(span)
    }

    /// A touchpad moves the pointer by finger travel: 1 mm → `touchpadPixelsPerMM` px (a range
    /// without a resolution counts 1 unit as 1 px).
    public static let touchpadPixelsPerMM = 8.0

    private func flushTouchpad(_ d: Device, rx: AxisRange, ry: AxisRange) {
        if d.touchDown, d.absXSeen || d.absYSeen, d.hadPosition {
            let sx = rx.resolution > 0 ? Self.touchpadPixelsPerMM / Double(rx.resolution) : 1
            let sy = ry.resolution > 0 ? Self.touchpadPixelsPerMM / Double(ry.resolution) : 1
            let dx = Int32((Double(d.absX - d.lastX) * sx).rounded()), dy = Int32((Double(d.absY - d.lastY) * sy).rounded())
            if dx != 0 || dy != 0 { move(dx: dx, dy: dy) }
        }
        for i in 0..<d.edgeCount where d.edges[i].code == EV.btnTouch { d.touchDown = d.edges[i].down }
        d.hadPosition = d.touchDown
        d.lastX = d.absX; d.lastY = d.absY
        d.absXSeen = false; d.absYSeen = false
        flushButtons(d)
    }

    private func flushPad(_ d: Device) {
        d.pendingFromSibling = false
        guard let slot = d.slot else { return }
        // The chord sees the physical buttons; the host sees them without the chord's.
        let changed = d.padState.buttons.symmetricDifference(d.physicalSeen)
        d.physicalSeen = d.padState.buttons
        var fired = false
        if !changed.isEmpty {
            for bit in 0..<32 where changed.rawValue & (1 << bit) != 0 {
                let down = d.padState.buttons.rawValue & (1 << bit) != 0
                switch d.chord.edge(UInt32(1) << UInt32(bit), down: down) {
                case .armed: d.withheld = GamepadButtons(rawValue: d.chord.parts.reduce(0) { $0 | $1.reduce(0, |) })
                case .fired: fired = true; d.withheld = []
                case .pass, .withheld: break
                }
            }
        }
        d.heldAtStart.formIntersection(d.padState.buttons)   // a release ends the hold for good
        var out = d.padState
        out.buttons.subtract(d.withheld)
        out.buttons.subtract(d.heldAtStart)
        send(pad: slot, out)
        if fired, !inShell { onEscape() }
    }

    /// Sends `state` for `slot` if it differs from what the host has (held).
    private func send(pad slot: Int, _ state: PadWireState) {
        let last = held.pads[slot]
        guard state != last else { return }
        guard let policy, !inShell, policy.grants.contains(.gamepad) else {
            if policy != nil { counters.droppedByGrants += 1 } else { counters.droppedOther += 1 }
            return
        }
        if policy.gamepadSnapshots {
            seqs[slot] &+= 1
            touched[slot] = true
            emit(.gamepadState(state.snapshot(pad: UInt8(slot), seq: seqs[slot])), reliable: false, grant: .gamepad)
        } else {
            let changed = state.buttons.symmetricDifference(last.buttons)
            for bit in 0..<32 where changed.rawValue & (1 << bit) != 0 {
                let b = GamepadButtons(rawValue: 1 << bit)
                emit(.gamepadButton(b, pressed: state.buttons.contains(b), pad: UInt8(slot)), reliable: false, grant: .gamepad)
            }
            for axis in GamepadAxis.allCases where state.axis(axis) != last.axis(axis) {
                emit(.gamepadAxis(axis, value: state.axis(axis), pad: UInt8(slot)), reliable: false, grant: .gamepad)
            }
        }
        held.pad(slot, sent: state)
    }

    private func flushPadTouch(_ d: Device, controller: Int, rx: AxisRange, ry: AxisRange) {
        guard let pad = devices[controller], let slot = pad.slot else { d.touchChanged = 0; return }
        if pad.pendingFromSibling { flushPad(pad) }
        for finger in 0..<Device.touchSlots where d.touchChanged & (1 << finger) != 0 {
            let t = d.touches[finger]
            emitRich(.touchpadEx(pad: UInt8(slot), surface: 0, finger: UInt8(finger), touching: t.id >= 0,
                                 click: pad.padState.buttons.contains(.touchpad),
                                 x: rx.stick(t.x), y: ry.stick(t.y), pressure: 0))
        }
        d.touchChanged = 0
    }

    private func flushMotion(_ d: Device, controller: Int, accel: [AxisRange], gyro: [AxisRange]) {
        guard d.motionChanged, let pad = devices[controller], let slot = pad.slot,
              case .gamepad(let desc) = pad.role else { return }
        d.motionChanged = false
        guard let policy, GamepadKind.motionReaches(declared: desc.kind, asked: policy.askedPadKind,
                                                   resolved: policy.resolvedPadKind) else { return }
        func scaled(_ v: Int32, _ r: AxisRange, _ perUnit: Int) -> Int16 {
            let res = r.resolution > 0 ? Double(r.resolution) : 1
            return Int16(max(-32768, min(32767, (Double(v) / res * Double(perUnit)).rounded())))
        }
        let a = SIMD3(scaled(d.motion[0], accel[0], Gamepad.accelLSBPerG), scaled(d.motion[1], accel[1], Gamepad.accelLSBPerG),
                      scaled(d.motion[2], accel[2], Gamepad.accelLSBPerG))
        let g = SIMD3(scaled(d.motion[3], gyro[0], Gamepad.gyroLSBPerDegreePerSecond),
                      scaled(d.motion[4], gyro[1], Gamepad.gyroLSBPerDegreePerSecond),
                      scaled(d.motion[5], gyro[2], Gamepad.gyroLSBPerDegreePerSecond))
        emitRich(.motion(pad: UInt8(slot), gyro: g, accel: a))
    }

    // MARK: - Time

    /// Refreshes touched pads' snapshots every 100 ms and repeats announcements. - Returns: the
    /// next time to call.
    @discardableResult
    public func tick(nowNs: UInt64) -> UInt64 {
        guard nowNs >= nextRefreshNs else { return nextRefreshNs }
        nextRefreshNs = nowNs + Self.refreshNs
        guard let policy, !inShell else { return nextRefreshNs }
        for slot in 0..<Gamepad.maxPads {
            repeatAnnouncement(slot: slot)
            if policy.gamepadSnapshots, touched[slot] {
                seqs[slot] &+= 1
                emit(.gamepadState(held.pads[slot].snapshot(pad: UInt8(slot), seq: seqs[slot])), reliable: false, grant: .gamepad)
            }
        }
        return nextRefreshNs
    }

    /// Sends `slot`'s pending arrival or removal once more.
    private func repeatAnnouncement(slot: Int) {
        switch repeats[slot] {
        case .arrival(let kind, let left)?:
            emit(.gamepadArrival(pad: UInt8(slot), padType: kind), reliable: false, grant: .gamepad)
            repeats[slot] = left > 1 ? .arrival(kind, left: left - 1) : nil
        case .removal(let left)?:
            emit(.gamepadRemove(pad: UInt8(slot), seq: seqs[slot]), reliable: false, grant: .gamepad)
            repeats[slot] = left > 1 ? .removal(left: left - 1) : nil
        case nil: break
        }
    }

    // MARK: - Letting go

    /// Releases everything the host holds because of us: key-ups, mouse button-ups, and a
    /// neutral state for every pad that is not neutral. Physical keys still down stay down for
    /// us; their later release is not sent (its press was taken back).
    public func releaseAll() {
        let r = held.releaseAll()
        guard let policy else { return }
        for vk in r.keys { emit(.keyUp(vk: vk), reliable: true, grant: .keyboard) }
        for b in r.mouseButtons { emit(.mouseButtonUp(b), reliable: false, grant: .pointer) }
        for slot in r.pads {
            if policy.gamepadSnapshots {
                seqs[slot] &+= 1
                emit(.gamepadState(PadWireState().snapshot(pad: UInt8(slot), seq: seqs[slot])), reliable: false, grant: .gamepad)
            } else {
                let last = PadWireState()   // everything goes back to rest
                for b in GamepadButtons.wireNames.map(\.button) {
                    emit(.gamepadButton(b, pressed: false, pad: UInt8(slot)), reliable: false, grant: .gamepad)
                }
                for axis in GamepadAxis.allCases {
                    emit(.gamepadAxis(axis, value: last.axis(axis), pad: UInt8(slot)), reliable: false, grant: .gamepad)
                }
            }
        }
    }

    // MARK: - Sending

    private func announce(slot: Int, kind: GamepadKind) {
        // In the shell the first sending waits too: all of them go once the input returns.
        if inShell { repeats[slot] = .arrival(kind.rawValue, left: Self.announceRepeats + 1); return }
        emit(.gamepadArrival(pad: UInt8(slot), padType: kind.rawValue), reliable: false, grant: .gamepad)
        repeats[slot] = .arrival(kind.rawValue, left: Self.announceRepeats)
    }

    private func announcePresentPads() {
        for d in devices.values {
            if let slot = d.slot, case .gamepad(let pad) = d.role { announce(slot: slot, kind: pad.kind) }
        }
    }

    /// Whether events under `grant` can go out now; counts the drop when not.
    private func allowed(_ grant: AccessGrants) -> Bool {
        guard let policy, !inShell else { counters.droppedOther += 1; return false }
        guard policy.grants.contains(grant) else { counters.droppedByGrants += 1; return false }
        return true
    }

    private func emit(_ event: InputEvent, reliable: Bool, grant: AccessGrants) {
        guard let policy, !inShell else { counters.droppedOther += 1; return }
        guard policy.grants.contains(grant) else { counters.droppedByGrants += 1; return }
        if sink.send(event, reliable: reliable && policy.reliableKeyEdges) { counters.eventsSent += 1 } else { counters.droppedOther += 1 }
    }

    private func emitRich(_ rich: RichInput) {
        guard let policy, !inShell else { counters.droppedOther += 1; return }
        guard policy.grants.contains(.gamepad) else { counters.droppedByGrants += 1; return }
        if sink.send(rich) { counters.eventsSent += 1 } else { counters.droppedOther += 1 }
    }
}
