import Foundation
import Glibc
import PunktfunkSession
import PunktfunkWire

/// Announces one punktfunk host as a DNS-SD service (control-plane.md §7) for discovery tests and
/// `pf-testhost --mdns`: two announcements at start (RFC 6762 §8.3), answers to queries for the
/// service, the instance and the target (with known-answer suppression, §7.1, and legacy unicast
/// answers to queries from ports other than 5353, §6.7), and a goodbye (every record with TTL 0)
/// on `stop()`. No probing or conflict resolution: a test host's name is chosen by the test.
public final class MDNSResponder: @unchecked Sendable {
    public struct Advert: Sendable {
        public var name: String
        public var id: String
        public var fingerprint: String
        public var pair: String
        public var macs: [String]
        public var port: UInt16
        public var ipv4: [[UInt8]]
        public var os = "linux/pf-testhost"

        public init(name: String, id: String, fingerprint: String, pair: String, macs: [String], port: UInt16, ipv4: [[UInt8]]) {
            self.name = name; self.id = id; self.fingerprint = fingerprint; self.pair = pair; self.macs = macs
            self.port = port; self.ipv4 = ipv4
        }

        /// `<dns-label>.local.`: characters outside `[A-Za-z0-9-]` become `-`, ≤ 63, fallback `punktfunk-host`.
        var target: DNSName {
            let label = String(name.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") ? Character($0) : "-" }.prefix(63))
            return (try? DNSName(labels: [Array((label.isEmpty ? "punktfunk-host" : label).utf8), Array("local".utf8)]))!
        }
    }

    public let advert: Advert
    let socket: MDNSSocket
    let instance: DNSName
    let stopFlag = NSLock()
    var stopping = false
    var thread: Thread?
    let done = DispatchSemaphore(value: 0)
    /// Queries answered, for tests and the log.
    public private(set) var answered = 0

    public init(advert: Advert, port: UInt16 = MDNSSocket.port) throws {
        self.advert = advert
        socket = try MDNSSocket(port: port, allowOneShot: false)
        instance = try MDNSBrowser.service.prepending(Array(advert.name.utf8.prefix(63)))
    }

    func records(ttlScale: Bool) -> (ptr: DNSRecord, rest: [DNSRecord]) {
        let long: UInt32 = ttlScale ? 4500 : 0, short: UInt32 = ttlScale ? 120 : 0
        let txt = DNSSDText.strings([("proto", "punktfunk/1"), ("fp", advert.fingerprint), ("pair", advert.pair),
                                     ("id", advert.id), ("wire", "2"), ("mac", advert.macs.joined(separator: ",")),
                                     ("os", advert.os)] + (advert.ipv4.first.map { [("addr", IPAddressText.ipv4($0))] } ?? []))
        var rest = [DNSRecord(name: instance, ttl: short, data: .srv(priority: 0, weight: 0, port: advert.port, target: advert.target), cacheFlush: true),
                    DNSRecord(name: instance, ttl: long, data: .txt(txt), cacheFlush: true)]
        rest += advert.ipv4.map { DNSRecord(name: advert.target, ttl: short, data: .a($0), cacheFlush: true) }
        return (DNSRecord(name: MDNSBrowser.service, ttl: long, data: .ptr(instance)), rest)
    }

    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "mdns-responder"
        self.thread = thread
        thread.start()
    }

    var isStopping: Bool { stopFlag.lock(); defer { stopFlag.unlock() }; return stopping }

    /// Sends the goodbye and ends the thread.
    public func stop() {
        stopFlag.lock()
        let first = !stopping
        stopping = true
        stopFlag.unlock()
        if first, thread != nil { done.wait() }
    }

    func run() {
        let all = records(ttlScale: true)
        let announcement = DNSMessage.response(answers: [all.ptr] + all.rest).encoded()
        socket.sendMulticast(announcement)
        var nextAnnouncement: Date? = Date().addingTimeInterval(1)
        var buffer = [UInt8](repeating: 0, count: 9000)
        while !isStopping {
            if let at = nextAnnouncement, Date() >= at {
                socket.sendMulticast(announcement)
                nextAnnouncement = nil
            }
            while let (count, from, _) = socket.receive(into: &buffer) {
                guard let query = try? DNSMessage(decoding: Array(buffer[0..<count])), !query.isResponse, query.opcode == 0 else { continue }
                answer(query, from: from, records: all)
            }
            var fds = [pollfd(fd: socket.ipv4, events: Int16(POLLIN), revents: 0), pollfd(fd: socket.ipv6, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, 100)
        }
        let goodbye = records(ttlScale: false)
        socket.sendMulticast(DNSMessage.response(answers: [goodbye.ptr] + goodbye.rest).encoded())
        socket.close()
        done.signal()
    }

    func answer(_ query: DNSMessage, from: SocketAddress, records all: (ptr: DNSRecord, rest: [DNSRecord])) {
        var answers: [DNSRecord] = []
        var matchedQuestions: [DNSQuestion] = []
        for q in query.questions where q.rrClass == DNSClass.internet || q.rrClass == 255 {
            let any = q.type == DNSType.any
            var matched = false
            if q.name.matches(MDNSBrowser.service) && (any || q.type == DNSType.ptr) {
                // Known-answer suppression: the asker already holds our PTR with ≥ half its TTL.
                let known = query.answers.contains { $0.name.matches(MDNSBrowser.service) && $0.data == all.ptr.data && $0.ttl >= all.ptr.ttl / 2 }
                if !known { answers.append(all.ptr) }
                matched = true
            }
            for r in all.rest where r.name.matches(q.name) && (any || q.type == r.type) && !answers.contains(r) {
                answers.append(r)
                matched = true
            }
            if matched { matchedQuestions.append(q) }
        }
        guard !answers.isEmpty else { return }
        answered += 1
        if answers.contains(all.ptr) { answers += all.rest.filter { !answers.contains($0) } }
        if from.port != socket.groupPort {
            // Legacy unicast: same id, the questions echoed, TTLs ≤ 10 s, no cache-flush bits.
            let capped = answers.map { r in var r = r; r.ttl = min(r.ttl, 10); r.cacheFlush = false; return r }
            let reply = DNSMessage(id: query.id, flags: DNSMessage.responseFlag | DNSMessage.authoritativeFlag,
                                   questions: matchedQuestions, answers: capped)
            socket.sendUnicast(reply.encoded(), to: from)
        } else {
            socket.sendMulticast(DNSMessage.response(answers: answers).encoded())
        }
    }
}
