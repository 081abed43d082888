/// What a person does to the shell, whatever the device: the input layer maps a pad's d-pad and
/// stick, arrow keys and a mouse's clicks onto these (A/Enter → activate, B/Esc → back, the escape
/// chord or Start → menu, typed keys → character, Backspace/X → erase).
public enum NavigationInput: Sendable, Equatable {
    case move(Direction)
    case activate
    /// Leave the current screen. Never discards typed text (the draft is kept for the next visit).
    case back
    /// A typed character (a keyboard, or a pad's on-screen keyboard key already resolved).
    case character(Character)
    /// Remove the last typed character.
    case erase
    /// The escape chord / Start: opens the in-stream menu while streaming.
    case menu
    /// A pointer moved onto this entry of the screen showing: focus it (a click is this, then
    /// `activate`). The runner finds the entry with `ShellRenderer.elementIndex(at:in:)` and
    /// `ShellView.targets`.
    case point(PointerTarget)
}

/// An entry a pointer can land on, named as the page knows it.
public enum PointerTarget: Sendable, Equatable {
    /// The only entry of the connecting and pairing screens.
    case cancel
    case error(ErrorChoice)
    case menu(MenuChoice)
    case hostCard(id: String)
    case homeAction(HomeAction)
    case hostAction(HostAction)
    /// A key of the PIN pad or the on-screen keyboard.
    case key(GridPosition)
    case setting(SettingsItem)
    /// A controller's row on the controllers page, by wire slot.
    case controller(slot: Int)
    case confirm(yes: Bool)
}

public enum Direction: Sendable, Equatable, CaseIterable {
    case up, down, left, right
}
