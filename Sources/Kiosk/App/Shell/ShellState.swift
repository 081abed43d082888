/// The shell's own part of the state: the pages stacked over the home screen while the host list
/// is showing, the focus on each, the drafts of typed text and the settings. Phases that are not
/// the host list (connecting, pairing, error, the stream, its menu) draw from `KioskPhase`; the
/// stack waits underneath, so leaving them comes back to the page and focus left.
public struct ShellState: Sendable, Equatable {
    /// Bottom first; the bottom is always `.home`. The last is the page showing.
    public internal(set) var pages: [ShellPage] = [.home(.hosts)]
    /// The address being typed on the add-host page (kept when the page is left with Back).
    public internal(set) var addressDraft = ""
    /// PINs being typed, by host id (kept when the page is left with Back, or the PIN was wrong).
    public internal(set) var pinDrafts: [String: String] = [:]
    /// The focused choice on the error screen.
    public internal(set) var errorFocus: ErrorChoice = .backToHosts
    public internal(set) var settings = ShellSettings()
    /// The focused row of the controllers page (an index into `KioskState.controllers`).
    public internal(set) var controllerFocus = 0

    public init() {}

    /// The page showing while the phase is the host list.
    public var top: ShellPage { pages[pages.count - 1] }

    /// The PIN typed so far for `hostID`.
    public func pinDraft(_ hostID: String) -> String { pinDrafts[hostID] ?? "" }
}

/// The pages of the shell over the host list, each with where its focus is.
public enum ShellPage: Sendable, Equatable {
    case home(HomeFocus)
    case host(id: String, focus: HostAction)
    /// The digit pad for pairing with `hostID` (the digits are in `ShellState.pinDrafts`).
    case pin(hostID: String, focus: GridPosition)
    /// The on-screen keyboard for a host address (the text is `ShellState.addressDraft`).
    case addHost(focus: GridPosition)
    case settings(focus: SettingsItem)
    /// A read-only page (about), or the controllers page (a row per controller, A identifies
    /// the focused one); Back leaves it, as does A with nothing to act on.
    case info(InfoTopic)
    /// A yes/no question; "no" is focused first, Back answers no.
    case confirm(ConfirmQuestion, yes: Bool)
}

public enum HomeFocus: Sendable, Equatable {
    /// The row of host cards; which card is `KioskPhase.choosingHost(focus:)`.
    case hosts
    case action(HomeAction)
}

/// The row under the host cards, left to right.
public enum HomeAction: Sendable, Equatable, CaseIterable {
    case addHost, settings, powerOff, restart
}

/// The host page's entries, top to bottom.
public enum HostAction: Sendable, Equatable, CaseIterable {
    case connect, pairWithPIN, requestAccess, wake, speedTest, forget
}

/// The settings page's entries, top to bottom.
public enum SettingsItem: Sendable, Equatable, CaseIterable {
    case mode, bitrate, decoder, audioDevice, statsOverlay, controllers, about
}

public enum InfoTopic: Sendable, Equatable {
    case controllers, about
}

public enum ConfirmQuestion: Sendable, Equatable {
    case forget(hostID: String)
    case powerOff
    case restart
}

/// The error screen's choices, left to right: retry the host (when there is one), back to the list.
public enum ErrorChoice: Sendable, Equatable {
    case retry, backToHosts
}

/// Settings chosen on the settings page: an index into each option list.
public struct ShellSettings: Sendable, Equatable {
    public static let modes = ["Native", "3840×2160 60 Hz", "1920×1080 60 Hz", "1280×720 60 Hz"]
    public static let bitrates = ["Automatic", "10 Mbit/s", "20 Mbit/s", "40 Mbit/s", "80 Mbit/s"]
    public static let decoders = ["Automatic", "VA-API", "Software"]
    public static let audioDevices = ["Default"]

    public var mode = 0
    public var bitrate = 0
    public var decoder = 0
    public var audioDevice = 0

    public init() {}

    /// `item`'s options and chosen index (nil for entries that are not a choice).
    public func choice(_ item: SettingsItem) -> (options: [String], index: Int)? {
        switch item {
        case .mode: (Self.modes, mode)
        case .bitrate: (Self.bitrates, bitrate)
        case .decoder: (Self.decoders, decoder)
        case .audioDevice: (Self.audioDevices, audioDevice)
        case .statsOverlay, .controllers, .about: nil
        }
    }

    /// Steps `item`'s choice to the next option, from the last back to the first.
    /// - Returns: whether it changed (a single option does not).
    mutating func cycle(_ item: SettingsItem) -> Bool {
        guard let (options, index) = choice(item) else { return false }
        return step(item, by: index == options.count - 1 ? -index : 1)
    }

    /// Steps `item`'s choice by `delta`, stopping at the ends. - Returns: whether it changed.
    mutating func step(_ item: SettingsItem, by delta: Int) -> Bool {
        guard let (options, index) = choice(item) else { return false }
        let next = min(max(index + delta, 0), options.count - 1)
        guard next != index else { return false }
        switch item {
        case .mode: mode = next
        case .bitrate: bitrate = next
        case .decoder: decoder = next
        case .audioDevice: audioDevice = next
        case .statsOverlay, .controllers, .about: break
        }
        return true
    }
}

/// What the shell asks of the box beyond streams and pairing; the runner performs these.
public enum ShellRequest: Sendable, Equatable {
    /// Wake-on-LAN the host and wait for it.
    case wake(hostID: String)
    case speedTest(hostID: String)
    /// Remove the host's pairing (and the saved entry).
    case forget(hostID: String)
    /// Save a host typed by address.
    case saveHost(HostEntry)
    /// The settings changed: keep them.
    case saveSettings(ShellSettings)
    /// Rumble / flash the lightbar of the controller in this wire slot for a moment.
    case identifyController(slot: Int)
    /// Through logind, where it allows.
    case powerOff
    case restart
}
