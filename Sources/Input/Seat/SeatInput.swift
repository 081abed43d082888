/// A compositor's seat (keyboard and pointer) as two more devices of the input mapping: the
/// same `InputMapper` (host route: evdev→VK, `HeldState`, the escape chord, grants, policy) and
/// `NavigationMapper` (shell route) the evdev devices feed, so everything downstream — the route
/// switch, "nothing left held", the in-stream menu on Ctrl+Alt+Shift+Q — is the evdev path's.
/// Pure: no I/O, no clock, no Wayland type; the Wayland backend turns its listeners' callbacks
/// into `SeatEvent`s (through `InputService.seat(_:)`, on the input thread).
///
/// The keyboard is device `keyboardDevice` while the surface has keyboard focus (added on
/// `enter` with its keys seeded, removed on `leave`, which releases every key the host holds
/// from it); the pointer is device `pointerDevice` while it has pointer focus (likewise for
/// buttons). The host gets the pointer as absolute positions (`mouseMoveAbs`: in video pixels
/// through the picture's place while a stream is on glass, else on the panel) while it is free, and as relative unaccelerated counts
/// (`mouseMove`) while it is locked; the shell gets relative motion that puts its own pointer
/// where the compositor's is.
public final class SeatInput {
    /// Device ids of the seat in the mappers (evdev devices count up from 0).
    public static let keyboardDevice = -1, pointerDevice = -2

    private let mapper: InputMapper
    private let navigation: NavigationMapper
    public private(set) var keyboard = SeatKeyboard()
    public private(set) var pointer = SeatPointer()
    /// Hi-res wheel units not yet a whole detent for the shell.
    private var shellWheel: Int32 = 0

    public init(mapper: InputMapper, navigation: NavigationMapper) {
        self.mapper = mapper
        self.navigation = navigation
    }

    public func handle(_ event: SeatEvent) {
        let kbd = Self.keyboardDevice, ptr = Self.pointerDevice
        switch event {
        case .keyboardEnter(let keys):
            if keyboard.focused { handle(.keyboardLeave) }
            let seeds = keyboard.enter(keys: keys)
            mapper.add(device: kbd, role: .keyboard)
            navigation.add(device: kbd, role: .keyboard)
            for code in seeds {
                mapper.seedPressed(device: kbd, code: code)
                navigation.seedPressed(device: kbd, code: code)
            }
        case .keyboardLeave:
            guard keyboard.focused else { return }
            _ = keyboard.leave()
            mapper.remove(device: kbd)       // key-ups for what the host holds from it
            navigation.remove(device: kbd)
        case .key(let code, let state):
            guard let edge = keyboard.key(code: code, state: state) else { return }
            frame(kbd, [(EV.key, edge.code, edge.down ? 1 : 0)])
        case .pointerEnter(let x, let y):
            if pointer.focused { handle(.pointerLeave) }
            let p = pointer.enter(x: x, y: y)
            mapper.add(device: ptr, role: .mouse)
            navigation.add(device: ptr, role: .mouse)
            // The shell's pointer goes to the corner (it is clamped there), then to p.
            navigationFrame(ptr, [(EV.rel, EV.relX, -Int32(1 << 24)), (EV.rel, EV.relY, -Int32(1 << 24))])
            navigationFrame(ptr, [(EV.rel, EV.relX, p.x), (EV.rel, EV.relY, p.y)])
            if !pointer.locked { absolute(p) }
        case .pointerLeave:
            guard pointer.focused else { return }
            _ = pointer.leave()
            shellWheel = 0
            mapper.remove(device: ptr)       // button-ups for what the host holds from it
            navigation.remove(device: ptr)
        case .pointerMotion(let x, let y):
            let was = (pointer.x, pointer.y)
            guard let p = pointer.motion(x: x, y: y) else { return }
            absolute(p)
            navigation.handle(device: ptr, type: EV.rel, code: EV.relX, value: p.x &- was.0)
            navigation.handle(device: ptr, type: EV.rel, code: EV.relY, value: p.y &- was.1)
        case .button(let code, let pressed):
            guard let edge = pointer.button(code: code, pressed: pressed) else { return }
            both(ptr, EV.key, edge.code, edge.down ? 1 : 0)
        case .axis(let horizontal, let value):
            pointer.axis(horizontal: horizontal, value: value)
        case .axisDiscrete(let horizontal, let steps):
            pointer.axisDiscrete(horizontal: horizontal, steps: steps)
        case .axisValue120(let horizontal, let v):
            pointer.axisValue120(horizontal: horizontal, value120: v)
        case .pointerFrame:
            guard pointer.focused else { return }
            let wheel = pointer.frame()
            if wheel.vertical != 0 {
                mapper.handle(device: ptr, type: EV.rel, code: EV.relWheelHiRes, value: wheel.vertical)
                shellWheel &+= wheel.vertical
                let detents = shellWheel / 120
                shellWheel -= detents * 120
                if detents != 0 { navigation.handle(device: ptr, type: EV.rel, code: EV.relWheel, value: detents) }
            }
            if wheel.horizontal != 0 {
                mapper.handle(device: ptr, type: EV.rel, code: EV.relHWheelHiRes, value: wheel.horizontal)
            }
            both(ptr, EV.syn, EV.synReport, 0)
        case .relativeMotion(let dx, let dy):
            guard pointer.focused, let d = pointer.relative(dx: dx, dy: dy) else { return }
            frame(ptr, [(EV.rel, EV.relX, d.dx), (EV.rel, EV.relY, d.dy)])
        case .pointerLocked(let on):
            pointer.setLocked(on)
        case .geometry(let sw, let sh, let pw, let ph):
            pointer.setGeometry(surfaceWidth: sw, surfaceHeight: sh, panelWidth: pw, panelHeight: ph)
        case .videoArea(let area):
            pointer.videoArea = area
        }
    }

    /// The host gets `p`: in video pixels through the picture's place while a stream is on glass,
    /// else on the panel (nothing without a size).
    private func absolute(_ p: (x: Int32, y: Int32)) {
        if let area = pointer.videoArea {
            let h = area.hostPoint(panelX: p.x, panelY: p.y)
            mapper.pointerAbsolute(x: h.x, y: h.y, width: area.videoWidth, height: area.videoHeight)
        } else {
            mapper.pointerAbsolute(x: p.x, y: p.y, width: pointer.panelWidth, height: pointer.panelHeight)
        }
    }

    private func both(_ device: Int, _ type: UInt16, _ code: UInt16, _ value: Int32) {
        mapper.handle(device: device, type: type, code: code, value: value)
        navigation.handle(device: device, type: type, code: code, value: value)
    }

    /// `events` and a SYN_REPORT to both mappers.
    private func frame(_ device: Int, _ events: [(UInt16, UInt16, Int32)]) {
        for (t, c, v) in events { both(device, t, c, v) }
        both(device, EV.syn, EV.synReport, 0)
    }

    private func navigationFrame(_ device: Int, _ events: [(UInt16, UInt16, Int32)]) {
        for (t, c, v) in events { navigation.handle(device: device, type: t, code: c, value: v) }
        navigation.handle(device: device, type: EV.syn, code: EV.synReport, value: 0)
    }
}
