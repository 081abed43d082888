/// The box's side of the CEC bus as a pure state machine (no I/O, no clock): frames from the
/// adapter come in through `handle(_:now:)`, app commands through the mutators, and what to do
/// goes out through `poll()` — frames to transmit, remote keys, the bus's power requests — in
/// order. `handleTimeout(now:)` at `nextDeadline` releases a remote key whose release never came.
///
/// As a Playback device (CEC 11.2 "Playback Device" feature set) it answers what a TV asks:
/// <Give OSD Name>, <Give Physical Address>, <Give Device Vendor ID>, <Get CEC Version>,
/// <Give Device Power Status>, <Menu Request>, <Request Active Source> and <Set Stream Path>
/// naming our address. Who gets an answer, which frames are ignored for their addressing or
/// length, who gets a <Feature Abort> and what may be sent in standby are `CECMessageRules`'
/// (one table from the spec's message list): in particular nothing directed-only is ever sent to
/// address 15, which as a destination is the broadcast address.
///
/// Power (`power`, CEC 13.3 "System Standby", CEC 13.14): <Standby> (broadcast or directed) and
/// the remote's Power Off / Power Toggle / Power keys while on ask the box to go to standby
/// (`.standby`); while in standby, <Set Stream Path> or <Routing Change>/<Routing Information>
/// naming our physical address (CEC 13.2) and the remote's Power On / Power Toggle / Power keys
/// ask it to wake (`.wake`). <Active Source> never wakes it. The status goes into its transition
/// at once and the owner settles it (`setPower`). In standby the box answers queries and sends
/// nothing of its own (`CECMessageRules.maySendInStandby`); remote keys other than the power keys
/// are not passed on.
///
/// Remote keys (CEC 13.13, "User Control"): a <User Control Pressed> is a press; the initiator
/// repeats it every 200–500 ms while the key is held (CEC 13.13.3), so a repeat of the held
/// command refreshes the hold (`keyRepeated`); another command first releases the held one; a
/// <User Control Released> releases it; and when neither a repeat nor a release arrives within
/// `releaseTimeoutNs` (550 ms: past the longest repetition time, the follower safety timeout of
/// CEC 2.0 §13.13.3) the key releases itself. Nothing is ever left held.
///
/// Bytes from the bus are untrusted: malformed frames, frames the rules refuse and unknown
/// opcodes are counted and otherwise ignored; replies are rate-limited (`replyBudget` per
/// second), so a flood of queries cannot queue an unbounded backlog.
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

    /// What asked the box to change its power.
    public enum Cause: Sendable, Equatable, CustomStringConvertible {
        /// A message (its opcode): <Standby>, <Set Stream Path>, <Routing Change>, <Routing Information>.
        case message(UInt8)
        /// A remote key (its [UI Command]): Power, Power Toggle, Power On or Power Off Function.
        case remoteKey(UInt8)

        public var description: String {
            switch self {
            case .message(let op): "<\(CECMessageRules.rule(op)?.name ?? String(op, radix: 16))>"
            case .remoteKey(let key):
                switch key {
                case CECUserControl.power: "the remote's Power key"
                case CECUserControl.powerToggleFunction: "the remote's Power Toggle"
                case CECUserControl.powerOffFunction: "the remote's Power Off"
                case CECUserControl.powerOnFunction: "the remote's Power On"
                default: "remote key 0x\(String(key, radix: 16))"
                }
            }
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
        /// The bus asks the box to go to standby (answer with `setPower`).
        case standby(Cause)
        /// The bus asks the box to wake (answer with `setPower`).
        case wake(Cause)
        /// Someone else became the active source (we are no longer shown).
        case lostActiveSource
    }

    public let identity: Identity
    /// Our logical address (15: none claimed — nothing is answered).
    public private(set) var logicalAddress: UInt8 = CECLogicalAddress.unregistered
    public private(set) var physicalAddress: UInt16 = CECPhysicalAddress.invalid
    /// Whether we believe the TV shows us.
    public private(set) var isActiveSource = false
    /// The power status the bus is told.
    public private(set) var power = CECPowerState()
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
        if CECMessageRules.admit(initiator: frame.initiator, destination: frame.destination, opcode: message.opcode,
                                 operandCount: bytes.count - 2, us: logicalAddress) != nil {
            counters.ignored += 1
            return
        }
        let from = frame.initiator
        switch message {
        case .userControlPressed(let command, _):
            counters.keys += 1
            if Self.isPowerKey(command) {
                releaseHeld()
                powerKey(command)
                return
            }
            guard power.isOn else { return }   // asleep: the remote's other keys mean nothing
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
            releaseHeld()
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
            reply(to: from, .reportPowerStatus(power.status), now: now)
        case .menuRequest(let kind):
            if kind == CECMenu.activate { menuActive = true } else if kind == CECMenu.deactivate { menuActive = false }
            reply(to: from, .menuStatus(menuActive ? CECMenu.activated : CECMenu.deactivated), now: now)
        case .requestActiveSource:
            if isActiveSource, power.isOn { reply(to: CECLogicalAddress.broadcast, .activeSource(physicalAddress), now: now) }
        case .setStreamPath(let address):
            if address == physicalAddress, physicalAddress != CECPhysicalAddress.invalid {
                if !power.isOn {
                    // Woken: the One Touch Play that follows the wake says <Active Source>.
                    wake(.message(message.opcode))
                } else {
                    isActiveSource = true
                    reply(to: CECLogicalAddress.broadcast, .activeSource(physicalAddress), now: now)
                }
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
            if to == physicalAddress, physicalAddress != CECPhysicalAddress.invalid {
                wake(.message(message.opcode))
            } else if isActiveSource {
                isActiveSource = false
                actions.append(.lostActiveSource)
            }
        case .standby:
            releaseHeld()
            if power.request(.standby) {
                isActiveSource = false
                actions.append(.standby(.message(message.opcode)))
            }
        case .abort:
            // Always a <Feature Abort> (CEC 13.16), any reason.
            reply(to: from, .featureAbort(opcode: message.opcode, reason: CECAbortReason.refused), now: now)
        case .featureAbort:
            counters.featureAborts += 1
        default:
            if message.rule == nil { counters.unknown += 1 }
            if let reason = CECMessageRules.abortReason(initiator: from, destination: frame.destination, opcode: message.opcode) {
                reply(to: from, .featureAbort(opcode: message.opcode, reason: reason), now: now)
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

    /// The box is on (`standby` false) or in standby now: the bus is told so from here on. In
    /// standby we are nobody's source and hold no key.
    public mutating func setPower(standby: Bool) {
        power.settle(standby: standby)
        if standby {
            isActiveSource = false
            releaseHeld()
        }
    }

    /// A stream starts, or the box woke: <Image View On> to the TV (when `wakeTV`), then
    /// <Active Source> to all, so the TV wakes and switches to our input (CEC 13.1 "One Touch
    /// Play"). Not while in standby.
    public mutating func becomeActiveSource(wakeTV: Bool) {
        guard canSend, power.isOn else { return }
        if wakeTV { send(CECFrame(from: logicalAddress, to: CECLogicalAddress.tv, .imageViewOn)) }
        send(CECFrame(from: logicalAddress, to: CECLogicalAddress.broadcast, .activeSource(physicalAddress)))
        isActiveSource = true
    }

    /// The box goes idle: <Inactive Source> to the TV (CEC 13.2.2), when we were shown.
    public mutating func becomeInactive() {
        guard canSend, isActiveSource, power.isOn else { return }
        isActiveSource = false
        send(CECFrame(from: logicalAddress, to: CECLogicalAddress.tv, .inactiveSource(physicalAddress)))
    }

    /// The box powers off or goes to standby by itself: <Standby> to the TV (CEC 13.3 "System
    /// Standby", directed), sent while still on.
    public mutating func standbyTV() {
        guard logicalAddress != CECLogicalAddress.unregistered, power.isOn else { return }
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

    static func isPowerKey(_ command: UInt8) -> Bool {
        [CECUserControl.power, CECUserControl.powerToggleFunction, CECUserControl.powerOffFunction,
         CECUserControl.powerOnFunction].contains(command)
    }

    /// The remote's power keys (CEC 17 [UI Command]): Power On wakes, Power Off sends to
    /// standby, Power Toggle and Power (a toggle on the remote) do what the box is not.
    private mutating func powerKey(_ command: UInt8) {
        let wantsStandby: Bool
        switch command {
        case CECUserControl.powerOnFunction: wantsStandby = false
        case CECUserControl.powerOffFunction: wantsStandby = true
        default: wantsStandby = !power.isAsleep
        }
        if wantsStandby {
            if power.request(.standby) {
                isActiveSource = false
                actions.append(.standby(.remoteKey(command)))
            }
        } else {
            wake(.remoteKey(command))
        }
    }

    private mutating func wake(_ cause: Cause) {
        if power.request(.wake) { actions.append(.wake(cause)) }
    }

    private mutating func send(_ frame: CECFrame) {
        guard let message = frame.message else { return }
        // The rules hold for everything we send: nothing directed-only to 15, and in standby
        // nothing but answers.
        guard CECMessageRules.mayAddress(message.opcode, to: frame.destination) else { counters.unanswerable += 1; return }
        guard power.isOn || CECMessageRules.maySendInStandby(message.opcode) else { counters.unanswerable += 1; return }
        counters.sent += 1
        actions.append(.transmit(frame))
    }

    private mutating func reply(to destination: UInt8, _ message: CECMessage, now: UInt64) {
        guard logicalAddress != CECLogicalAddress.unregistered else { return }
        if now &- replyWindowStart >= 1_000_000_000 || now < replyWindowStart {
            replyWindowStart = now
            repliesInWindow = 0
        }
        guard CECMessageRules.mayAddress(message.opcode, to: destination) else { counters.unanswerable += 1; return }
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
    /// Frames not for us, from our own address, with the wrong addressing mode or too short.
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
    /// Replies the rules forbid: a directed-only answer to address 15 (an unregistered asker),
    /// anything but an answer while in standby.
    public var unanswerable = 0
    /// <Feature Abort>s others sent us.
    public var featureAborts = 0
    public init() {}
}
