import Testing
@testable import PunktfunkWire

/// The DNS message codec against hand-built packets (RFC 1035 §4, RFC 6762 §18).
@Suite struct DNSMessageTests {
    /// Header of a response (QR|AA) with the given counts.
    static func header(id: UInt16 = 0, flags: UInt16 = 0x8400, qd: UInt16 = 0, an: UInt16 = 0, ns: UInt16 = 0, ar: UInt16 = 0) -> [UInt8] {
        [id, flags, qd, an, ns, ar].flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    static func labels(_ parts: String...) -> [UInt8] {
        parts.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    @Test func aQueryWithTheUnicastResponseBit() throws {
        // _punktfunk._udp.local. PTR, class IN with the QU bit.
        let bytes = Self.header(flags: 0, qd: 1) + Self.labels("_punktfunk", "_udp", "local") + [0x00, 0x0C, 0x80, 0x01]
        let m = try DNSMessage(decoding: bytes)
        #expect(!m.isResponse)
        #expect(m.questions.count == 1)
        let q = m.questions[0]
        #expect(q.name == (try DNSName("_punktfunk._udp.local.")))
        #expect(q.type == DNSType.ptr)
        #expect(q.rrClass == 1)
        #expect(q.unicastResponse)
        #expect(m.encoded() == bytes)
    }

    /// A DNS-SD answer as a host sends it: PTR, SRV, TXT, A, AAAA and NSEC, owner names and
    /// targets compressed against earlier names, cache-flush on the unique records.
    @Test func aCompressedResponseWithEveryRecordType() throws {
        var b = Self.header(an: 1, ar: 5)
        // 12: _punktfunk._udp.local. PTR → "Living Room" + ptr(12)
        b += Self.labels("_punktfunk", "_udp", "local")           // 12..<35
        #expect(b.count == 35)
        b += [0x00, 0x0C, 0x00, 0x01, 0x00, 0x00, 0x11, 0x94]     // PTR IN ttl 4500
        let ptrData: [UInt8] = [11] + Array("Living Room".utf8) + [0xC0, 12]
        b += [0x00, UInt8(ptrData.count)] + ptrData
        let instance = 45  // offset of the "Living Room" label inside the PTR data
        #expect(b[instance] == 11)
        // SRV at instance name (pointer), cache-flush, target box.local. (box + ptr to "local" at 28)
        #expect(b[28] == 5)
        b += [0xC0, UInt8(instance), 0x00, 0x21, 0x80, 0x01, 0x00, 0x00, 0x00, 0x78]
        let srvData: [UInt8] = [0, 0, 0, 0, 0x26, 0x31, 3] + Array("box".utf8) + [0xC0, 28]
        b += [0x00, UInt8(srvData.count)] + srvData
        let boxAt = b.count - 6
        #expect(b[boxAt] == 3)
        // TXT
        let txt = DNSSDText.strings([("proto", "punktfunk/1"), ("id", "abc")]) + [Array("flag".utf8)]
        let txtData = txt.flatMap { [UInt8($0.count)] + $0 }
        b += [0xC0, UInt8(instance), 0x00, 0x10, 0x80, 0x01, 0x00, 0x00, 0x11, 0x94, 0x00, UInt8(txtData.count)] + txtData
        // A and AAAA at box.local.
        b += [0xC0, UInt8(boxAt), 0x00, 0x01, 0x80, 0x01, 0x00, 0x00, 0x00, 0x78, 0x00, 0x04, 192, 168, 1, 20]
        b += [0xC0, UInt8(boxAt), 0x00, 0x1C, 0x80, 0x01, 0x00, 0x00, 0x00, 0x78, 0x00, 0x10] + [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1]
        // NSEC at box.local.: next = box.local. (pointer), types A and AAAA (window 0, 4 bytes).
        b += [0xC0, UInt8(boxAt), 0x00, 0x2F, 0x80, 0x01, 0x00, 0x00, 0x00, 0x78, 0x00, 0x08, 0xC0, UInt8(boxAt), 0x00, 0x04, 0x40, 0x00, 0x00, 0x08]

        let m = try DNSMessage(decoding: b)
        #expect(m.isResponse && m.opcode == 0 && m.rcode == 0)
        #expect(m.answers.count == 1 && m.additionals.count == 5)
        let service = try DNSName("_punktfunk._udp.local")
        let name = try service.prepending(Array("Living Room".utf8))
        let box = try DNSName("box.local")
        #expect(m.answers[0] == DNSRecord(name: service, ttl: 4500, data: .ptr(name)))
        #expect(!m.answers[0].cacheFlush)
        let srv = m.additionals[0]
        #expect(srv.name == name && srv.cacheFlush && srv.ttl == 120)
        #expect(srv.data == .srv(priority: 0, weight: 0, port: 9777, target: box))
        guard case .txt(let strings) = m.additionals[1].data else { Issue.record("no TXT"); return }
        let text = DNSSDText(strings: strings)
        #expect(text["proto"] == "punktfunk/1" && text["ID"] == "abc" && text["flag"] == nil)
        #expect(text.attributes["flag"] == .some(nil))
        #expect(m.additionals[2].data == .a([192, 168, 1, 20]))
        #expect(m.additionals[3].data == .aaaa([0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1]))
        #expect(m.additionals[4].data == .nsec(next: box, types: [DNSType.a, DNSType.aaaa]))
        #expect(name.description == "Living Room._punktfunk._udp.local.")

        // Our encoder compresses too, and what it writes decodes to the same message.
        #expect(try DNSMessage(decoding: m.encoded()) == m)
    }

    @Test func instanceLabelsMayHoldDotsAndUTF8() throws {
        let label = Array("Büro. 2".utf8)
        let name = try DNSName("_punktfunk._udp.local").prepending(label)
        let m = DNSMessage.response(answers: [DNSRecord(name: try DNSName("_punktfunk._udp.local"), ttl: 10, data: .ptr(name))])
        let decoded = try DNSMessage(decoding: m.encoded())
        #expect(decoded.answers[0].data == .ptr(name))
        #expect(name.description == "Büro\\. 2._punktfunk._udp.local.")
        #expect(name.matches(try DNSName("_punktfunk._udp.local").prepending(Array("bÜRO. 2".utf8))) == false)
        #expect(try DNSName("Box.LOCAL").matches(try DNSName("box.local")))
    }

    @Test func aPointerToItselfIsRefused() {
        // Question name at 12 is a pointer to 12.
        let bytes = Self.header(flags: 0, qd: 1) + [0xC0, 12, 0, 12, 0, 1]
        #expect(throws: DNSError.badPointer(offset: 12, target: 12)) { try DNSMessage(decoding: bytes) }
    }

    @Test func aForwardPointerIsRefused() {
        let bytes = Self.header(flags: 0, qd: 1) + [0xC0, 14] + Self.labels("a") + [0, 12, 0, 1]
        #expect(throws: DNSError.badPointer(offset: 12, target: 14)) { try DNSMessage(decoding: bytes) }
    }

    /// Two names that point at each other: the first jump goes back, the second would go forward
    /// again past where the first began, which the floor rule refuses.
    @Test func aPointerLoopBetweenTwoNamesIsRefused() {
        // 12: "a" then a pointer → 17; 16: padding; 17: "b" then a pointer → 12. Read from 17:
        // b, jump to 12 (below 17), a, jump to 17 (not below the floor 12).
        let b = Self.header(flags: 0, qd: 1) + [1, 0x61, 0xC0, 17] + [0] + [1, 0x62, 0xC0, 12]
        var r = DNSReader(bytes: b)
        r.offset = 17
        #expect(throws: DNSError.badPointer(offset: 14, target: 17)) { try r.name() }
    }

    @Test func truncatedNamesAndRecordsAreRefused() throws {
        let full = Self.header(flags: 0, qd: 1) + Self.labels("_punktfunk", "_udp", "local") + [0x00, 0x0C, 0x00, 0x01]
        for cut in 0..<full.count {
            #expect(throws: DNSError.self) { try DNSMessage(decoding: Array(full[0..<cut])) }
        }
        // A pointer's second byte missing.
        #expect(throws: DNSError.truncated(offset: 12, needed: 1)) { try DNSMessage(decoding: Self.header(qd: 1) + [0xC0]) }
        // A record whose RDLENGTH runs past the end.
        let rec = Self.header(an: 1) + [0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 8, 1, 2, 3, 4]
        #expect(throws: DNSError.truncated(offset: 23, needed: 4)) { try DNSMessage(decoding: rec) }
    }

    @Test func labelAndNameLimits() throws {
        let long = [UInt8](repeating: 0x61, count: 64)
        #expect(throws: DNSError.self) { try DNSName(labels: [long]) }
        // The reserved 0x40 / 0x80 label types.
        #expect(throws: DNSError.badLabel(offset: 12, length: 0x40)) { try DNSMessage(decoding: Self.header(qd: 1) + [0x40, 0, 0, 1, 0, 1]) }
        // 4 labels of 63 = 256 wire bytes + root: too long; 3 × 63 + 61 = 254 + 1 = 255 fits.
        let l63 = [UInt8](repeating: 0x62, count: 63)
        let fits = try DNSName(labels: [l63, l63, l63, [UInt8](repeating: 0x63, count: 61)])
        #expect(fits.wireLength == 255)
        #expect(throws: DNSError.self) { try DNSName(labels: [l63, l63, l63, [UInt8](repeating: 0x63, count: 62)]) }
        let tooLong = Self.header(qd: 1) + ([l63, l63, l63, [UInt8](repeating: 0x63, count: 62)].flatMap { [UInt8($0.count)] + $0 }) + [0, 0, 1, 0, 1]
        #expect(throws: DNSError.nameTooLong(offset: 12)) { try DNSMessage(decoding: tooLong) }
        let ok = Self.header(qd: 1) + (fits.labels.flatMap { [UInt8($0.count)] + $0 }) + [0, 0, 1, 0, 1]
        #expect(try DNSMessage(decoding: ok).questions[0].name == fits)
    }

    /// A name built by pointer chains long enough to pass 255 bytes is refused, not followed.
    @Test func aPointerChainPastTheNameBoundIsRefused() {
        var b = Self.header(qd: 1)
        // 40 names of one 10-byte label, each pointing to the previous: the last one expands to 440 bytes.
        var previous: Int? = nil
        var last = 0
        for _ in 0..<40 {
            last = b.count
            b += [10] + [UInt8](repeating: 0x78, count: 10)
            if let previous { b += [0xC0 | UInt8(previous >> 8), UInt8(previous & 0xFF)] } else { b += [0] }
            previous = last
        }
        var r = DNSReader(bytes: b)
        r.offset = last
        #expect(throws: DNSError.nameTooLong(offset: last)) { try r.name() }
    }

    @Test func recordDataMustMatchItsLength() {
        // An A record with 5 bytes.
        let a = Self.header(an: 1) + [0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 5, 1, 2, 3, 4, 5]
        #expect(throws: DNSError.badRecordData(type: 1, offset: 23, reason: "5 bytes, expected 4")) { try DNSMessage(decoding: a) }
        // A PTR whose name runs past RDLENGTH 2.
        let ptr = Self.header(an: 1) + [0, 0, 12, 0, 1, 0, 0, 0, 1, 0, 2, 3, 0x61, 0x62, 0x63, 0]
        #expect(throws: DNSError.self) { try DNSMessage(decoding: ptr) }
        // A TXT string longer than its record.
        let txt = Self.header(an: 1) + [0, 0, 16, 0, 1, 0, 0, 0, 1, 0, 2, 5, 0x61]
        #expect(throws: DNSError.self) { try DNSMessage(decoding: txt) }
        // NSEC windows out of order.
        let nsec = Self.header(an: 1) + [0, 0, 47, 0, 1, 0, 0, 0, 1, 0, 7, 0, 1, 1, 0x40, 0, 1, 0x40]
        #expect(throws: DNSError.self) { try DNSMessage(decoding: nsec) }
    }

    @Test func unknownTypesKeepTheirBytesAndGoodbyesKeepTTLZero() throws {
        let m = DNSMessage.response(answers: [
            DNSRecord(name: try DNSName("x.local"), ttl: 0, data: .other(type: 99, bytes: [1, 2, 3])),
            DNSRecord(name: try DNSName("x.local"), ttl: 0, data: .txt([])),
        ])
        let d = try DNSMessage(decoding: m.encoded())
        #expect(d == m)
        #expect(d.answers.filter { $0.ttl != 0 }.isEmpty)
    }
}
