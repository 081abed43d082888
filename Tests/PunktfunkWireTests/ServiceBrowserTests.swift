import Testing
@testable import PunktfunkWire

/// The DNS-SD browse state against built adverts (control-plane.md §7; RFC 6762 §7.1, §10).
@Suite struct ServiceBrowserTests {
    static let s: UInt64 = 1_000_000_000
    static let service = try! DNSName("_punktfunk._udp.local")
    static let fp = String(repeating: "ab", count: 32)

    static func advert(name: String = "Living Room", host: String = "box", id: String? = "host-1", ttl: UInt32 = 120,
                       v4: [UInt8] = [192, 168, 1, 20], extra: [(String, String)] = []) -> DNSMessage {
        let instance = try! service.prepending(Array(name.utf8))
        let target = try! DNSName("\(host).local")
        var txt: [(String, String)] = [("proto", "punktfunk/1"), ("fp", fp.uppercased()), ("pair", "required"),
                                       ("mac", "AA-BB-CC-DD-EE-01,bad,02:00:00:00:00:02"), ("os", "Linux/Debian/12!"), ("wire", "1,2")]
        if let id { txt.append(("id", id)) }
        txt = extra + txt
        return .response(answers: [DNSRecord(name: service, ttl: ttl == 0 ? 0 : 4500, data: .ptr(instance))], additionals: [
            DNSRecord(name: instance, ttl: ttl, data: .srv(priority: 0, weight: 0, port: 9777, target: target), cacheFlush: true),
            DNSRecord(name: instance, ttl: ttl == 0 ? 0 : 4500, data: .txt(DNSSDText.strings(txt)), cacheFlush: true),
            DNSRecord(name: target, ttl: ttl, data: .a(v4), cacheFlush: true),
            DNSRecord(name: target, ttl: ttl, data: .aaaa([0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [7]), cacheFlush: true),
        ])
    }

    @Test func anAdvertBecomesAHostWithEveryTXTField() throws {
        var b = ServiceBrowser(service: Self.service, start: 0)
        b.handle(try DNSMessage(decoding: Self.advert().encoded()), scope: 3, now: 5 * Self.s)
        let hosts = b.hosts(now: 6 * Self.s)
        #expect(hosts.count == 1)
        let h = try #require(hosts.first)
        #expect(h.id == "host-1" && h.name == "Living Room" && h.target == "box.local." && h.port == 9777)
        #expect(h.addresses == ["192.168.1.20", "fe80::7%3"])
        #expect(h.dialAddress == "192.168.1.20:9777")
        #expect(h.fingerprint == Self.fp && h.pair == "required" && h.managementPort == 47990)
        #expect(h.macs == ["aa:bb:cc:dd:ee:01", "02:00:00:00:00:02"])
        #expect(h.os == "linux/debian/12" && h.proto == "punktfunk/1" && h.wire == [1, 2])
    }

    @Test func aGoodbyeRemovesTheHostAfterOneSecond() {
        var b = ServiceBrowser(service: Self.service, start: 0)
        b.handle(Self.advert(), now: 1 * Self.s)
        #expect(b.hosts(now: 2 * Self.s).count == 1)
        b.handle(Self.advert(ttl: 0), now: 3 * Self.s)
        b.expire(now: 4 * Self.s + 1)
        #expect(b.hosts(now: 4 * Self.s + 1).isEmpty)
    }

    @Test func expiryRemovesTheHostAndTheDeadlineSaysWhen() {
        var b = ServiceBrowser(service: Self.service, start: 1000 * Self.s)
        _ = b.pollQuery(now: 1000 * Self.s)
        b.handle(Self.advert(ttl: 10), now: 0)
        #expect(b.nextDeadline == 10 * Self.s)
        b.expire(now: 10 * Self.s)
        #expect(b.hosts(now: 10 * Self.s).isEmpty)
    }

    @Test func hostsAreKeyedByIDAndOtherProtocolsAreDropped() {
        var b = ServiceBrowser(service: Self.service, start: 0)
        b.handle(Self.advert(name: "Box (eth)", host: "box", v4: [10, 0, 0, 2]), now: 0)
        b.handle(Self.advert(name: "Box (wifi)", host: "box-2", v4: [10, 0, 1, 2]), now: 0)
        b.handle(Self.advert(name: "Other", host: "other", id: nil), now: 0)
        b.handle(Self.advert(name: "Alien", host: "alien", id: "x", extra: [("proto", "nope/9")]), now: 0)
        let hosts = b.hosts(now: 1)
        #expect(hosts.map(\.id) == ["host-1", "Other._punktfunk._udp.local."])
        #expect(hosts[0].addresses.filter { !$0.contains(":") } == ["10.0.0.2", "10.0.1.2"])
    }

    @Test func queriesBackOffAndRequeryStartsOver() {
        var b = ServiceBrowser(service: Self.service, start: 0, maximumInterval: 8 * Self.s)
        var sent: [UInt64] = []
        var now: UInt64 = 0
        while now <= 40 * Self.s {
            if b.pollQuery(now: now) != nil { sent.append(now / Self.s) }
            now += Self.s / 2
        }
        #expect(sent == [0, 1, 3, 7, 15, 23, 31, 39])
        b.requery(now: now)
        #expect(b.pollQuery(now: now) != nil && b.nextQueryAt == now + Self.s)
    }

    @Test func aQueryCarriesKnownAnswersAndAsksForMissingRecords() throws {
        var b = ServiceBrowser(service: Self.service, start: 0)
        let instance = try Self.service.prepending(Array("Half".utf8))
        b.handle(.response(answers: [DNSRecord(name: Self.service, ttl: 100, data: .ptr(instance))]), now: 0)
        let q = b.query(now: 10 * Self.s, unicastResponse: true)
        #expect(q.answers == [DNSRecord(name: Self.service, ttl: 90, data: .ptr(instance))])
        #expect(q.questions.map(\.type) == [DNSType.ptr, DNSType.srv, DNSType.txt])
        #expect(q.questions.filter { !$0.unicastResponse }.isEmpty)
        // Past half its TTL the PTR is no longer a known answer.
        #expect(b.query(now: 60 * Self.s).answers.isEmpty)
    }

    @Test func aFloodIsBoundedAndCounted() throws {
        var limits = ServiceBrowser.Limits()
        limits.instances = 4
        var b = ServiceBrowser(service: Self.service, start: 0, limits: limits)
        for i in 0..<20 { b.handle(Self.advert(name: "h\(i)", host: "h\(i)", id: "id\(i)"), now: 0) }
        #expect(b.hosts(now: 1).count == 4)
        #expect(b.droppedRecords == 16 * 3)  // PTR, SRV and TXT of each instance past the bound
        // Queries and records that are not responses are ignored.
        b.handle(.query([DNSQuestion(name: Self.service, type: DNSType.ptr)],
                        knownAnswers: [DNSRecord(name: Self.service, ttl: 100, data: .ptr(try Self.service.prepending([0x41])))]), now: 0)
        #expect(b.hosts(now: 1).count == 4)
    }

    @Test func ipv6TextIsRFC5952() {
        #expect(IPAddressText.ipv6([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]) == "2001:db8::1")
        #expect(IPAddressText.ipv6([UInt8](repeating: 0, count: 16)) == "::")
        #expect(IPAddressText.ipv6([0, 1] + [UInt8](repeating: 0, count: 4) + [0, 1] + [UInt8](repeating: 0, count: 8)) == "1:0:0:1::")
        #expect(AdvertText.mac("001122AABBCC") == "00:11:22:aa:bb:cc")
        #expect(AdvertText.mac("00:11:22:aa:bb") == nil)
        #expect(AdvertText.fingerprint("zz") == nil)
    }
}
