import Foundation
import Testing
@testable import PunktfunkWire

/// The CEC message table against an encoding of the spec no one here wrote — the kernel's
/// linux/cec.h (every opcode) and linux/cec-funcs.h (a builder per message: which ones it makes
/// broadcast, how long it makes them; Debian's linux-libc-dev) — and the reply rules message by
/// message, each against the spec sentence it comes from (HDMI 1.4b CEC 10.2, 12.2, 13.16).
@Suite struct CECMessageRulesTests {
    static let cecHeader = "/usr/include/linux/cec.h"
    static let funcsHeader = "/usr/include/linux/cec-funcs.h"
    static let haveHeaders = FileManager.default.fileExists(atPath: cecHeader) && FileManager.default.fileExists(atPath: funcsHeader)

    /// `CEC_MSG_*` opcodes of linux/cec.h, by name (the CDC sub-opcodes, `CEC_MSG_CDC_*` other
    /// than `CEC_MSG_CDC_MESSAGE`, are operands of <CDC Message>, not opcodes).
    static func kernelOpcodes() throws -> [String: UInt8] {
        let text = try String(contentsOfFile: cecHeader, encoding: .utf8)
        var out: [String: UInt8] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 3, parts[0] == "#define", parts[1].hasPrefix("CEC_MSG_"), parts[2].hasPrefix("0x"),
                  let value = UInt8(parts[2].dropFirst(2), radix: 16) else { continue }
            let name = String(parts[1])
            if name.hasPrefix("CEC_MSG_CDC_"), name != "CEC_MSG_CDC_MESSAGE" { continue }
            out[name] = value
        }
        return out
    }

    /// One message builder of linux/cec-funcs.h: its opcode, whether it makes the frame a
    /// broadcast (`msg->msg[0] |= 0xf`), and its length when it sets a plain number.
    struct Builder { var function: String; var opcode: UInt8; var broadcast: Bool; var length: Int? }

    static func kernelBuilders() throws -> [Builder] {
        let opcodes = try kernelOpcodes()
        let text = try String(contentsOfFile: funcsHeader, encoding: .utf8)
        var out: [Builder] = []
        // Each builder: "static __inline__ void cec_msg_NAME(struct cec_msg *msg...)\n{ BODY \n}"
        for chunk in text.components(separatedBy: "static __inline__ void cec_msg_").dropFirst() {
            guard chunk.contains("(struct cec_msg *msg"), let open = chunk.range(of: "\n{"),
                  let close = chunk.range(of: "\n}", range: open.upperBound..<chunk.endIndex) else { continue }
            let body = chunk[open.upperBound..<close.lowerBound]
            let assignments = body.components(separatedBy: "msg->msg[1] = ").dropFirst()
            guard assignments.count == 1, let name = assignments.first?.split(separator: ";").first,
                  let opcode = opcodes[String(name)] else { continue }
            let lengths = body.components(separatedBy: "msg->len = ").dropFirst().map { $0.split(separator: ";").first.map(String.init) ?? "" }
            let length = lengths.count == 1 ? Int(lengths[0]) : nil
            let function = String(chunk.prefix { $0 != "(" })
            out.append(Builder(function: function, opcode: opcode, broadcast: body.contains("msg->msg[0] |= 0xf;"), length: length))
        }
        return out
    }

    @Test(.enabled(if: haveHeaders, "linux/cec.h and linux/cec-funcs.h (Debian: linux-libc-dev) are not installed"))
    func everyOpcodeTheKernelNamesHasARow() throws {
        let opcodes = try Self.kernelOpcodes()
        #expect(opcodes.count >= 70, "read \(opcodes.count) opcodes from \(Self.cecHeader)")
        for (name, op) in opcodes.sorted(by: { $0.value < $1.value }) {
            #expect(CECMessageRules.rule(op) != nil, "\(name) (0x\(String(op, radix: 16))) has no row")
        }
        #expect(CECMessageRules.table.count == Set(opcodes.values).count, "rows for opcodes the kernel does not name")
    }

    @Test(.enabled(if: haveHeaders, "linux/cec.h and linux/cec-funcs.h (Debian: linux-libc-dev) are not installed"))
    func broadcastOnlyRowsAreExactlyTheOnesTheKernelBuildsAsBroadcast() throws {
        let builders = try Self.kernelBuilders()
        #expect(builders.count >= 80, "read \(builders.count) builders from \(Self.funcsHeader)")
        for b in builders {
            let row = try #require(CECMessageRules.rule(b.opcode), "cec_msg_\(b.function)")
            if b.broadcast {
                #expect(row.addressing == .broadcast, "cec_msg_\(b.function) makes a broadcast; the table says \(row.addressing)")
            } else {
                #expect(row.addressing != .broadcast, "cec_msg_\(b.function) makes a directed frame; the table says broadcast-only")
            }
        }
    }

    @Test(.enabled(if: haveHeaders, "linux/cec.h and linux/cec-funcs.h (Debian: linux-libc-dev) are not installed"))
    func minimumOperandsAreTheKernelBuildersShortest() throws {
        var shortest: [UInt8: (Int, String)] = [:]
        for b in try Self.kernelBuilders() {
            guard let length = b.length else { continue }   // built from a variable (names, vendor data)
            if shortest[b.opcode].map({ length < $0.0 }) ?? true { shortest[b.opcode] = (length, b.function) }
        }
        #expect(shortest.count >= 60)
        for (op, (length, function)) in shortest {
            let row = try #require(CECMessageRules.rule(op))
            #expect(row.minOperands == length - 2, "\(row.name): cec_msg_\(function) builds \(length) bytes, the table says \(row.minOperands) operands")
        }
    }

    // MARK: - The reply rules, message by message

    static func follower(at logical: UInt8 = 4) -> CECFollower {
        var f = CECFollower(identity: .init(osdName: "punktfunk", vendorID: 0x0000F0))
        f.setAddresses(logical: logical, physical: 0x1000)
        return f
    }

    static func sent(_ f: inout CECFollower) -> [CECFrame] {
        var out: [CECFrame] = []
        while let a = f.poll() { if case .transmit(let fr) = a { out.append(fr) } }
        return out
    }

    /// A frame carrying `row`'s opcode with its mandatory operands (zero bytes; a physical address
    /// of 0.0.0.0 names nobody here).
    static func frame(_ row: CECMessageRules.Rule, from: UInt8, to: UInt8) -> [UInt8] {
        [from << 4 | to, row.opcode] + [UInt8](repeating: 0, count: row.minOperands)
    }

    /// CEC 12.2: a message directly addressed to a device that does not support it is answered
    /// with <Feature Abort> ["Unrecognized opcode"] to its initiator; one the device supports is
    /// not; a device's own answers (<Feature Abort> included) are never feature-aborted.
    @Test(arguments: CECMessageRules.table.indices)
    func aDirectedMessageFromTheTV(_ i: Int) {
        let row = CECMessageRules.table[i]
        var f = Self.follower()
        f.handle(Self.frame(row, from: 0, to: 4), now: 0)
        let out = Self.sent(&f)
        switch (row.addressing, row.role) {
        case (.broadcast, _):
            #expect(out.isEmpty && f.counters.ignored == 1, "\(row.name) directed: must be ignored (broadcast only)")
        case (_, .unsupported):
            #expect(out == [CECFrame(from: 4, to: 0, .featureAbort(opcode: row.opcode, reason: CECAbortReason.unrecognizedOpcode))], "\(row.name)")
        case (_, .answered(let answer)):
            #expect(out.count == 1 && out.first?.message?.opcode == answer, "\(row.name) → \(out)")
            if let reply = out.first, let answerRow = CECMessageRules.rule(answer) {
                #expect(reply.destination == (answerRow.addressing == .broadcast ? 15 : 0), "\(row.name): \(reply)")
            }
        case (_, .noted), (_, .followed):
            #expect(!out.contains { $0.message?.opcode == CECOpcode.featureAbort }, "\(row.name) is supported: \(out)")
        }
    }

    /// CEC 10.2: address 15 as a destination is "Broadcast", so nothing directed-only is ever
    /// addressed to it, whatever an unregistered device asks; and <Feature Abort> answers no
    /// message from 15.
    @Test(arguments: CECMessageRules.table.indices)
    func aDirectedMessageFromTheUnregisteredAddress(_ i: Int) {
        let row = CECMessageRules.table[i]
        var f = Self.follower()
        f.handle(Self.frame(row, from: 15, to: 4), now: 0)
        for frame in Self.sent(&f) {
            let op = frame.message!.opcode
            #expect(frame.destination != 15 || CECMessageRules.rule(op)?.addressing.allowsBroadcast == true,
                    "\(row.name) from 15 answered with a directed-only \(frame)")
            #expect(op != CECOpcode.featureAbort, "\(row.name) from 15 feature-aborted: \(frame)")
        }
    }

    /// CEC 12.2: a broadcast is never answered with <Feature Abort>; a directed-only message
    /// that came as a broadcast is ignored.
    @Test(arguments: CECMessageRules.table.indices)
    func aBroadcastMessage(_ i: Int) {
        let row = CECMessageRules.table[i]
        var f = Self.follower()
        f.handle(Self.frame(row, from: 0, to: 15), now: 0)
        let out = Self.sent(&f)
        #expect(!out.contains { $0.message?.opcode == CECOpcode.featureAbort }, "\(row.name) broadcast: \(out)")
        if !row.addressing.allowsBroadcast {
            #expect(out.isEmpty && f.counters.ignored == 1, "\(row.name) broadcast: must be ignored (directed only)")
        }
    }

    /// The issue's own frames: a follower at Playback 2 (8), asked by an unregistered device.
    /// The kernel's follower ignores these; ours sends nothing (before: 8f:00:5b:00, 8f:8e:00).
    @Test func theUnregisteredQueriesOfTheReportGetNoBroadcastAnswer() {
        var f = Self.follower(at: 8)
        for q in ["f8:5b", "f8:8d:02", "f8:8f", "f8:46", "f8:fe"] {
            f.handle(CECMessageTests.bytes(q), now: 0)
            #expect(Self.sent(&f).isEmpty, "\(q)")
        }
        #expect(f.counters.unanswerable == 3, "Menu Status, Report Power Status, Set OSD Name withheld")
        // Asked by the TV, the same queries are answered.
        f.handle(CECMessageTests.bytes("08:8d:02"), now: 0)
        f.handle(CECMessageTests.bytes("08:5b"), now: 0)
        #expect(Self.sent(&f).map(\.description) == ["80:8e:00", "80:00:5b:00"])
        // A broadcast answer is fine for anyone: <Give Physical Address> from 15.
        f.handle(CECMessageTests.bytes("f8:83"), now: 0)
        #expect(Self.sent(&f).map(\.description) == ["8f:84:10:00:04"])
    }

    @Test func mayAddressAndStandbyAllowances() {
        #expect(!CECMessageRules.mayAddress(CECOpcode.featureAbort, to: 15))
        #expect(!CECMessageRules.mayAddress(CECOpcode.menuStatus, to: 15))
        #expect(!CECMessageRules.mayAddress(CECOpcode.reportPowerStatus, to: 15), "broadcast only from CEC 2.0")
        #expect(CECMessageRules.mayAddress(CECOpcode.standby, to: 15))
        #expect(CECMessageRules.mayAddress(CECOpcode.activeSource, to: 15))
        #expect(!CECMessageRules.mayAddress(CECOpcode.activeSource, to: 0))
        #expect(!CECMessageRules.mayAddress(0xFE, to: 15), "an opcode no one defines is not broadcast")
        // In standby: answers (and Feature Abort) only.
        for op in [CECOpcode.reportPowerStatus, CECOpcode.setOSDName, CECOpcode.reportPhysicalAddress, CECOpcode.cecVersion,
                   CECOpcode.deviceVendorID, CECOpcode.menuStatus, CECOpcode.featureAbort] {
            #expect(CECMessageRules.maySendInStandby(op), "0x\(String(op, radix: 16))")
        }
        for op in [CECOpcode.activeSource, CECOpcode.imageViewOn, CECOpcode.inactiveSource, CECOpcode.standby,
                   CECOpcode.userControlPressed] {
            #expect(!CECMessageRules.maySendInStandby(op), "0x\(String(op, radix: 16))")
        }
    }
}
