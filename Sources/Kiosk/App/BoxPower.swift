/// The box's power. Standby is a state of the box, not the end of the process: no stream runs,
/// nothing shows on glass (KMS: a black frame; under a compositor the window stays, black and
/// idle), nothing is held, and over HDMI-CEC the box answers "standby" and sends nothing of its
/// own. A wake brings it back where the user was: the shell, or with boot-to-stream the host.
public enum BoxPower: Sendable, Equatable {
    case on
    case standby
}

/// A change of the box's power, for the runner to carry out beyond the state (the screen follows
/// the state by itself).
public enum PowerChange: Sendable, Equatable {
    /// The box went to standby; `tellTV`: what the TV hears of it first.
    case standby(tellTV: StandbyNotice)
    /// The box is on again; `oneTouchPlay`: the TV is asked to show it (<Image View On> when
    /// `cec-tv-on`, <Active Source>) — false when a stream starts at once (its start asks).
    case on(oneTouchPlay: Bool)
}

/// What the TV is told when the box goes to standby.
public enum StandbyNotice: Sendable, Equatable {
    /// Nothing: the TV asked for it (it is going to standby itself).
    case nothing
    /// <Standby>: the box's own standby, with *TV off with box* (`cec-tv-off`).
    case standby
    /// <Inactive Source> when the TV shows us: the box's own standby with `cec-tv-off` off.
    case inactiveSource
}
