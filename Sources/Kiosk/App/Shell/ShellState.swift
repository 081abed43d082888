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
    /// What the box can do and offers, as the runner found it (nil until it answered).
    public internal(set) var box: BoxFacts?
    /// Where the settings are kept (nil: nowhere, e.g. without a profile).
    public internal(set) var configPath: String?
    /// Ids of the hosts discovery lists right now (a card's "online").
    public internal(set) var onNetwork: Set<String> = []

    public init() {}

    /// The home screen's action row, left to right: power off and restart only where logind
    /// allows them without asking anyone.
    public var homeActions: [HomeAction] {
        var actions: [HomeAction] = [.addHost, .settings]
        if box?.power.canPowerOff == true { actions.append(.powerOff) }
        if box?.power.canRestart == true { actions.append(.restart) }
        return actions
    }

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
    /// Wake-on-LAN sent, waiting for the host to show on the network (over its host page).
    case waking(WakeProgress)
    /// A speed test with a host, then its result (over its host page).
    case speedTest(SpeedTestProgress)
}

public enum HomeFocus: Sendable, Equatable {
    /// The row of host cards; which card is `KioskPhase.choosingHost(focus:)`.
    case hosts
    case action(HomeAction)
}

/// The row under the host cards, left to right (`ShellState.homeActions` says which show).
public enum HomeAction: Sendable, Equatable, CaseIterable {
    case addHost, settings, powerOff, restart
}

/// The host page's entries, top to bottom (`list(titles:)`): its desktop, each pinned title, then
/// what is done with the host itself.
public enum HostAction: Sendable, Equatable {
    /// Stream the host's desktop ("Connect"; "Desktop" when titles are pinned).
    case connect
    /// Stream the host starting the pinned title with this library id.
    case launch(String)
    case pairWithPIN, requestAccess, wake, speedTest, forget

    /// The entries of a host page whose host has these pinned titles.
    public static func list(titles: [LaunchTitle]) -> [HostAction] {
        [.connect] + titles.map { .launch($0.id) } + [.pairWithPIN, .requestAccess, .wake, .speedTest, .forget]
    }
}

/// The settings page's entries, top to bottom.
public enum SettingsItem: Sendable, Equatable, CaseIterable {
    case mode, scaling, bitrate, decoder, audioDevice, statsOverlay, controllers, about
    /// HDMI-CEC (the second column): on/off, TV on with the stream, TV off with the box, the
    /// TV's standby puts the box to standby.
    case cec, cecTVOn, cecTVOff, cecStandbyEndsStream
    /// The box's own standby after the shell sat idle (the second column, under HDMI-CEC).
    case standbyAfter
    /// What the next stream may ask the host for (the second column, at the bottom): HDR10,
    /// the sound channels, redundant audio.
    case hdr, audioChannels, audioRedundancy

    /// The HDMI-CEC switches.
    public var isCEC: Bool {
        switch self {
        case .cec, .cecTVOn, .cecTVOff, .cecStandbyEndsStream: true
        default: false
        }
    }
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

