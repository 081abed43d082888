/// The globals the Wayland backend binds, the version it binds at most, and what it does when
/// one is missing — in the words of its own notices (`WaylandConnection.notices`,
/// `WaylandSeat.notices` use these strings), so `check` and the start-up lines say the same.
/// Pure.
public struct KioskProtocol: Sendable, Equatable {
    /// The global's interface name.
    public var interface: String
    /// The version the backend binds at most (`min(advertised, version)`).
    public var version: UInt32
    /// The lowest advertised version the backend can use (below it counts as missing).
    public var minimum: UInt32
    /// Without it the backend does not start (`ScreenError.unusable`).
    public var required: Bool
    /// Required: why the backend cannot start without it. Optional: the notice — what it does
    /// instead.
    public var without: String

    public init(interface: String, version: UInt32, minimum: UInt32 = 1, required: Bool, without: String) {
        self.interface = interface; self.version = version; self.minimum = minimum; self.required = required
        self.without = without
    }
}

public enum KioskProtocols {
    // Required (WaylandConnection throws without them).
    static let noCompositor = "the compositor offers no wl_compositor ≥ 4 (damage_buffer)"
    static let noWmBase = "the compositor offers no xdg_wm_base (xdg-shell): it cannot show a fullscreen window"
        + " (gamescope in Debian 12 shows X11 clients only)"
    static let noShm = "the compositor offers no wl_shm"

    // Optional: the screen's notices (WaylandConnection).
    static let noViewporter = "no wp_viewporter: pictures are drawn at the surface size, letterboxed on the CPU"
    static let noPresentation = "no wp_presentation: no glass times, frames count as shown on commit"
    static let noSubcompositor = "no wl_subcompositor: panels are blended into the picture"
    static let noDmabuf = "no zwp_linux_dmabuf_v1 v4: VA-API pictures are read back and shown through wl_shm"
    static let noIdleInhibit = "no zwp_idle_inhibit_manager_v1: the screen may blank while streaming"
    static let noContentType = "no wp_content_type_manager_v1: no \"game\" content hint"
    static let noFractionalScale = "no wp_fractional_scale_v1: the window's pixels are its output's mode (fullscreen) or its size × the integer scale"

    // Optional: the seat's notices (WaylandSeat).
    static let noSeat = "no wl_seat: keyboard and mouse are not read (pads stay on evdev)"
    static let noPointerLock = "no pointer lock / relative pointer: the pointer moves the host's cursor absolutely while streaming"
    static let noShortcutsInhibit = "no keyboard shortcuts inhibitor: the compositor keeps its shortcuts (the escape chord still works)"

    /// Every global the backend looks for, required ones first (wayland.md §4.1). The bound
    /// versions equal `WaylandConnection.handleGlobal`'s and `WaylandSeat.bind`'s.
    public static let all: [KioskProtocol] = [
        .init(interface: "wl_compositor", version: 4, minimum: 4, required: true, without: noCompositor),
        .init(interface: "xdg_wm_base", version: 5, required: true, without: noWmBase),
        .init(interface: "wl_shm", version: 1, required: true, without: noShm),
        .init(interface: "zwp_linux_dmabuf_v1", version: 4, minimum: 4, required: false, without: noDmabuf),
        .init(interface: "wp_presentation", version: 1, required: false, without: noPresentation),
        .init(interface: "wp_viewporter", version: 1, required: false, without: noViewporter),
        .init(interface: "wl_subcompositor", version: 1, required: false, without: noSubcompositor),
        .init(interface: "wl_seat", version: WaylandSeat.seatVersion, required: false, without: noSeat),
        .init(interface: "zwp_relative_pointer_manager_v1", version: 1, required: false, without: noPointerLock),
        .init(interface: "zwp_pointer_constraints_v1", version: 1, required: false, without: noPointerLock),
        .init(interface: "zwp_keyboard_shortcuts_inhibit_manager_v1", version: 1, required: false, without: noShortcutsInhibit),
        .init(interface: "zwp_idle_inhibit_manager_v1", version: 1, required: false, without: noIdleInhibit),
        .init(interface: "wp_content_type_manager_v1", version: 1, required: false, without: noContentType),
        .init(interface: "wp_fractional_scale_manager_v1", version: 1, required: false, without: noFractionalScale),
    ]
}
