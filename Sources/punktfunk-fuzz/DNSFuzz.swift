import PunktfunkWire

/// Any bytes as a received mDNS packet: `DNSMessage(decoding:)` either throws a `DNSError` or
/// gives a message whose encoding decodes to the same message (names within their limits by
/// construction); the DNS-SD browse state then takes it, lists hosts, builds a query and expires
/// records without trapping, and never holds more than its bounds.
enum DNSFuzz {
    static let service = try! DNSName("_punktfunk._udp.local.")

    static func run(_ bytes: [UInt8]) {
        guard let message = try? DNSMessage(decoding: bytes) else { return }
        for record in message.records {
            precondition(record.name.wireLength <= 255, "decoded name of \(record.name.wireLength) bytes")
        }
        let again = try? DNSMessage(decoding: message.encoded())
        precondition(again == message, "DNS round trip differs: \(message)")

        var limits = ServiceBrowser.Limits()
        limits.instances = 4
        limits.addressNames = 4
        limits.addressesPerName = 2
        var browser = ServiceBrowser(service: service, start: 0, limits: limits)
        // The same message twice, a second apart, so cache-flush and refresh paths run too.
        browser.handle(message, scope: 1, now: 1_000_000_000)
        browser.handle(message, scope: 1, now: 2_500_000_000)
        let hosts = browser.hosts(now: 3_000_000_000)
        precondition(hosts.count <= limits.instances, "\(hosts.count) hosts past the bound")
        for host in hosts { precondition(host.addresses.count <= limits.instances * limits.addressesPerName, "address list past the bounds") }
        let query = browser.query(now: 3_000_000_000)
        precondition((try? DNSMessage(decoding: query.encoded())) == query, "query round trip differs")
        browser.expire(now: UInt64(UInt32.max) * 1_000_000_000 + 10_000_000_000)
        precondition(browser.hosts(now: UInt64(UInt32.max) * 1_000_000_000 + 10_000_000_000).isEmpty, "records outlived every TTL")
    }
}
