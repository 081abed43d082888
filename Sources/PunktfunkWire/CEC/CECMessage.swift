/// One CEC message: the opcode and its operands (CEC 15). Physical addresses are the 16-bit
/// `a.b.c.d` form, big-endian on the bus.
///
/// Decoding is tolerant the way CEC 12.3 asks of a follower: operands beyond the ones a message
/// defines are ignored (a later spec version may add some), too few is an error. An opcode this
/// box does not know decodes as `.other`, so a directed one can be feature-aborted.
public enum CECMessage: Sendable, Equatable {
    case featureAbort(opcode: UInt8, reason: UInt8)
    case imageViewOn
    case textViewOn
    case standby
    /// A remote key went down (or, repeated every 200–500 ms, is still down). `operands` are
    /// the UI command's own (e.g. [Play Mode] of Play Function), usually empty.
    case userControlPressed(command: UInt8, operands: [UInt8])
    case userControlReleased
    case giveOSDName
    /// 1…14 ASCII bytes (CEC 17 [OSD Name]); bytes outside 0x20…0x7E are kept as they came.
    case setOSDName([UInt8])
    case routingChange(from: UInt16, to: UInt16)
    case routingInformation(UInt16)
    case activeSource(UInt16)
    case givePhysicalAddress
    case reportPhysicalAddress(UInt16, deviceType: UInt8)
    case requestActiveSource
    case setStreamPath(UInt16)
    /// The 24-bit IEEE OUI.
    case deviceVendorID(UInt32)
    case giveDeviceVendorID
    case menuRequest(UInt8)
    case menuStatus(UInt8)
    case giveDevicePowerStatus
    case reportPowerStatus(UInt8)
    case inactiveSource(UInt16)
    case cecVersion(UInt8)
    case getCECVersion
    case abort
    /// An opcode this box has no use for, with its operands (at most 14 bytes).
    case other(opcode: UInt8, operands: [UInt8])

    /// The opcode byte.
    public var opcode: UInt8 {
        switch self {
        case .featureAbort: CECOpcode.featureAbort
        case .imageViewOn: CECOpcode.imageViewOn
        case .textViewOn: CECOpcode.textViewOn
        case .standby: CECOpcode.standby
        case .userControlPressed: CECOpcode.userControlPressed
        case .userControlReleased: CECOpcode.userControlReleased
        case .giveOSDName: CECOpcode.giveOSDName
        case .setOSDName: CECOpcode.setOSDName
        case .routingChange: CECOpcode.routingChange
        case .routingInformation: CECOpcode.routingInformation
        case .activeSource: CECOpcode.activeSource
        case .givePhysicalAddress: CECOpcode.givePhysicalAddress
        case .reportPhysicalAddress: CECOpcode.reportPhysicalAddress
        case .requestActiveSource: CECOpcode.requestActiveSource
        case .setStreamPath: CECOpcode.setStreamPath
        case .deviceVendorID: CECOpcode.deviceVendorID
        case .giveDeviceVendorID: CECOpcode.giveDeviceVendorID
        case .menuRequest: CECOpcode.menuRequest
        case .menuStatus: CECOpcode.menuStatus
        case .giveDevicePowerStatus: CECOpcode.giveDevicePowerStatus
        case .reportPowerStatus: CECOpcode.reportPowerStatus
        case .inactiveSource: CECOpcode.inactiveSource
        case .cecVersion: CECOpcode.cecVersion
        case .getCECVersion: CECOpcode.getCECVersion
        case .abort: CECOpcode.abort
        case .other(let op, _): op
        }
    }

    /// The message's row of the CEC message list (nil: an opcode no version defines).
    public var rule: CECMessageRules.Rule? { CECMessageRules.rule(opcode) }

    /// Decodes `opcode` and `operands` (the frame's bytes after the header).
    /// - Throws: `WireError.truncated` when the message has fewer operands than it defines,
    ///   `WireError.wrongLength` when an operand list is longer than a frame can carry.
    public init(opcode: UInt8, operands o: ArraySlice<UInt8>) throws(WireError) {
        guard o.count <= CECFrame.maxLength - 2 else {
            throw .wrongLength(what: "CEC operands", expected: CECFrame.maxLength - 2, found: o.count)
        }
        func need(_ n: Int) throws(WireError) {
            if o.count < n { throw .truncated(needed: n, available: o.count) }
        }
        func address(_ at: Int) -> UInt16 {
            UInt16(o[o.startIndex + at]) << 8 | UInt16(o[o.startIndex + at + 1])
        }
        func byte(_ at: Int) -> UInt8 { o[o.startIndex + at] }
        switch opcode {
        case CECOpcode.featureAbort: try need(2); self = .featureAbort(opcode: byte(0), reason: byte(1))
        case CECOpcode.imageViewOn: self = .imageViewOn
        case CECOpcode.textViewOn: self = .textViewOn
        case CECOpcode.standby: self = .standby
        case CECOpcode.userControlPressed:
            try need(1)
            self = .userControlPressed(command: byte(0), operands: Array(o.dropFirst()))
        case CECOpcode.userControlReleased: self = .userControlReleased
        case CECOpcode.giveOSDName: self = .giveOSDName
        case CECOpcode.setOSDName:
            try need(1)
            self = .setOSDName(Array(o.prefix(14)))
        case CECOpcode.routingChange: try need(4); self = .routingChange(from: address(0), to: address(2))
        case CECOpcode.routingInformation: try need(2); self = .routingInformation(address(0))
        case CECOpcode.activeSource: try need(2); self = .activeSource(address(0))
        case CECOpcode.givePhysicalAddress: self = .givePhysicalAddress
        case CECOpcode.reportPhysicalAddress: try need(3); self = .reportPhysicalAddress(address(0), deviceType: byte(2))
        case CECOpcode.requestActiveSource: self = .requestActiveSource
        case CECOpcode.setStreamPath: try need(2); self = .setStreamPath(address(0))
        case CECOpcode.deviceVendorID:
            try need(3)
            self = .deviceVendorID(UInt32(byte(0)) << 16 | UInt32(byte(1)) << 8 | UInt32(byte(2)))
        case CECOpcode.giveDeviceVendorID: self = .giveDeviceVendorID
        case CECOpcode.menuRequest: try need(1); self = .menuRequest(byte(0))
        case CECOpcode.menuStatus: try need(1); self = .menuStatus(byte(0))
        case CECOpcode.giveDevicePowerStatus: self = .giveDevicePowerStatus
        case CECOpcode.reportPowerStatus: try need(1); self = .reportPowerStatus(byte(0))
        case CECOpcode.inactiveSource: try need(2); self = .inactiveSource(address(0))
        case CECOpcode.cecVersion: try need(1); self = .cecVersion(byte(0))
        case CECOpcode.getCECVersion: self = .getCECVersion
        case CECOpcode.abort: self = .abort
        default: self = .other(opcode: opcode, operands: Array(o))
        }
    }

    /// Appends the opcode and operands to `out` (at most 15 bytes).
    /// - Precondition: an `.other` or `.userControlPressed` carries at most 14 operand bytes
    ///   (13 for the latter), a `.setOSDName` 1…14 bytes.
    public func encode(into out: inout [UInt8]) {
        out.append(opcode)
        func address(_ a: UInt16) { out.append(UInt8(a >> 8)); out.append(UInt8(a & 0xFF)) }
        switch self {
        case .featureAbort(let op, let reason): out.append(op); out.append(reason)
        case .imageViewOn, .textViewOn, .standby, .userControlReleased, .giveOSDName, .givePhysicalAddress,
             .requestActiveSource, .giveDeviceVendorID, .giveDevicePowerStatus, .getCECVersion, .abort:
            break
        case .userControlPressed(let command, let operands):
            precondition(operands.count <= 13, "a CEC frame carries at most 14 operand bytes")
            out.append(command); out += operands
        case .setOSDName(let name):
            precondition((1...14).contains(name.count), "an OSD name is 1…14 bytes")
            out += name
        case .routingChange(let from, let to): address(from); address(to)
        case .routingInformation(let a), .activeSource(let a), .setStreamPath(let a), .inactiveSource(let a): address(a)
        case .reportPhysicalAddress(let a, let type): address(a); out.append(type)
        case .deviceVendorID(let id):
            out.append(UInt8(truncatingIfNeeded: id >> 16)); out.append(UInt8(truncatingIfNeeded: id >> 8))
            out.append(UInt8(truncatingIfNeeded: id))
        case .menuRequest(let v), .menuStatus(let v), .reportPowerStatus(let v), .cecVersion(let v): out.append(v)
        case .other(_, let operands):
            precondition(operands.count <= 14, "a CEC frame carries at most 14 operand bytes")
            out += operands
        }
    }

    /// An OSD name from text: ASCII printable characters only (others become "?"), 1…14 bytes
    /// ("punktfunk" when `text` has none).
    public static func osdName(_ text: String) -> [UInt8] {
        let bytes = text.unicodeScalars.prefix(14).map { s -> UInt8 in
            s.value >= 0x20 && s.value <= 0x7E ? UInt8(s.value) : UInt8(ascii: "?")
        }
        return bytes.isEmpty ? Array("punktfunk".utf8) : bytes
    }
}
