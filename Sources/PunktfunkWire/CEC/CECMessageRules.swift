/// The CEC message list as one table, and every rule of what a follower answers, derived from it.
///
/// The rows are the messages of HDMI 1.4b Supplement 1 "CEC", CEC 15 "Message Descriptions" (the
/// per-feature tables: opcode, parameters, "Addressing"), plus the ones HDMI 2.0's CEC added
/// (<Give Features>, <Report Features>, the Dynamic Auto Lipsync pair) and HDMI 2.1's <Set Audio
/// Volume Level>, each with what this box — a Playback device (CEC 11.2) — does with it. The
/// values are the same as `CEC_MSG_*` in linux/cec.h; the addressing and lengths agree with the
/// kernel's own receive check (`cec_msg_size[]` in drivers/media/cec/core/cec-adap.c) and with
/// the message builders of linux/cec-funcs.h (the tests read that header).
///
/// The rules, each one function here:
/// - `admit`: a frame is for us when directed to our address or broadcast, not from our own
///   address, addressed the way its row says, and not shorter than its row's operands — anything
///   else is ignored (CEC 12.2 "Protocol General Rules"; CEC 7.3 "Frame Validation").
/// - `mayAddress`: address 15 is "Unregistered" as an initiator and "Broadcast" as a destination
///   (CEC 10.2, Table 5), so a reply to a message from 15 goes to 15 only when the reply's row
///   allows broadcast; a directed-only reply (<Feature Abort>, <Menu Status>, <Report Power
///   Status>, …) to 15 would reach every device of the bus and is not sent. (The kernel's own
///   follower ignores such queries: cec-adap.c drops the directed-reply ones from 15.)
/// - `abortReason`: <Feature Abort> answers only a message directed to us (never a broadcast —
///   CEC 12.2), never a <Feature Abort>, never a message from 15; "Unrecognized opcode" for an
///   opcode we do not know or a feature a playback device does not have.
/// - `maySendInStandby`: a device in standby answers what it is asked (the answers of the
///   `.answered` rows, and <Feature Abort>) and initiates nothing (CEC 13.3 "System Standby";
///   cec-compliance's "Standby:" subtests ask exactly these queries of a device in standby).
public enum CECMessageRules {
    /// The "Addressing" column.
    public enum Addressing: Sendable, Equatable {
        /// "Directly addressed" only.
        case directed
        /// "Broadcast" only.
        case broadcast
        /// Either ("Directly addressed" or "Broadcast").
        case either
        /// Directly addressed in CEC 1.4; broadcast allowed from CEC 2.0 on (<Report Power
        /// Status>). This box speaks 1.4, so a broadcast one is not for it.
        case directedBroadcastFrom2_0

        /// Whether a frame with this addressing may go to the broadcast address, for a 1.4 device.
        public var allowsBroadcast: Bool { self == .broadcast || self == .either }
        /// Whether it may go to one device.
        public var allowsDirected: Bool { self != .broadcast }
    }

    /// What a Playback device does with a message (CEC 11.2 lists the features it implements:
    /// One Touch Play, Routing Control as a source, System Standby, System Information, Vendor
    /// Specific Commands, Device OSD Name Transfer, Device Menu Control, Remote Control
    /// Pass Through, Give Device Power Status; Deck Control is optional and not implemented here).
    public enum Role: Sendable, Equatable {
        /// A request this box answers with `answer`'s opcode.
        case answered(answer: UInt8)
        /// A command or announcement this box acts on, without an answer.
        case followed
        /// Another device's answer or announcement this box has no use for: ignored, never
        /// answered (it asks nothing).
        case noted
        /// A feature a playback device does not have here (TV, recording, tuner, deck, timer,
        /// audio system, ARC, OSD string display, …): <Feature Abort> ["Unrecognized opcode"]
        /// when directed to us.
        case unsupported
    }

    public struct Rule: Sendable, Equatable {
        public var opcode: UInt8
        /// The message's name in the spec ("Give Device Power Status").
        public var name: String
        public var addressing: Addressing
        /// The fewest operand bytes the message has (its mandatory parameters); more are allowed
        /// (a later version may add some — CEC 12.2).
        public var minOperands: Int
        public var role: Role

        init(_ opcode: UInt8, _ name: String, _ addressing: Addressing, _ minOperands: Int, _ role: Role) {
            self.opcode = opcode; self.name = name; self.addressing = addressing
            self.minOperands = minOperands; self.role = role
        }
    }

    /// The message list, by feature in the spec's order.
    public static let table: [Rule] = [
        // One Touch Play (CEC 13.1)
        Rule(0x82, "Active Source", .broadcast, 2, .followed),
        Rule(0x04, "Image View On", .directed, 0, .unsupported),   // the TV's
        Rule(0x0D, "Text View On", .directed, 0, .unsupported),    // the TV's
        // Routing Control (CEC 13.2)
        Rule(0x9D, "Inactive Source", .directed, 2, .unsupported), // to the TV
        Rule(0x85, "Request Active Source", .broadcast, 0, .followed),   // answered by <Active Source> (broadcast) when we are it
        Rule(0x80, "Routing Change", .broadcast, 4, .followed),
        Rule(0x81, "Routing Information", .broadcast, 2, .followed),
        Rule(0x86, "Set Stream Path", .broadcast, 2, .followed),
        // System Standby (CEC 13.3)
        Rule(0x36, "Standby", .either, 0, .followed),
        // One Touch Record (CEC 13.4)
        Rule(0x0B, "Record Off", .directed, 0, .unsupported),
        Rule(0x09, "Record On", .directed, 1, .unsupported),
        Rule(0x0A, "Record Status", .directed, 1, .noted),
        Rule(0x0F, "Record TV Screen", .directed, 0, .unsupported),
        // Timer Programming (CEC 13.5)
        Rule(0x33, "Clear Analogue Timer", .directed, 11, .unsupported),
        Rule(0x99, "Clear Digital Timer", .directed, 14, .unsupported),
        Rule(0xA1, "Clear External Timer", .directed, 11, .unsupported),
        Rule(0x34, "Set Analogue Timer", .directed, 11, .unsupported),
        Rule(0x97, "Set Digital Timer", .directed, 14, .unsupported),
        Rule(0xA2, "Set External Timer", .directed, 11, .unsupported),
        Rule(0x67, "Set Timer Program Title", .directed, 1, .unsupported),
        Rule(0x43, "Timer Cleared Status", .directed, 1, .noted),
        Rule(0x35, "Timer Status", .directed, 1, .noted),
        // System Information (CEC 13.6; Give/Report Features: HDMI 2.0)
        Rule(0x9E, "CEC Version", .directed, 1, .noted),
        Rule(0x9F, "Get CEC Version", .directed, 0, .answered(answer: 0x9E)),
        Rule(0x83, "Give Physical Address", .directed, 0, .answered(answer: 0x84)),
        Rule(0x91, "Get Menu Language", .directed, 0, .unsupported),   // the TV's
        Rule(0x84, "Report Physical Address", .broadcast, 3, .noted),
        Rule(0x32, "Set Menu Language", .broadcast, 3, .noted),
        Rule(0xA6, "Report Features", .broadcast, 4, .noted),
        Rule(0xA5, "Give Features", .directed, 0, .unsupported),       // a 1.4 device has none
        // Deck Control (CEC 13.7)
        Rule(0x42, "Deck Control", .directed, 1, .unsupported),
        Rule(0x1B, "Deck Status", .directed, 1, .noted),
        Rule(0x1A, "Give Deck Status", .directed, 1, .unsupported),
        Rule(0x41, "Play", .directed, 1, .unsupported),
        // Tuner Control (CEC 13.8)
        Rule(0x08, "Give Tuner Device Status", .directed, 1, .unsupported),
        Rule(0x92, "Select Analogue Service", .directed, 4, .unsupported),
        Rule(0x93, "Select Digital Service", .directed, 7, .unsupported),
        Rule(0x07, "Tuner Device Status", .directed, 5, .noted),
        Rule(0x06, "Tuner Step Decrement", .directed, 0, .unsupported),
        Rule(0x05, "Tuner Step Increment", .directed, 0, .unsupported),
        // Vendor Specific Commands (CEC 13.9)
        Rule(0x87, "Device Vendor ID", .broadcast, 3, .noted),
        Rule(0x8C, "Give Device Vendor ID", .directed, 0, .answered(answer: 0x87)),
        Rule(0x89, "Vendor Command", .directed, 0, .unsupported),
        Rule(0xA0, "Vendor Command With ID", .either, 3, .unsupported),
        Rule(0x8A, "Vendor Remote Button Down", .either, 0, .unsupported),
        Rule(0x8B, "Vendor Remote Button Up", .either, 0, .unsupported),
        // OSD Display (CEC 13.10)
        Rule(0x64, "Set OSD String", .directed, 1, .unsupported),
        // Device OSD Name Transfer (CEC 13.11)
        Rule(0x46, "Give OSD Name", .directed, 0, .answered(answer: 0x47)),
        Rule(0x47, "Set OSD Name", .directed, 1, .noted),
        // Device Menu Control (CEC 13.12)
        Rule(0x8D, "Menu Request", .directed, 1, .answered(answer: 0x8E)),
        Rule(0x8E, "Menu Status", .directed, 1, .noted),
        // Remote Control Pass Through (CEC 13.13)
        Rule(0x44, "User Control Pressed", .directed, 1, .followed),
        Rule(0x45, "User Control Released", .directed, 0, .followed),
        // Give Device Power Status (CEC 13.14)
        Rule(0x8F, "Give Device Power Status", .directed, 0, .answered(answer: 0x90)),
        Rule(0x90, "Report Power Status", .directedBroadcastFrom2_0, 1, .noted),
        // General Protocol (CEC 13.16)
        Rule(0x00, "Feature Abort", .directed, 2, .noted),
        Rule(0xFF, "Abort", .directed, 0, .answered(answer: 0x00)),   // always a <Feature Abort> (CEC 13.16)
        // System Audio Control (CEC 13.15)
        Rule(0x71, "Give Audio Status", .directed, 0, .unsupported),
        Rule(0x7D, "Give System Audio Mode Status", .directed, 0, .unsupported),
        Rule(0x7A, "Report Audio Status", .directed, 1, .noted),
        Rule(0xA3, "Report Short Audio Descriptor", .directed, 0, .noted),
        Rule(0xA4, "Request Short Audio Descriptor", .directed, 0, .unsupported),
        Rule(0x72, "Set System Audio Mode", .either, 1, .noted),
        Rule(0x70, "System Audio Mode Request", .directed, 0, .unsupported),
        Rule(0x7E, "System Audio Mode Status", .directed, 1, .noted),
        Rule(0x73, "Set Audio Volume Level", .directed, 1, .unsupported),   // HDMI 2.1
        // Audio Rate Control (CEC 13.15.4)
        Rule(0x9A, "Set Audio Rate", .directed, 1, .unsupported),
        // Audio Return Channel Control (CEC 13.17)
        Rule(0xC0, "Initiate ARC", .directed, 0, .unsupported),
        Rule(0xC1, "Report ARC Initiated", .directed, 0, .unsupported),
        Rule(0xC2, "Report ARC Terminated", .directed, 0, .unsupported),
        Rule(0xC3, "Request ARC Initiation", .directed, 0, .unsupported),
        Rule(0xC4, "Request ARC Termination", .directed, 0, .unsupported),
        Rule(0xC5, "Terminate ARC", .directed, 0, .unsupported),
        // Capability Discovery and Control (CEC 13.18): the physical address and the CDC opcode
        Rule(0xF8, "CDC Message", .broadcast, 3, .noted),
        // Dynamic Auto Lipsync (HDMI 2.0)
        Rule(0xA7, "Request Current Latency", .broadcast, 2, .noted),
        Rule(0xA8, "Report Current Latency", .broadcast, 4, .noted),
    ]

    /// The rows by opcode.
    private static let byOpcode: [Rule?] = {
        var rows = [Rule?](repeating: nil, count: 256)
        for r in table {
            precondition(rows[Int(r.opcode)] == nil, "two rows for opcode \(r.opcode)")
            rows[Int(r.opcode)] = r
        }
        return rows
    }()

    /// The row of `opcode`; nil: not in the message list (an opcode no version defines, or one
    /// after HDMI 2.1's).
    public static func rule(_ opcode: UInt8) -> Rule? { byOpcode[Int(opcode)] }

    /// Why a frame is not acted on.
    public enum Refusal: Sendable, Equatable {
        /// Directed to another device.
        case notForUs
        /// From our own logical address: a device that lost arbitration, or our own echo.
        case fromOurAddress
        /// Broadcast where the message is directed-only, or directed where it is broadcast-only.
        case wrongAddressing
        /// Fewer operands than the message defines.
        case tooShort
    }

    /// Whether a frame from `initiator` to `destination` carrying `opcode` with `operandCount`
    /// operand bytes is for a follower at `us` to act on. - Returns: nil: act on it.
    public static func admit(initiator: UInt8, destination: UInt8, opcode: UInt8, operandCount: Int,
                             us: UInt8) -> Refusal? {
        let broadcast = destination == CECLogicalAddress.broadcast
        guard broadcast || destination == us else { return .notForUs }
        if initiator == us, us != CECLogicalAddress.unregistered { return .fromOurAddress }
        guard let row = rule(opcode) else { return nil }   // unknown: a directed one is feature-aborted
        if broadcast ? !row.addressing.allowsBroadcast : !row.addressing.allowsDirected { return .wrongAddressing }
        if operandCount < row.minOperands { return .tooShort }
        return nil
    }

    /// Whether a frame carrying `opcode` may be addressed to `destination`: never a
    /// directed-only message to 15, where it would be a broadcast (CEC 10.2).
    public static func mayAddress(_ opcode: UInt8, to destination: UInt8) -> Bool {
        guard destination == CECLogicalAddress.broadcast else { return rule(opcode)?.addressing.allowsDirected ?? true }
        return rule(opcode)?.addressing.allowsBroadcast ?? false
    }

    /// The [Abort Reason] to answer an admitted frame with when this box has nothing else to
    /// answer (nil: no <Feature Abort>): "Unrecognized opcode" for an opcode not in the list or
    /// a feature a playback device does not have, directed to us, from a registered address, and
    /// not itself a <Feature Abort> (CEC 12.2).
    public static func abortReason(initiator: UInt8, destination: UInt8, opcode: UInt8) -> UInt8? {
        guard destination != CECLogicalAddress.broadcast, initiator != CECLogicalAddress.unregistered,
              opcode != CECOpcode.featureAbort else { return nil }
        switch rule(opcode)?.role {
        case nil, .unsupported?: return CECAbortReason.unrecognizedOpcode
        case .answered?, .followed?, .noted?: return nil
        }
    }

    /// Whether a device in standby may send a message with `opcode`: the answers to what it is
    /// asked, and <Feature Abort>; nothing it would initiate (<Active Source>, <Image View On>,
    /// <Inactive Source>, <Standby>, key presses).
    public static func maySendInStandby(_ opcode: UInt8) -> Bool {
        opcode == CECOpcode.featureAbort || table.contains { $0.role == .answered(answer: opcode) }
    }
}
