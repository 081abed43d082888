import CEvdev
import CPunktfunkLinux
import Foundation
import Glibc
import PunktfunkWire

/// One open evdev node through libevdev: its identity, what it is, its reads (with SYN_DROPPED
/// resync), the grab and force feedback. Used on the input thread only.
final class EvdevDevice {
    enum Kind: Equatable {
        case keyboard, mouse, touchpad, absolutePointer, gamepad, motion, other

        /// A keyboard or a pointing device of the desk (not a pad): grabbed, and left to a
        /// compositor's seat when one owns them.
        var isKeyboardOrPointer: Bool { self == .keyboard || self == .mouse || self == .absolutePointer }
    }
    enum Opened { case success(EvdevDevice), failure(String) }

    let node: InputNode
    let fd: Int32
    let evdev: OpaquePointer
    let kind: Kind
    let name: String
    let vendor: UInt16, product: UInt16, bustype: UInt16, version: UInt16
    private(set) var grabbed = false
    /// The uploaded FF_RUMBLE effect, -1 before the first.
    var rumbleEffect: Int32 = -1
    /// Whether the node takes FF_RUMBLE.
    let hasRumble: Bool

    /// Opens `node` read-only (read-write when it may take force feedback). nil with a reason.
    static func open(_ node: InputNode) -> Opened {
        var fd = Glibc.open(node.devnode, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { fd = Glibc.open(node.devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return .failure("cannot open \(node.devnode): \(String(cString: strerror(errno)))") }
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &dev)
        guard rc == 0, let dev else {
            close(fd)
            return .failure("\(node.devnode) is not an evdev device: \(String(cString: strerror(-rc)))")
        }
        return .success(EvdevDevice(node: node, fd: fd, evdev: dev))
    }

    private init(node: InputNode, fd: Int32, evdev: OpaquePointer) {
        self.node = node
        self.fd = fd
        self.evdev = evdev
        name = libevdev_get_name(evdev).map { String(cString: $0) } ?? "?"
        vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(evdev))
        product = UInt16(truncatingIfNeeded: libevdev_get_id_product(evdev))
        bustype = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(evdev))
        version = UInt16(truncatingIfNeeded: libevdev_get_id_version(evdev))
        hasRumble = libevdev_has_event_code(evdev, UInt32(EV_FF), UInt32(FF_RUMBLE)) == 1
        kind = Self.classify(evdev)
    }

    deinit {
        if grabbed { _ = libevdev_grab(evdev, LIBEVDEV_UNGRAB) }
        if rumbleEffect >= 0 { _ = pf_ff_erase(fd, rumbleEffect) }
        libevdev_free(evdev)
        close(fd)
    }

    private static func classify(_ d: OpaquePointer) -> Kind {
        func has(_ type: Int32, _ code: Int32) -> Bool { libevdev_has_event_code(d, UInt32(type), UInt32(code)) == 1 }
        if libevdev_has_property(d, UInt32(INPUT_PROP_ACCELEROMETER)) == 1 { return .motion }
        if has(EV_KEY, BTN_SOUTH) { return .gamepad }
        let direct = libevdev_has_property(d, UInt32(INPUT_PROP_DIRECT)) == 1
        if !direct, has(EV_ABS, ABS_MT_POSITION_X), has(EV_KEY, BTN_TOUCH) { return .touchpad }
        if has(EV_REL, REL_X), has(EV_REL, REL_Y), has(EV_KEY, BTN_LEFT) { return .mouse }
        // A tablet, a touchscreen, QEMU's usb-tablet: a position on the screen, and a way to click.
        if has(EV_ABS, ABS_X), has(EV_ABS, ABS_Y), has(EV_KEY, BTN_LEFT) || has(EV_KEY, BTN_TOUCH) { return .absolutePointer }
        if has(EV_KEY, KEY_Q), has(EV_KEY, KEY_A), has(EV_KEY, KEY_Z), has(EV_KEY, KEY_SPACE) { return .keyboard }
        return .other
    }

    func range(_ code: UInt16) -> AxisRange? {
        guard let info = libevdev_get_abs_info(evdev, UInt32(code)) else { return nil }
        return AxisRange(minimum: info.pointee.minimum, maximum: info.pointee.maximum, resolution: info.pointee.resolution)
    }

    /// Whether key `code` is down now (the kernel's state, as libevdev last synced it).
    func isDown(_ code: UInt16) -> Bool { libevdev_get_event_value(evdev, UInt32(EV_KEY), UInt32(code)) == 1 }

    /// An absolute axis's value now.
    func value(abs code: UInt16) -> Int32 { libevdev_get_event_value(evdev, UInt32(EV_ABS), UInt32(code)) }

    func hasAbs(_ code: UInt16) -> Bool { libevdev_has_event_code(evdev, UInt32(EV_ABS), UInt32(code)) == 1 }

    /// The pad description of a gamepad node.
    func padDescription() -> PadDescription {
        var layout = GamepadLayout.forDevice(vendor: vendor)
        if !hasAbs(EV.absZ), hasAbs(EV.absHat2Y) { layout.useHatTriggers() }
        var ranges: [UInt16: AxisRange] = [:]
        for code in layout.axisCodes { if let r = range(code) { ranges[code] = r } }
        let analog = ranges[layout.axisCodes[4]] != nil || ranges[layout.axisCodes[5]] != nil
        return PadDescription(kind: PadDescription.kind(vendor: vendor, product: product), uniq: node.uniq,
                              layout: layout, ranges: ranges, analogTriggers: analog, hasRumble: hasRumble)
    }

    /// Key codes in SDL's button order (BTN_JOYSTICK…KEY_MAX, then 0…BTN_JOYSTICK): `bN` of a
    /// mapping line is the N-th present one.
    func sdlButtonCodes() -> [UInt16] {
        let order = Array(Int(BTN_JOYSTICK)...Int(KEY_MAX)) + Array(0..<Int(BTN_JOYSTICK))
        return order.filter { libevdev_has_event_code(evdev, UInt32(EV_KEY), UInt32($0)) == 1 }.map { UInt16($0) }
    }

    /// ABS codes in SDL's axis order (0…ABS_MAX without the hats): `aN` is the N-th present one.
    func sdlAxisCodes() -> [UInt16] {
        (0...Int(ABS_MAX)).filter { !(Int(ABS_HAT0X)...Int(ABS_HAT3Y)).contains($0) && hasAbs(UInt16($0)) }
            .filter { $0 < Int(ABS_MT_SLOT) }.map { UInt16($0) }
    }

    /// EVIOCGRAB: while grabbed, no one else (the console, another program) gets this device's
    /// events. - Returns: an error sentence, nil on success.
    func grab(_ on: Bool) -> String? {
        guard on != grabbed else { return nil }
        let rc = libevdev_grab(evdev, on ? LIBEVDEV_GRAB : LIBEVDEV_UNGRAB)
        if rc < 0 { return "cannot \(on ? "grab" : "release") \(node.devnode): \(String(cString: strerror(-rc)))" }
        grabbed = on
        return nil
    }

    enum ReadEnd { case drained, gone(errno: Int32) }

    /// Reads every waiting event into `handle(type, code, value, timeNs)`. A SYN_DROPPED is
    /// handed on, then libevdev's resync (the state delta, ending in SYN_REPORT).
    func read(_ handle: (UInt16, UInt16, Int32, UInt64) -> Void) -> ReadEnd {
        var ev = input_event()
        var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
        while true {
            let rc = libevdev_next_event(evdev, flags, &ev)
            let t = UInt64(ev.time.tv_sec) &* 1_000_000_000 &+ UInt64(ev.time.tv_usec) &* 1_000
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                handle(ev.type, ev.code, ev.value, t)
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                handle(ev.type, ev.code, ev.value, t)
                flags = LIBEVDEV_READ_FLAG_SYNC.rawValue
            } else if rc == -EAGAIN {
                if flags == LIBEVDEV_READ_FLAG_SYNC.rawValue { flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue; continue }
                return .drained
            } else if rc == -EINTR {
                continue
            } else {
                return .gone(errno: -rc)
            }
        }
    }

    /// Plays `strong`/`weak` (0…0xFFFF) for `lengthMs` (0: until changed). Both 0 stops.
    /// - Returns: an error sentence, nil on success.
    func rumble(strong: UInt16, weak: UInt16, lengthMs: UInt16) -> String? {
        guard hasRumble else { return nil }
        if strong == 0 && weak == 0 {
            guard rumbleEffect >= 0 else { return nil }
            let rc = pf_ff_play(fd, rumbleEffect, 0)
            return rc < 0 ? "cannot stop rumble on \(node.devnode): \(String(cString: strerror(-rc)))" : nil
        }
        let id = pf_ff_rumble_upload(fd, rumbleEffect, strong, weak, lengthMs)
        guard id >= 0 else { return "cannot upload rumble to \(node.devnode): \(String(cString: strerror(-id)))" }
        rumbleEffect = id
        let rc = pf_ff_play(fd, id, 1)
        return rc < 0 ? "cannot play rumble on \(node.devnode): \(String(cString: strerror(-rc)))" : nil
    }
}
