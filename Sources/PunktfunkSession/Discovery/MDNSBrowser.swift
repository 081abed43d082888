import Glibc
import PunktfunkWire
import Synchronization
import SystemClock

/// Browses `_punktfunk._udp.local.` on the link: the pump over an `MDNSSocket` and a
/// `ServiceBrowser`. It only lists: nothing it receives makes anything connect, and a packet that
/// does not decode is counted (and its first few described on the log), never trusted.
///
/// `run(for:onChange:)` blocks the calling thread until the time is up or `stop()`;
/// `requery()` and `stop()` may be called from any thread.
public final class MDNSBrowser: @unchecked Sendable {
    public static let service = try! DNSName("_punktfunk._udp.local.")
    /// Re-query cap when the socket shares 5353 (it sees announcements and goodbyes anyway).
    public static let sharedMaximumInterval: UInt64 = 60_000_000_000
    /// Re-query cap in one-shot mode: legacy unicast answers live ≤ 10 s (RFC 6762 §6.7).
    public static let oneShotMaximumInterval: UInt64 = 4_000_000_000

    public struct Counters: Sendable, Equatable {
        public var received = 0
        public var malformed = 0
        public var queriesSent = 0
    }

    let socket: MDNSSocket
    let log: @Sendable (String) -> Void
    let control = Mutex<(stop: Bool, requery: Bool)>((false, false))
    let wake: (read: Int32, write: Int32)
    public private(set) var counters = Counters()
    /// Every host seen during this browser's life, by id, as last seen (addresses, `mac` list):
    /// what `wake` uses once a host has gone to sleep and left the list.
    public private(set) var remembered: [String: DiscoveredHost] = [:]
    public var mode: MDNSSocket.Mode { socket.mode }

    public init(port: UInt16 = MDNSSocket.port, oneShot: Bool = false, log: @escaping @Sendable (String) -> Void) throws(QuicError) {
        socket = try MDNSSocket(port: port, oneShot: oneShot)
        self.log = log
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .socket(errno: errno, call: "pipe") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wake = (fds[0], fds[1])
        for note in socket.notes { log(note) }
    }

    deinit {
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    public func stop() {
        control.withLock { $0.stop = true }
        var b: UInt8 = 1
        _ = Glibc.write(wake.write, &b, 1)
    }

    public func requery() {
        control.withLock { $0.requery = true }
        var b: UInt8 = 1
        _ = Glibc.write(wake.write, &b, 1)
    }

    /// Browses for `seconds` (nil: until `stop()`), calling `onChange` with the whole list each
    /// time it changes (hosts appearing, changing or leaving), and `onSecond` with the whole
    /// seconds elapsed once per second (the loop never sleeps longer). Returns the list at the end.
    @discardableResult
    public func run(for seconds: Double?, onChange: ([DiscoveredHost]) -> Void = { _ in },
                    onSecond: (Int) -> Void = { _ in }) -> [DiscoveredHost] {
        let start = MonotonicClock.nowNs()
        let end = seconds.map { start + UInt64(max(0, $0) * 1e9) }
        var browser = ServiceBrowser(service: Self.service, start: start,
                                     maximumInterval: socket.mode == .shared ? Self.sharedMaximumInterval : Self.oneShotMaximumInterval)
        var listed: [DiscoveredHost] = []
        var buffer = [UInt8](repeating: 0, count: 9000)
        var notesLogged = socket.notes.count
        var secondsReported = 0
        while true {
            var now = MonotonicClock.nowNs()
            let (stop, requery) = control.withLock { state in
                defer { state.requery = false }
                return (state.stop, state.requery)
            }
            if stop { break }
            if let end, now >= end { break }
            let elapsed = Int((now - start) / 1_000_000_000)
            if elapsed > secondsReported {
                secondsReported = elapsed
                onSecond(elapsed)
            }
            if requery { browser.requery(now: now) }
            if let query = browser.pollQuery(now: now, unicastResponse: socket.mode == .oneShot) {
                if socket.sendMulticast(query.encoded()) > 0 { counters.queriesSent += 1 }
            }
            while let (count, from, scope) = socket.receive(into: &buffer) {
                counters.received += 1
                do {
                    browser.handle(try DNSMessage(decoding: Array(buffer[0..<count])), scope: scope, now: MonotonicClock.nowNs())
                } catch {
                    counters.malformed += 1
                    if counters.malformed <= 5 { log("mDNS packet from \(from) ignored: \(error)") }
                }
            }
            now = MonotonicClock.nowNs()
            browser.expire(now: now)
            let hosts = browser.hosts(now: now)
            if hosts != listed {
                for host in hosts { remembered[host.id] = host }
                listed = hosts
                onChange(hosts)
            }
            while notesLogged < socket.notes.count { log(socket.notes[notesLogged]); notesLogged += 1 }
            // Sleep until the next query, expiry or end, or a packet or a wake byte.
            var deadline = browser.nextDeadline
            if let end { deadline = min(deadline, end) }
            let waitMs = deadline > now ? Int32(min(1000, (deadline - now) / 1_000_000 + 1)) : 0
            var fds = [pollfd(fd: socket.ipv4, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: socket.ipv6, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, nfds_t(fds.count), waitMs)
            var drain = [UInt8](repeating: 0, count: 64)
            while Glibc.read(wake.read, &drain, drain.count) > 0 {}
        }
        return listed
    }
}
