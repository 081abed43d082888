/// A controller in use, as the settings' controllers page lists it (input reports them with
/// `KioskEvent.controllersChanged`).
public struct ControllerInfo: Sendable, Equatable {
    /// The wire slot (0…15); the page shows it from 1.
    public var slot: Int
    /// What kind of pad it is ("DualSense", "Xbox"…).
    public var kind: String
    /// The device's own name.
    public var name: String
    /// Charge in percent; nil when the pad reports none (a cable pad, a uinput pad).
    public var battery: Int?
    /// On a charger; nil when unknown.
    public var charging: Bool?

    public init(slot: Int, kind: String, name: String, battery: Int? = nil, charging: Bool? = nil) {
        self.slot = slot; self.kind = kind; self.name = name; self.battery = battery; self.charging = charging
    }

    /// "80 %, charging", "80 %", or "No battery reported".
    public var batteryLine: String {
        guard let battery else { return "No battery reported" }
        return charging == true ? "\(battery) %, charging" : "\(battery) %"
    }
}

/// A pointer (mouse) event in panel pixels, for the runner to hit-test: it turns a move into
/// `.navigate(.point(target))` and a click into `.navigate(.point(target))` then
/// `.navigate(.activate)`, with `ShellRenderer.elementIndex(at:in:)` and `ShellView.targets`.
/// The machine itself ignores it.
public struct PointerEvent: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// The pointer moved here (coalesced: at most one per `ShellInput.motionIntervalNs`).
        case moved
        /// The left button went down here.
        case clicked
    }

    /// Panel pixels from the top left, within the mode.
    public var x: Int
    public var y: Int
    public var action: Action

    public init(x: Int, y: Int, action: Action) { self.x = x; self.y = y; self.action = action }
}
