/// One event of a compositor's seat (`wl_seat`: `wl_keyboard`, `wl_pointer`, and the pointer
/// lock / relative-motion objects), in plain values: what the Wayland backend hears, with no
/// Wayland type. Key and button codes are evdev codes — `wl_keyboard` keycodes *are* evdev codes
/// (xkb adds 8; we never do) and `wl_pointer` buttons are `BTN_*` (wayland.xml). The keymap, the
/// repeat info and the xkb modifier state are not needed: keys go to the host by position
/// through `EvdevKeyMap`, the host repeats held keys itself, and modifiers arrive as key edges.
///
/// Fed to `SeatInput` (pure) — directly in tests, through `InputService.seat(_:)` in the product.
public enum SeatEvent: Sendable, Equatable {
    // MARK: wl_keyboard

    /// `wl_keyboard.enter`: the surface has keyboard focus; `keys` (evdev codes) are already down
    /// and are *not* pressed on the host (their presses happened elsewhere).
    case keyboardEnter(keys: [UInt32])
    /// `wl_keyboard.leave`: focus went elsewhere; the host lets go of every key we hold.
    case keyboardLeave
    /// `wl_keyboard.key`: `state` 0 released, 1 pressed, 2 repeated (wl_keyboard v10; never
    /// forwarded — neither is any repeat a client would synthesize from `repeat_info`).
    case key(code: UInt32, state: UInt32)

    // MARK: wl_pointer

    /// `wl_pointer.enter` at surface-local (x, y) (logical units, `wl_fixed` as Double).
    case pointerEnter(x: Double, y: Double)
    /// `wl_pointer.leave`: every button we hold is released on the host.
    case pointerLeave
    /// `wl_pointer.motion` to surface-local (x, y).
    case pointerMotion(x: Double, y: Double)
    /// `wl_pointer.button`: evdev `BTN_*` code, pressed or released.
    case button(code: UInt32, pressed: Bool)
    /// `wl_pointer.axis` (continuous, surface-local units; + = down / right), with the
    /// `axis_discrete` (v5–7) or `axis_value120` (v8) that came in the same frame, when any.
    case axis(horizontal: Bool, value: Double)
    case axisDiscrete(horizontal: Bool, steps: Int32)
    case axisValue120(horizontal: Bool, value120: Int32)
    /// `wl_pointer.frame`: the events since the last frame belong together. Before wl_pointer v5
    /// there are none: the backend sends one after each pointer event.
    case pointerFrame

    // MARK: zwp_relative_pointer_v1 / zwp_pointer_constraints_v1

    /// `zwp_relative_pointer_v1.relative_motion`'s unaccelerated deltas (`dx_unaccel`,
    /// `dy_unaccel`). Forwarded only while the pointer is locked.
    case relativeMotion(dx: Double, dy: Double)
    /// `zwp_locked_pointer_v1.locked` (true) / `.unlocked` (false).
    case pointerLocked(Bool)

    // MARK: the surface

    /// The surface's size in logical units (the configured size) and the panel's (buffer) size
    /// in pixels: absolute positions are scaled from one to the other.
    case geometry(surfaceWidth: Int, surfaceHeight: Int, panelWidth: Int, panelHeight: Int)
    /// Where a stream's picture is on the panel and the video's size (nil: no stream on glass):
    /// absolute positions go to the host in video pixels, through the picture's place.
    case videoArea(SeatVideoArea?)
}
