import Screen

extension WaylandScreen {
    /// Under a compositor keyboards and mice are its devices: they come through its seat
    /// (`makeSeat`), never evdev.
    public var keyboardsAndMiceAreTheScreens: Bool { true }
}
