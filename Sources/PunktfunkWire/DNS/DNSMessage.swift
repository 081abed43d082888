/// A DNS message (RFC 1035 §4.1) as mDNS sends it: header, questions and three record sections.
///
/// `init(decoding:)` checks every count, length and compression pointer against the bytes and
/// throws `DNSError`; it never traps and never loops (each pointer must point before the name
/// bytes read so far, and a name stops at 255 bytes). `encoded()` compresses owner names and
/// PTR/SRV targets by exact-case suffix match, so decoding what it encodes gives the same message.
public struct DNSMessage: Hashable, Sendable {
    public var id: UInt16
    /// QR, opcode, AA, TC, RD, RA, Z, RCODE as on the wire.
    public var flags: UInt16
    public var questions: [DNSQuestion]
    public var answers: [DNSRecord]
    public var authorities: [DNSRecord]
    public var additionals: [DNSRecord]

    public static let responseFlag: UInt16 = 0x8000
    public static let authoritativeFlag: UInt16 = 0x0400
    public static let truncatedFlag: UInt16 = 0x0200

    public var isResponse: Bool { flags & Self.responseFlag != 0 }
    public var opcode: UInt8 { UInt8(flags >> 11 & 0xF) }
    public var rcode: UInt8 { UInt8(flags & 0xF) }

    public init(id: UInt16 = 0, flags: UInt16 = 0, questions: [DNSQuestion] = [], answers: [DNSRecord] = [],
                authorities: [DNSRecord] = [], additionals: [DNSRecord] = []) {
        self.id = id
        self.flags = flags
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// A multicast query (id 0, flags 0: RFC 6762 §18.1, §18.2).
    public static func query(_ questions: [DNSQuestion], knownAnswers: [DNSRecord] = []) -> DNSMessage {
        DNSMessage(questions: questions, answers: knownAnswers)
    }

    /// An authoritative response (RFC 6762 §18.4: QR and AA set, id 0 for multicast).
    public static func response(answers: [DNSRecord], additionals: [DNSRecord] = []) -> DNSMessage {
        DNSMessage(flags: responseFlag | authoritativeFlag, answers: answers, additionals: additionals)
    }

    /// Every record of the three record sections.
    public var records: [DNSRecord] { answers + authorities + additionals }
}

// MARK: - Decoding

extension DNSMessage {
    public init(decoding bytes: [UInt8]) throws(DNSError) {
        var r = DNSReader(bytes: bytes)
        id = try r.u16()
        flags = try r.u16()
        let qd = Int(try r.u16()), an = Int(try r.u16()), ns = Int(try r.u16()), ar = Int(try r.u16())
        // Each question needs ≥ 5 bytes and each record ≥ 11, so the counts are bounded by the
        // bytes present; no array is reserved from a count before its bytes are seen.
        questions = []
        for _ in 0..<qd {
            let name = try r.name()
            let type = try r.u16()
            let cls = try r.u16()
            questions.append(DNSQuestion(name: name, type: type, rrClass: cls, unicastResponse: cls & DNSClass.topBit != 0))
        }
        answers = try r.records(an)
        authorities = try r.records(ns)
        additionals = try r.records(ar)
    }
}

/// Cursor over a whole message (pointers refer to absolute offsets from its first byte).
struct DNSReader {
    let bytes: [UInt8]
    var offset = 0

    func need(_ n: Int, at position: Int) throws(DNSError) {
        guard position >= 0, n <= bytes.count - position else {
            throw .truncated(offset: position, needed: n - max(0, bytes.count - position))
        }
    }

    mutating func u8() throws(DNSError) -> UInt8 {
        try need(1, at: offset)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(DNSError) -> UInt16 {
        try need(2, at: offset)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u32() throws(DNSError) -> UInt32 {
        try need(4, at: offset)
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    mutating func take(_ n: Int) throws(DNSError) -> [UInt8] {
        try need(n, at: offset)
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    /// A possibly compressed name starting at `offset`; `offset` moves past its in-line part.
    ///
    /// Loop freedom: `floor` is the lowest offset this name has read from; a pointer must target
    /// strictly below it, so the read position after every jump strictly decreases.
    mutating func name() throws(DNSError) -> DNSName {
        var labels: [[UInt8]] = []
        var wireLength = 1
        var position = offset
        var floor = offset
        var jumped = false
        let start = offset
        while true {
            try need(1, at: position)
            let length = bytes[position]
            switch length & 0xC0 {
            case 0x00:
                if length == 0 {
                    if !jumped { offset = position + 1 }
                    return DNSName(checked: labels)
                }
                wireLength += 1 + Int(length)
                guard wireLength <= 255 else { throw .nameTooLong(offset: start) }
                try need(1 + Int(length), at: position)
                labels.append(Array(bytes[position + 1...position + Int(length)]))
                position += 1 + Int(length)
            case 0xC0:
                try need(2, at: position)
                let target = Int(length & 0x3F) << 8 | Int(bytes[position + 1])
                guard target < floor else { throw .badPointer(offset: position, target: target) }
                if !jumped { offset = position + 2; jumped = true }
                floor = target
                position = target
            default:
                throw .badLabel(offset: position, length: length)
            }
        }
    }

    mutating func records(_ count: Int) throws(DNSError) -> [DNSRecord] {
        var out: [DNSRecord] = []
        for _ in 0..<count { out.append(try record()) }
        return out
    }

    mutating func record() throws(DNSError) -> DNSRecord {
        let name = try name()
        let type = try u16()
        let cls = try u16()
        let ttl = try u32()
        let length = Int(try u16())
        let start = offset
        try need(length, at: start)
        let end = start + length
        let data = try recordData(type: type, end: end)
        guard offset == end else {
            throw .badRecordData(type: type, offset: start, reason: "RDLENGTH \(length) but data used \(offset - start)")
        }
        return DNSRecord(name: name, ttl: ttl, data: data, cacheFlush: cls & DNSClass.topBit != 0, rrClass: cls)
    }

    /// One record's data in `offset..<end`; names in it may point anywhere before themselves, but
    /// their in-line part must end by `end`.
    mutating func recordData(type: UInt16, end: Int) throws(DNSError) -> DNSRecordData {
        let start = offset
        func fixed(_ n: Int) throws(DNSError) {
            guard end - start == n else { throw .badRecordData(type: type, offset: start, reason: "\(end - start) bytes, expected \(n)") }
        }
        func inside() throws(DNSError) {
            guard offset <= end else { throw .badRecordData(type: type, offset: start, reason: "name runs past RDLENGTH") }
        }
        switch type {
        case DNSType.a:
            try fixed(4)
            return .a(try take(4))
        case DNSType.aaaa:
            try fixed(16)
            return .aaaa(try take(16))
        case DNSType.ptr:
            let target = try name()
            try inside()
            return .ptr(target)
        case DNSType.srv:
            guard end - start >= 7 else { throw .badRecordData(type: type, offset: start, reason: "SRV shorter than 7 bytes") }
            let priority = try u16(), weight = try u16(), port = try u16()
            let target = try name()
            try inside()
            return .srv(priority: priority, weight: weight, port: port, target: target)
        case DNSType.txt:
            var strings: [[UInt8]] = []
            while offset < end {
                let n = Int(try u8())
                guard offset + n <= end else { throw .badRecordData(type: type, offset: offset - 1, reason: "TXT string of \(n) bytes runs past RDLENGTH") }
                strings.append(try take(n))
            }
            return .txt(strings)
        case DNSType.nsec:
            let next = try name()
            try inside()
            var types: [UInt16] = []
            var lastWindow = -1
            while offset < end {
                guard end - offset >= 2 else { throw .badRecordData(type: type, offset: offset, reason: "NSEC window header cut short") }
                let window = Int(try u8()), n = Int(try u8())
                guard window > lastWindow else { throw .badRecordData(type: type, offset: offset - 2, reason: "NSEC windows not ascending") }
                guard n >= 1, n <= 32, offset + n <= end else { throw .badRecordData(type: type, offset: offset - 2, reason: "NSEC bitmap length \(n)") }
                lastWindow = window
                let bitmap = try take(n)
                for (i, byte) in bitmap.enumerated() {
                    for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                        types.append(UInt16(window << 8 | i << 3 | bit))
                    }
                }
            }
            return .nsec(next: next, types: types)
        default:
            return .other(type: type, bytes: try take(end - start))
        }
    }
}

// MARK: - Encoding

extension DNSMessage {
    /// The message's wire bytes. Counts above 65535 or character-strings above 255 bytes are a
    /// caller error (precondition); names are valid by construction.
    public func encoded() -> [UInt8] {
        var w = DNSWriter()
        w.u16(id)
        w.u16(flags)
        for count in [questions.count, answers.count, authorities.count, additionals.count] {
            precondition(count <= 0xFFFF, "DNS section with \(count) entries")
            w.u16(UInt16(count))
        }
        for q in questions {
            w.name(q.name, compress: true)
            w.u16(q.type)
            w.u16(q.rrClass | (q.unicastResponse ? DNSClass.topBit : 0))
        }
        for record in answers + authorities + additionals { w.record(record) }
        return w.bytes
    }
}

struct DNSWriter {
    var bytes: [UInt8] = []
    /// Offset of each name suffix written so far (exact bytes), for compression pointers.
    var suffixes: [ArraySlice<[UInt8]>: Int] = [:]

    mutating func u16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func u32(_ v: UInt32) { bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    mutating func name(_ name: DNSName, compress: Bool) {
        let labels = name.labels
        for i in labels.indices {
            let suffix = labels[i...]
            if compress, let at = suffixes[suffix] {
                u16(0xC000 | UInt16(at))
                return
            }
            if compress, bytes.count < 0x4000 { suffixes[suffix] = bytes.count }
            bytes.append(UInt8(labels[i].count))
            bytes += labels[i]
        }
        bytes.append(0)
    }

    mutating func record(_ r: DNSRecord) {
        name(r.name, compress: true)
        u16(r.type)
        u16(r.rrClass | (r.cacheFlush ? DNSClass.topBit : 0))
        u32(r.ttl)
        let lengthAt = bytes.count
        u16(0)
        switch r.data {
        case .a(let b), .aaaa(let b): bytes += b
        case .ptr(let target): name(target, compress: true)
        case .srv(let priority, let weight, let port, let target):
            u16(priority); u16(weight); u16(port)
            name(target, compress: true)
        case .txt(let strings):
            for s in strings {
                precondition(s.count <= 255, "TXT string of \(s.count) bytes")
                bytes.append(UInt8(s.count))
                bytes += s
            }
        case .nsec(let next, let types):
            name(next, compress: false)
            var windows: [UInt8: [UInt8]] = [:]
            for t in types {
                let window = UInt8(t >> 8), index = Int(t & 0xFF) >> 3
                var bitmap = windows[window] ?? []
                if bitmap.count <= index { bitmap += [UInt8](repeating: 0, count: index + 1 - bitmap.count) }
                bitmap[index] |= 0x80 >> (t & 7)
                windows[window] = bitmap
            }
            for window in windows.keys.sorted() {
                bytes += [window, UInt8(windows[window]!.count)]
                bytes += windows[window]!
            }
        case .other(_, let b): bytes += b
        }
        let length = bytes.count - lengthAt - 2
        precondition(length <= 0xFFFF, "record data of \(length) bytes")
        bytes[lengthAt] = UInt8(length >> 8)
        bytes[lengthAt + 1] = UInt8(length & 0xFF)
    }
}
