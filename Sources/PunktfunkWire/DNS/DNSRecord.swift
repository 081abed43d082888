/// Record types DNS-SD over mDNS uses (RFC 1035, 3596, 2782, 4034, 6763).
public enum DNSType {
    public static let a: UInt16 = 1
    public static let ptr: UInt16 = 12
    public static let txt: UInt16 = 16
    public static let aaaa: UInt16 = 28
    public static let srv: UInt16 = 33
    public static let nsec: UInt16 = 47
    public static let any: UInt16 = 255
}

/// Class IN; mDNS uses the class field's top bit as the unicast-response bit in questions
/// (RFC 6762 §5.4) and the cache-flush bit in records (§10.2).
public enum DNSClass {
    public static let internet: UInt16 = 1
    static let topBit: UInt16 = 0x8000
}

/// A question: name, type, class (without its top bit) and the mDNS unicast-response (QU) bit.
public struct DNSQuestion: Hashable, Sendable {
    public var name: DNSName
    public var type: UInt16
    public var rrClass: UInt16
    public var unicastResponse: Bool

    public init(name: DNSName, type: UInt16, rrClass: UInt16 = DNSClass.internet, unicastResponse: Bool = false) {
        self.name = name
        self.type = type
        self.rrClass = rrClass & 0x7FFF
        self.unicastResponse = unicastResponse
    }
}

/// A resource record's data, decoded for the types discovery reads; any other type keeps its
/// bytes as they came.
public enum DNSRecordData: Hashable, Sendable {
    case a([UInt8])                     // 4 bytes, network order
    case aaaa([UInt8])                  // 16 bytes, network order
    case ptr(DNSName)
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    /// TXT character-strings, each 0…255 bytes. An RDLENGTH of 0 decodes as `[]`.
    case txt([[UInt8]])
    /// NSEC (RFC 4034 §4; mDNS use: RFC 6762 §6.1): the next name and the types present, ascending.
    case nsec(next: DNSName, types: [UInt16])
    case other(type: UInt16, bytes: [UInt8])

    public var type: UInt16 {
        switch self {
        case .a: DNSType.a
        case .aaaa: DNSType.aaaa
        case .ptr: DNSType.ptr
        case .srv: DNSType.srv
        case .txt: DNSType.txt
        case .nsec: DNSType.nsec
        case .other(let type, _): type
        }
    }
}

/// A resource record. `ttl` is seconds; 0 in an mDNS response is a goodbye (RFC 6762 §10.1).
public struct DNSRecord: Hashable, Sendable {
    public var name: DNSName
    public var rrClass: UInt16
    /// mDNS cache-flush bit (RFC 6762 §10.2): this record replaces every cached record of the
    /// same name, type and class.
    public var cacheFlush: Bool
    public var ttl: UInt32
    public var data: DNSRecordData

    public var type: UInt16 { data.type }

    public init(name: DNSName, ttl: UInt32, data: DNSRecordData, cacheFlush: Bool = false, rrClass: UInt16 = DNSClass.internet) {
        self.name = name
        self.rrClass = rrClass & 0x7FFF
        self.cacheFlush = cacheFlush
        self.ttl = ttl
        self.data = data
    }
}
