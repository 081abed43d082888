/// What a device did to the shell (no host): the input layer's words for moving and acting,
/// before the app gives them meaning. Delivered on the input thread.
public enum NavigationEvent: Sendable, Equatable {
    /// A navigation key went down or up. Presses are acted on; a release only ends a held
    /// direction's repeat.
    case key(NavigationKey, pressed: Bool, from: DeviceFamily)
    /// A mouse moved by (dx, dy) counts (relative, the device's own units).
    case pointerMoved(dx: Int32, dy: Int32)
    /// An absolute pointing device put the pointer at (x, y): fractions of the screen's width and
    /// height, 0…1 from the top left.
    case pointerPlaced(x: Double, y: Double)
    /// The mouse's left button: point at what is under the pointer, then confirm (on press).
    case click(pressed: Bool)
    /// A press came from a device of another family than the last press (glyphs follow it).
    /// Sent in either route.
    case deviceUsed(DeviceFamily)
    /// Ctrl+Alt+F`n` on a keyboard while the shell has it (a grabbed keyboard's chord never
    /// reaches the kernel's console switching): switch to VT `n` (1…12).
    case switchConsole(Int)
}

/// The keys the shell understands, whatever the device.
public enum NavigationKey: Sendable, Equatable, Hashable {
    case up, down, left, right
    /// A / Cross / Enter / left click.
    case confirm
    /// B / Circle / Esc / right click.
    case back
    /// X / Square / Backspace.
    case erase
    /// Start / Options / F1 / the Menu key.
    case menu
    /// A typed character (US layout).
    case character(Character)

    /// Whether this is one of the four directions (they auto-repeat while held).
    public var isDirection: Bool {
        switch self {
        case .up, .down, .left, .right: true
        default: false
        }
    }
}

/// The family of the device in hand, for the hint bar's glyphs.
public enum DeviceFamily: Sendable, Equatable {
    case keyboard
    /// An Xbox-style pad (and any pad that is not a PlayStation one).
    case xboxPad
    /// DualSense, DualSense Edge, DualShock 4.
    case playStationPad
    case mouse
    /// The TV's remote, over HDMI-CEC.
    case tvRemote

    /// The family of a device in `role` (pad siblings — touch surface, motion — count as
    /// their pad's and are not routed to the shell).
    public static func of(_ role: DeviceRole) -> DeviceFamily? {
        switch role {
        case .keyboard: .keyboard
        case .mouse, .touchpad, .absolutePointer: .mouse
        case .gamepad(let pad):
            switch pad.kind {
            case .dualSense, .dualSenseEdge, .dualShock4: .playStationPad
            default: .xboxPad
            }
        case .padTouchpad, .padMotion: nil
        }
    }
}

/// Where the devices' input goes now.
public enum InputRoute: Sendable, Equatable {
    /// To the shell as `NavigationEvent`s; nothing reaches a host, which holds nothing.
    case shell
    /// To the attached session's host (policy, grants, feedback); the escape chord fires.
    case host
}
