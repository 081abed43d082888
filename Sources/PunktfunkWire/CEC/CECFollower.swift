/// The box's side of the CEC bus as a pure state machine (no I/O, no clock): frames from the
/// adapter come in through `handle(_:now:)`, app commands through the mutators, and what to do
/// goes out through `poll()` — frames to transmit, remote keys, the TV's standby — in order.
/// `handleTimeout(now:)` at `nextDeadline` releases a remote key whose release never came.
///
/// As a Playback device (CEC 11.2 "Playback Device" feature set) it answers what a TV asks:
/// <Give OSD Name>, <Give Physical Address>, <Give Device Vendor ID>, <Get CEC Version>,
/// <Give Device Power Status>, <Menu Request>, <Request Active Source> and <Set Stream Path>
/// naming our address; any other opcode directed to us gets <Feature Abort> ["Unrecognized
/// opcode"] (never for a broadcast, never for a Feature Abort — CEC 12.4).
///
/// Remote keys (CEC 13.13, "User Control"): a <User Control Pressed> is a press; the initiator
/// repeats it every 200–500 ms while the key is held (CEC 13.13.3), so a repeat of the held
/// command refreshes the hold (`keyRepeated`); another command first releases the held one; a
/// <User Control Released> releases it; and when neither a repeat nor a release arrives within
/// `releaseTimeoutNs` (550 ms: past the longest repetition time, the follower safety timeout of
/// CEC 2.0 §13.13.3) the key releases itself. Nothing is ever left held.
///
/// Bytes from the bus are untrusted: malformed frames, frames with the wrong addressing mode
/// (CEC 12.3) and unknown opcodes are counted and otherwise ignored; replies are rate-limited
/// (`replyBudget` per second), so a flood of queries cannot queue an unbounded backlog.
public struct CECFollower: Sendable {
    /// A held key releases itself this long after its last press or repeat, ns.
    public static let releaseTimeoutNs: UInt64 = 550_000_000
    /// At most this many replies per second (the bus carries ~35 short frames a second).
    public static let replyBudget = 20

    /// Who we are on the bus.
    public struct Identity: Sendable, Equatable {
        /// 1…14 ASCII bytes.
        public var osdName: [UInt8]
        /// The 24-bit IEEE OUI, nil: none (queries get <Feature Abort>).
        public var vendorID: UInt32?
        public var cecVersion: UInt8
        public init(osdName: String = "punktfunk", vendorID: UInt32? = nil, cecVersion: UInt8 = CECVersion.v1_4) {
            self.osdName = CECMessage.osdName(osdName)
            self.vendorID = vendorID
            self.cecVersion = cecVersion
        }
    }

    /// What the owner does next.
    public enum Action: Sendable, Equatable {
        /// Put this frame on the bus.
        case transmit(CECFrame)
        /// A remote key (a [UI Command]) went down.
        case keyPressed(UInt8)
        /// The held key's press came again: the remote repeats it while the key is held.
        case keyRepeated(UInt8)
        /// The held key went up; `timedOut`: its release never came (auto-release).
        case keyReleased(UInt8, timedOut: Bool)
        /// The TV (or anyone) put the bus to standby.
        case standby
        /// Someone else became the active source (we are no longer shown).
        case lostActiveSource
    }

    public let identity: Identity
    /// Our logical address (15: none claimed — nothing is answered).
    public private(set) var logicalAddress: UInt8 = CECLogicalAddress.unregistered
    public private(set) var physicalAddress: UInt16 = CECPhysicalAddress.invalid
    /// Whether we believe the TV shows us.
    public private(set) var isActiveSource = false
    /// Whether the TV's menu requests found our "menu" active (<Menu Request>).
    public private(set) var menuActive = true
    public private(set) var counters = CECCounters()
    /// The held key and when it was last pressed or repeated.
    public private(set) var held: (command: UInt8, lastNs: UInt64)?
    private var actions: [Action] = []
    private var replyWindowStart: UInt64 = 0
    private var repliesInWindow = 0

    public init(identity: Identity) {
        self.identity = identity
        actions.reserveCapacity(8)
    }

    // MARK: - Input

    /// The adapter's addresses changed (claimed, lost, the hot-plug moved us).
    public mutating func setAddresses(logical: UInt8, physical: UInt16) {
        logicalAddress = logical & 0x0F
        if physical != physicalAddress { isActiveSource = false }
        physicalAddress = physical
    }

    /// One frame received from the bus at `now` (ns, monotonic).
    public mutating func handle(_ bytes: some Collection<UInt8>, now: UInt64) {
        counters.received += 1
        let frame: CECFrame
        do { frame = try CECFrame(decoding: bytes) } catch { counters.malformed += 1; return }
        guard let message = frame.message else { return }   // a poll: the adapter acked it
        let broadcast = frame.isBroadcast
        guard broadcast || frame.destination == logicalAddress else { counters.ignored += 1; return }
        guard frame.initiator != logicalAddress || logicalAddress == CECLogicalAddress.unregistered else {
            counters.ignored += 1   // our own address as initiator: a device that lost arbitration
            return
        }
        switch message.addressing {
        case .directed where broadcast, .broadcast where !broadcast:
            counters.ignored += 1
            return
        default: break
        }
        let from = frame.initiator
        switch message {
        case .userControlPressed(let command, _):
            counters.keys += 1
            if let h = held {
                if h.command == command {   // a repeat: the key is still held
                    held = (command, now)
                    actions.append(.keyRepeated(command))
                    return
                }
                actions.append(.keyReleased(h.command, timedOut: false))
            }
            held = (command, now)
            actions.append(.keyPressed(command))
        case .userControlReleased:
            if let h = held { actions.append(.keyReleased(h.command, timedOut: false)); held = nil }
        case .giveOSDName:
            reply(to: from, .setOSDName(identity.osdName), now: now)
        case .givePhysicalAddress:
            guard physicalAddress != CECPhysicalAddress.invalid else {
                reply(to: from, .featureAbort(opcode: message.opcode, reason: CECAbortReason.unableToDetermine), now: now)
                return
            }
            reply(to: CECLogicalAddress.broadcast, .reportPhysicalAddress(physicalAddress, deviceType: CECDeviceType.playbackDevice), now: now)
        case .giveDeviceVendorID:
            if let id = identity.vendorID {
                reply(to: CECLogicalAddress.broadcast, .deviceVendorID(id), now: now)
            } else {
                reply(to: from, .featureAbort(opcode: message.opcode, reason: CECAbortReason.refused), now: now)
            }
        case .getCECVersion:
            reply(to: from, .cecVersion(identity.cecVersion), now: now)
        case .giveDevicePowerStatus:
            reply(to: from, .reportPowerStatus(CECPowerStatus.on), now: now)
        case .menuRequest(let kind):
            if kind == CECMenu.activate { menuActive = true } else if kind == CECMenu.deactivate { menuActive = false }
            reply(to: from, .menuStatus(menuActive ? CECMenu.activated : CECMenu.deactivated), now: now)
        case .requestActiveSource:
            if isActiveSource { reply(to: CECLogicalAddress.broadcast, .activeSource(physicalAddress), now: now) }
        case .setStreamPath(let address):
            if address == physicalAddress, physicalAddress != CECPhysicalAddress.invalid {
                isActiveSource = true
                reply(to: CECLogicalAddress.broadcast, .activeSource(physicalAddress), now: now)
            } else if isActiveSource {
                isActiveSource = false
                actions.append(.lostActiveSource)
            }
        case .activeSource(let address):
            if address != physicalAddress, isActiveSource {
                isActiveSource = false
                actions.append(.lostActiveSource)
            }
        case .routingChange(_, let to), .routingInformation(let to):
            if to != physicalAddress, isActiveSource {
                isActiveSource = false
                actions.append(.lostActiveSource)
            }
        case .standby:
            isActiveSource = false
            if let h = held { actions.append(.keyReleased(h.command, timedOut: false)); held = nil }
            actions.append(.standby)
        case .abort:
            reply(to: from, .featureAbort(opcode: message.opcode, reason: CECAbortReason.refused), now: now)
        case .featureAbort:
            counters.featureAborts += 1
        case .imageViewOn, .textViewOn:
            // TV-only messages: a playback device does not support them.
            reply(to: from, .featureAbort(opcode: message.opcode, reason: CECAbortReason.unrecognizedOpcode), now: now)
        case .setOSDName, .reportPhysicalAddress, .deviceVendorID, .menuStatus, .reportPowerStatus,
             .inactiveSource, .cecVersion:
            break   // answers and announcements of others
        case .other(let op, _):
            counters.unknown += 1
            if !broadcast {
                reply(to: from, .featureAbort(opcode: op, reason: CECAbortReason.unrecognizedOpcode), now: now)
            }
        }
    }

    /// The held key's release, if it is overdue at `now`.
    public mutating func handleTimeout(now: UInt64) {
        guard let h = held, now >= h.lastNs &+ Self.releaseTimeoutNs else { return }
        held = nil
        counters.autoReleases += 1
        actions.append(.keyReleased(h.command, timedOut: true))
    }

    /// When `handleTimeout` has work (nil: no key held).
    public var nextDeadline: UInt64? { held.map { $0.lastNs &+ Self.releaseTimeoutNs } }

    // MARK: - Commands

    /// A stream starts: <Image View On> to the TV (when `wakeTV`), then <Active Source> to all,
    /// so the TV wakes and switches to our input (CEC 13.1 "One Touch Play").
    public mutating func becomeActiveSource(wakeTV: Bool) {
        guard canSend else { return }
        if wakeTV { send(CECFrame(from: logicalAddress, to: CECLogicalAddress.tv, .imageViewOn)) }
        send(CECFrame(from: logicalAddress, to: CECLogicalAddress.broadcast, .activeSource(physicalAddress)))
        isActiveSource = true
    }

    /// The box goes idle: <Inactive Source> to the TV (CEC 13.2.2), when we were shown.
    public mutating func becomeInactive() {
        guard canSend, isActiveSource else { return }
        isActiveSource = false
        send(CECFrame(from: logicalAddress, to: CECLogicalAddress.tv, .inactiveSource(physicalAddress)))
    }

    /// The box powers off: <Standby> to the TV (CEC 13.3 "System Standby", directed).
    public mutating func standbyTV() {
        guard logicalAddress != CECLogicalAddress.unregistered else { return }
        isActiveSource = false
        send(CECFrame(from: logicalAddress, to: CECLogicalAddress.tv, .standby))
    }

    /// Lets go of a held key now (the adapter went away, the route changed).
    public mutating func releaseHeld() {
        guard let h = held else { return }
        held = nil
        actions.append(.keyReleased(h.command, timedOut: false))
    }

    // MARK: - Effects

    /// The next thing to do, in order; nil when there is nothing.
    public mutating func poll() -> Action? {
        actions.isEmpty ? nil : actions.removeFirst()
    }

    // MARK: - Private

    private var canSend: Bool {
        logicalAddress != CECLogicalAddress.unregistered && physicalAddress != CECPhysicalAddress.invalid
    }

    private mutating func send(_ frame: CECFrame) {
        counters.sent += 1
        actions.append(.transmit(frame))
    }

    private mutating func reply(to destination: UInt8, _ message: CECMessage, now: UInt64) {
        if now &- replyWindowStart >= 1_000_000_000 || now < replyWindowStart {
            replyWindowStart = now
            repliesInWindow = 0
        }
        guard repliesInWindow < Self.replyBudget else { counters.repliesDropped += 1; return }
        repliesInWindow += 1
        send(CECFrame(from: logicalAddress, to: destination, message))
    }
}

/// What the follower saw on the bus (for `probe`, the stats overlay's log and the VM check).
public struct CECCounters: Sendable, Equatable {
    /// Frames handed in.
    public var received = 0
    /// Frames that did not decode (empty, too long, short of operands).
    public var malformed = 0
    /// Frames not for us, or with the wrong addressing mode.
    public var ignored = 0
    /// Opcodes we do not know.
    public var unknown = 0
    /// <User Control Pressed> frames (presses and repeats).
    public var keys = 0
    /// Keys released by the timeout, not by a <User Control Released>.
    public var autoReleases = 0
    /// Frames we asked to send.
    public var sent = 0
    /// Replies not sent because the reply budget was spent.
    public var repliesDropped = 0
    /// <Feature Abort>s others sent us.
    public var featureAborts = 0
    public init() {}
}
