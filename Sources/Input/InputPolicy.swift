import PunktfunkWire

/// What the session lets input do, from the host's ServerHello: the access grants and the
/// capabilities that choose a wire form.
public struct InputPolicy: Sendable, Equatable {
    public var grants: AccessGrants
    /// `HOST_CAP_GAMEPAD_STATE`: pads go as `GamepadState` snapshots (seq, 100 ms refresh);
    /// otherwise as per-button/axis events.
    public var gamepadSnapshots: Bool
    /// `HOST_CAP2_INPUT_EDGES`: key edges ride the control stream (INPUT_EVENT 0x50).
    public var reliableKeyEdges: Bool
    /// `HOST_CAP2_SCROLL`: wheels go as normalised Scroll (kind 16); otherwise as legacy kind 6.
    public var normalisedScroll: Bool
    /// The pad kind the hello asked for and the one the host resolved (motion gate).
    public var askedPadKind: GamepadKind
    public var resolvedPadKind: GamepadKind
    /// The host's output in pixels (the ServerHello's mode; 0 when unknown): an absolute
    /// pointer's whole range spans it when its motion goes as deltas.
    public var hostWidth: Int
    public var hostHeight: Int

    public init(grants: AccessGrants = .all, gamepadSnapshots: Bool = true, reliableKeyEdges: Bool = true,
                normalisedScroll: Bool = true, askedPadKind: GamepadKind = .auto, resolvedPadKind: GamepadKind = .auto,
                hostWidth: Int = 0, hostHeight: Int = 0) {
        self.grants = grants; self.gamepadSnapshots = gamepadSnapshots; self.reliableKeyEdges = reliableKeyEdges
        self.normalisedScroll = normalisedScroll; self.askedPadKind = askedPadKind; self.resolvedPadKind = resolvedPadKind
        self.hostWidth = hostWidth; self.hostHeight = hostHeight
    }

    /// The policy a ServerHello implies.
    public init(serverHello: ServerHello, askedPadKind: GamepadKind) {
        let f = serverHello.features
        self.init(grants: serverHello.grants.normalized, gamepadSnapshots: f.hostCaps.contains(.gamepadState),
                  reliableKeyEdges: f.hostCaps2.contains(.inputEdges), normalisedScroll: f.hostCaps2.contains(.scroll),
                  askedPadKind: askedPadKind, resolvedPadKind: serverHello.gamepad,
                  hostWidth: Int(serverHello.mode.width), hostHeight: Int(serverHello.mode.height))
    }
}

/// Where mapped input goes: the session's outbox in the product, a recorder in tests. Called on
/// the input thread; must not block.
public protocol InputSink: AnyObject {
    /// One 0xC8 event; `reliable` asks for the control stream (a key edge to an input-edges
    /// host). - Returns: false when it could not be queued.
    func send(_ event: InputEvent, reliable: Bool) -> Bool
    /// One 0xCC rich-input datagram.
    func send(_ rich: RichInput) -> Bool
}

/// Counters of the input path (JSON stats).
public struct InputCounters: Sendable, Equatable {
    /// Devices in use now.
    public var devices = 0
    /// Events and rich-input datagrams handed to the sink.
    public var eventsSent: UInt64 = 0
    /// Events the access grants did not allow.
    public var droppedByGrants: UInt64 = 0
    /// Events the sink refused (queue full) or that came while no session could take them.
    public var droppedOther: UInt64 = 0

    public init() {}

    public var json: String {
        "{\"devices\":\(devices),\"events_sent\":\(eventsSent),\"dropped_by_grants\":\(droppedByGrants),\"dropped\":\(droppedOther)}"
    }
}
