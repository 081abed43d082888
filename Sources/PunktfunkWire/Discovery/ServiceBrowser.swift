/// The DNS-SD browse of one service type over mDNS (RFC 6762, RFC 6763), as pure state: the
/// caller hands in received messages and the time, and asks for the next query and deadline.
/// No socket, no clock (STYLE.md §1).
///
/// - `handle(_:scope:now:)` takes any message from anyone; queries, non-zero opcodes/rcodes and
///   records of no interest are ignored. Each record is cached until its TTL runs out; a TTL of 0
///   (goodbye, RFC 6762 §10.1) leaves it one more second. A cache-flush record (§10.2) retires
///   same-name, same-type records older than one second.
/// - The cache is bounded (`limits`): a flood of adverts from a hostile link cannot grow it
///   beyond them; records past a bound are counted in `droppedRecords` and ignored.
/// - Queries: at `start`, then after 1 s, 2 s, 4 s … up to `maximumInterval`; `requery` starts the
///   series again. Each query asks for the service's PTRs with the PTRs still more than half
///   alive as known answers (§7.1), and for SRV/TXT/A/AAAA of instances whose records are half
///   gone or missing, so records are refreshed before they expire.
/// - `hosts(now:)` lists the instances with a live PTR, SRV and TXT whose `proto` is empty or
///   `punktfunk/1`, merged by `id`.
public struct ServiceBrowser: Sendable {
    public struct Limits: Sendable {
        public var instances = 64
        public var addressNames = 64
        public var addressesPerName = 16
        public init() {}
    }

    public let service: DNSName
    public let limits: Limits
    /// Upper bound of the re-query interval, ns.
    public var maximumInterval: UInt64
    public private(set) var droppedRecords = 0
    public private(set) var nextQueryAt: UInt64
    var interval: UInt64 = Self.second

    static let second: UInt64 = 1_000_000_000
    static let goodbyeGrace: UInt64 = second

    struct Cached<Value: Sendable>: Sendable {
        var value: Value
        var receivedAt: UInt64
        var ttl: UInt32
        var expiresAt: UInt64
        func halfAlive(at now: UInt64) -> Bool { now < receivedAt + UInt64(ttl) * ServiceBrowser.second / 2 }
    }

    struct Instance: Sendable {
        var name: DNSName
        var ptr: Cached<Void>?
        var srv: Cached<(port: UInt16, target: DNSName)>?
        var txt: Cached<[[UInt8]]>?
        var scope: UInt32 = 0
    }

    struct Address: Sendable, Hashable {
        var bytes: [UInt8]
        var scope: UInt32
    }

    /// Instance name (lowercased labels) → instance.
    var instances: [[[UInt8]]: Instance] = [:]
    /// Host name (lowercased labels) → addresses.
    var addresses: [[[UInt8]]: [Address: Cached<Void>]] = [:]

    public init(service: DNSName, start now: UInt64, maximumInterval: UInt64 = 60 * 1_000_000_000, limits: Limits = Limits()) {
        self.service = service
        self.limits = limits
        self.maximumInterval = maximumInterval
        self.nextQueryAt = now
    }

    static func key(_ name: DNSName) -> [[UInt8]] { name.labels.map { $0.map(DNSName.lower) } }

    // MARK: Input

    /// Takes one received message. `scope` is the interface index it arrived on (used for
    /// link-local IPv6 addresses; 0 if unknown).
    public mutating func handle(_ message: DNSMessage, scope: UInt32 = 0, now: UInt64) {
        guard message.isResponse, message.opcode == 0, message.rcode == 0 else { return }
        for record in message.records where record.rrClass == DNSClass.internet {
            take(record, scope: scope, now: now)
        }
    }

    func expiry(_ ttl: UInt32, now: UInt64) -> UInt64 {
        ttl == 0 ? now + Self.goodbyeGrace : now + UInt64(ttl) * Self.second
    }

    mutating func take(_ record: DNSRecord, scope: UInt32, now: UInt64) {
        let expires = expiry(record.ttl, now: now)
        switch record.data {
        case .ptr(let instance) where record.name.matches(service):
            guard instance.isStrictSubdomain(of: service), instance.labels.count == service.labels.count + 1 else { return }
            update(instance, scope: scope) { $0.ptr = Cached(value: (), receivedAt: now, ttl: record.ttl, expiresAt: expires) }
        case .srv(_, _, let port, let target) where record.name.isStrictSubdomain(of: service):
            update(record.name, scope: scope) { $0.srv = Cached(value: (port, target), receivedAt: now, ttl: record.ttl, expiresAt: expires) }
        case .txt(let strings) where record.name.isStrictSubdomain(of: service):
            update(record.name, scope: scope) { $0.txt = Cached(value: strings, receivedAt: now, ttl: record.ttl, expiresAt: expires) }
        case .a(let bytes), .aaaa(let bytes):
            let key = Self.key(record.name)
            guard addresses[key] != nil || addresses.count < limits.addressNames else { droppedRecords += 1; return }
            var set = addresses[key] ?? [:]
            if record.cacheFlush {
                for (address, cached) in set where address.bytes.count == bytes.count && cached.receivedAt + Self.second < now {
                    set[address]!.expiresAt = min(cached.expiresAt, now + Self.second)
                }
            }
            let address = Address(bytes: bytes, scope: bytes.count == 16 ? scope : 0)
            guard set[address] != nil || set.count < limits.addressesPerName else { droppedRecords += 1; return }
            set[address] = Cached(value: (), receivedAt: now, ttl: record.ttl, expiresAt: expires)
            addresses[key] = set
        default:
            return
        }
    }

    mutating func update(_ name: DNSName, scope: UInt32, _ change: (inout Instance) -> Void) {
        let key = Self.key(name)
        guard instances[key] != nil || instances.count < limits.instances else { droppedRecords += 1; return }
        var instance = instances[key] ?? Instance(name: name)
        instance.scope = scope
        change(&instance)
        instances[key] = instance
    }

    /// Drops every record whose time is up; call at or after `nextDeadline`.
    public mutating func expire(now: UInt64) {
        for (key, var instance) in instances {
            if let c = instance.ptr, c.expiresAt <= now { instance.ptr = nil }
            if let c = instance.srv, c.expiresAt <= now { instance.srv = nil }
            if let c = instance.txt, c.expiresAt <= now { instance.txt = nil }
            instances[key] = instance.ptr == nil && instance.srv == nil && instance.txt == nil ? nil : instance
        }
        for (key, set) in addresses {
            let live = set.filter { $0.value.expiresAt > now }
            addresses[key] = live.isEmpty ? nil : live
        }
    }

    /// The earliest of the next query and the next record expiry, ns.
    public var nextDeadline: UInt64 {
        var deadline = nextQueryAt
        for instance in instances.values {
            for e in [instance.ptr?.expiresAt, instance.srv?.expiresAt, instance.txt?.expiresAt] { if let e { deadline = min(deadline, e) } }
        }
        for set in addresses.values { for c in set.values { deadline = min(deadline, c.expiresAt) } }
        return deadline
    }

    // MARK: Queries

    /// Starts the query series again from a 1 s interval (a person asked to refresh).
    public mutating func requery(now: UInt64) {
        interval = Self.second
        nextQueryAt = now
    }

    /// The query to send now, if one is due; schedules the next one.
    public mutating func pollQuery(now: UInt64, unicastResponse: Bool = false) -> DNSMessage? {
        guard now >= nextQueryAt else { return nil }
        nextQueryAt = now + interval
        interval = min(interval * 2, maximumInterval)
        return query(now: now, unicastResponse: unicastResponse)
    }

    /// The service PTR question with known answers, plus questions for stale or missing records.
    public func query(now: UInt64, unicastResponse: Bool = false) -> DNSMessage {
        var questions = [DNSQuestion(name: service, type: DNSType.ptr, unicastResponse: unicastResponse)]
        var known: [DNSRecord] = []
        for instance in instances.values.sorted(by: { $0.name.description < $1.name.description }) {
            if let ptr = instance.ptr, ptr.halfAlive(at: now), ptr.expiresAt > now {
                let remaining = UInt32(min(UInt64(UInt32.max), (ptr.expiresAt - now) / Self.second))
                known.append(DNSRecord(name: service, ttl: remaining, data: .ptr(instance.name)))
            }
            guard instance.ptr != nil else { continue }
            if !(instance.srv?.halfAlive(at: now) ?? false) { questions.append(DNSQuestion(name: instance.name, type: DNSType.srv, unicastResponse: unicastResponse)) }
            if !(instance.txt?.halfAlive(at: now) ?? false) { questions.append(DNSQuestion(name: instance.name, type: DNSType.txt, unicastResponse: unicastResponse)) }
            if let target = instance.srv?.value.target {
                let set = addresses[Self.key(target)] ?? [:]
                if !set.values.contains(where: { $0.halfAlive(at: now) }) {
                    questions.append(DNSQuestion(name: target, type: DNSType.a, unicastResponse: unicastResponse))
                    questions.append(DNSQuestion(name: target, type: DNSType.aaaa, unicastResponse: unicastResponse))
                }
            }
        }
        return DNSMessage.query(Array(questions.prefix(64)), knownAnswers: known)
    }

    // MARK: Output

    /// The hosts advertised now, sorted by name then id.
    public func hosts(now: UInt64) -> [DiscoveredHost] {
        var byID: [String: DiscoveredHost] = [:]
        // Instances in name order, so a host advertised under two names merges the same way each time.
        for instance in instances.values.sorted(by: { $0.name.description < $1.name.description }) {
            guard let ptr = instance.ptr, ptr.expiresAt > now, let srv = instance.srv, srv.expiresAt > now,
                  let txt = instance.txt, txt.expiresAt > now else { continue }
            let text = DNSSDText(strings: txt.value)
            let proto = text["proto"]
            if let proto, !proto.isEmpty, proto != "punktfunk/1" { continue }
            let label = instance.name.labels[0]
            let id = text["id"].flatMap { $0.isEmpty ? nil : $0 } ?? instance.name.description
            let live = (addresses[Self.key(srv.value.target)] ?? [:]).filter { $0.value.expiresAt > now }.map(\.key)
            let hint = text["addr"]
            let v4 = live.filter { $0.bytes.count == 4 }.map { IPAddressText.ipv4($0.bytes) }
                .sorted { a, b in a == hint ? b != hint : (b == hint ? false : Self.numeric(a) < Self.numeric(b)) }
            let v6 = live.filter { $0.bytes.count == 16 }.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
                .map { IPAddressText.ipv6($0.bytes, scope: $0.scope) }
            let mgmt = text["mgmt"].flatMap { UInt16($0) }.flatMap { $0 == 0 ? nil : $0 } ?? 47990
            let host = DiscoveredHost(
                id: id, name: String(decoding: label, as: UTF8.self), target: srv.value.target.description,
                port: srv.value.port, addresses: v4 + v6, fingerprint: AdvertText.fingerprint(text["fp"]),
                pair: text["pair"], managementPort: mgmt,
                macs: (text["mac"] ?? "").split(separator: ",").compactMap { AdvertText.mac($0.trimmingSpaces()) },
                os: AdvertText.os(text["os"]), proto: proto,
                wire: (text["wire"] ?? "").split(separator: ",").compactMap { Int($0.trimmingSpaces()) })
            if var existing = byID[id] {
                for a in host.addresses where !existing.addresses.contains(a) { existing.addresses.append(a) }
                byID[id] = existing
            } else {
                byID[id] = host
            }
        }
        return byID.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    static func numeric(_ v4: String) -> UInt32 {
        v4.split(separator: ".").reduce(0) { $0 << 8 | UInt32($1)! }
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
