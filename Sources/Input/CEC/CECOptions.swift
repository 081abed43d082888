/// How the input thread uses the HDMI-CEC bus (config keys `cec`, `cec-device`, `cec-name`).
public struct CECOptions: Sendable, Equatable {
    /// An adapter node (`/dev/cec1`); nil: the one on our connector, else the only one.
    public var device: String?
    /// The OSD name the TV shows for us (≤ 14 ASCII characters).
    public var name: String
    /// The DRM connector we drive (card number, connector id), to find its adapter where the
    /// kernel reports connector info; nil: unknown.
    public var connector: (card: UInt32, connector: UInt32)?
    /// A stream's start wakes the TV (<Image View On>) besides switching its input (config
    /// `cec-tv-on`; the runner's decision).
    public var wakeTV = true
    /// The box's exit puts the TV to standby (config `cec-tv-off`; the runner's decision).
    public var standbyTV = true

    public init(device: String? = nil, name: String = "punktfunk", connector: (card: UInt32, connector: UInt32)? = nil) {
        self.device = device
        self.name = name
        self.connector = connector
    }

    public static func == (a: CECOptions, b: CECOptions) -> Bool {
        a.device == b.device && a.name == b.name && a.connector?.card == b.connector?.card
            && a.connector?.connector == b.connector?.connector && a.wakeTV == b.wakeTV && a.standbyTV == b.standbyTV
    }
}

/// What the box asks of the TV (the runner posts these; the input thread sends them).
public enum CECCommand: Sendable, Equatable {
    /// A stream starts, or the box woke (One Touch Play): <Image View On> (when `wakeTV`) and
    /// <Active Source>.
    case streamStarted(wakeTV: Bool)
    /// The box went idle: <Inactive Source> when we were shown.
    case idle
    /// The box powers off or goes to standby by itself: <Standby> to the TV.
    case standbyTV
    /// The box is in standby (true) or on (false) now: the power status the bus is told (and
    /// the end of a transition the bus asked for). No frame of its own.
    case power(standby: Bool)
}

/// What the bus told the box (called on the input thread).
public enum CECNotice: Sendable, Equatable {
    /// The bus asks the box to go to standby (the TV's <Standby>, the remote's power keys);
    /// the sentence says what asked.
    case standby(String)
    /// The bus asks the box to wake (<Set Stream Path> or routing to our address, the remote's
    /// power keys); the sentence says what asked.
    case wake(String)
    /// The adapter is in use: a line for the log (`cec: /dev/cec1 "vivid" at 1.0.0.0 as Playback 1`).
    case ready(String)
    /// The adapter went away or refused; CEC is off from now.
    case gone(String)
}
