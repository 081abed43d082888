#if canImport(Glibc)
import Glibc
#endif
import SystemClock

/// A socket call that failed, with its errno text.
public struct RelayError: Error, CustomStringConvertible {
    public let description: String
    init(_ what: String, errno code: Int32 = errno) { description = "\(what): \(String(cString: strerror(code)))" }
}

/// What a relay run did: the counters of both directions and how it ended.
public struct RelaySummary: Sendable {
    public var c2h: DirectionCounters
    public var h2c: DirectionCounters
    /// Datagrams still in the delay queue at the end (discarded).
    public var inFlightC2H: Int
    public var inFlightH2C: Int
    /// Datagrams on the listen socket from other than the client, ignored.
    public var ignoredForeign: Int
    public var client: LoopbackAddress?
    /// From `run` to its end, ns.
    public var elapsedNs: UInt64
    /// "stop" (stop()/a signal) or "seconds" (the time limit).
    public var end: String
    /// Each direction's bottleneck at the end, if it had one.
    public var bottleneckC2H: Bottleneck?
    public var bottleneckH2C: Bottleneck?

    /// One JSON object, no newline.
    public var json: String {
        func object(_ c: DirectionCounters, _ inFlight: Int, _ b: Bottleneck?) -> String {
            "{\"received\":\(c.received),\"forwarded\":\(c.forwarded),\"dropped_loss\":\(c.droppedLoss),"
                + "\"dropped_queue\":\(c.droppedQueue),\"dropped_bottleneck\":\(c.droppedBottleneck),"
                + "\"duplicated\":\(c.duplicated),\"reordered\":\(c.reordered),"
                + "\"media\":\(c.media),\"quic\":\(c.quic),\"send_errors\":\(c.sendErrors),\"in_flight\":\(inFlight)"
                + (b.map { ",\"bottleneck\":\($0.summaryJSON)" } ?? "") + "}"
        }
        let clientText = client.map { "\"\($0)\"" } ?? "null"
        return "{\"end\":\"\(end)\",\"seconds\":\(Double(elapsedNs) / 1e9),\"client\":\(clientText),"
            + "\"ignored_foreign\":\(ignoredForeign),\"c2h\":\(object(c2h, inFlightC2H, bottleneckC2H)),"
            + "\"h2c\":\(object(h2c, inFlightH2C, bottleneckH2C))}"
    }
}

/// The relay's I/O loop around `RelayCore`: a listen socket for the client, a socket connected to
/// the host, a wake pipe, and ppoll() with ns timeouts until the next release (or queue-log line).
///
/// The first datagram on the listen socket fixes the client address; later ones from elsewhere are
/// counted in `ignoredForeign` and dropped. Only loopback addresses are ever bound, connected or
/// sent to. One thread calls `run`; `stop()` (or a write to `stopFd`, async-signal-safe) may come
/// from any thread or a signal handler.
public final class UDPRelay: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var listen: LoopbackAddress
        public var upstream: LoopbackAddress
        public var c2h: ImpairmentConfig
        public var h2c: ImpairmentConfig
        public var policy: RelayPolicy
        public var seed: UInt64
        /// JSON lines of dropped media datagrams (`DropRecord.json`); nil = none.
        public var dropLogPath: String?
        /// The bottleneck's queue log (`RelayCore.takeQueueLog`), one JSON line per
        /// `policy.queueLogIntervalNs` (100 ms when that is 0); nil = none.
        public var queueLogPath: String?

        public init(listen: LoopbackAddress, upstream: LoopbackAddress, c2h: ImpairmentConfig = .none,
                    h2c: ImpairmentConfig = .none, policy: RelayPolicy = RelayPolicy(), seed: UInt64 = 1,
                    dropLogPath: String? = nil, queueLogPath: String? = nil) {
            self.listen = listen; self.upstream = upstream; self.c2h = c2h; self.h2c = h2c
            self.policy = policy; self.seed = seed; self.dropLogPath = dropLogPath; self.queueLogPath = queueLogPath
        }
    }

    /// Where the client sends (the bound port, never 0).
    public let listenAddress: LoopbackAddress
    /// The upstream socket's own address: what the host sees as the client.
    public let upstreamLocalAddress: LoopbackAddress
    public let upstream: LoopbackAddress
    private let listenFd: Int32
    private let upstreamFd: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var core: RelayCore
    private var client: LoopbackAddress?
    private var ignoredForeign = 0
    private var dropLog: UnsafeMutablePointer<FILE>?
    private var queueLog: UnsafeMutablePointer<FILE>?

    /// Write a byte here to end `run` (what `stop()` does; safe in a signal handler).
    public var stopFd: Int32 { wakeWrite }

    /// Binds both sockets and opens the drop log; the relay moves nothing until `run`.
    public init(_ configuration: Configuration) throws(RelayError) {
        var policy = configuration.policy
        policy.recordDrops = configuration.dropLogPath != nil
        if configuration.queueLogPath != nil, policy.queueLogIntervalNs == 0 { policy.queueLogIntervalNs = 100_000_000 }
        if configuration.queueLogPath == nil { policy.queueLogIntervalNs = 0 }
        core = RelayCore(c2h: configuration.c2h, h2c: configuration.h2c, policy: policy, seed: configuration.seed)
        upstream = configuration.upstream
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RelayError("pipe") }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        var opened: [Int32] = []
        do throws(RelayError) {
            let listen = try Self.udpSocket(bind: configuration.listen)
            opened.append(listen)
            let up = try Self.udpSocket(bind: LoopbackAddress(ip: 0x7F00_0001, port: 0)!)
            opened.append(up)
            var sa = configuration.upstream.sockaddr
            let rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(up, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0 else { throw RelayError("connect \(configuration.upstream)") }
            listenFd = listen
            upstreamFd = up
            listenAddress = try Self.localAddress(listen)
            upstreamLocalAddress = try Self.localAddress(up)
            if let path = configuration.dropLogPath {
                guard let file = fopen(path, "w") else { throw RelayError("open \(path)") }
                dropLog = file
            }
            if let path = configuration.queueLogPath {
                guard let file = fopen(path, "w") else { throw RelayError("open \(path)") }
                queueLog = file
            }
        } catch {
            for fd in opened + fds { close(fd) }
            throw error
        }
    }

    deinit {
        for fd in [listenFd, upstreamFd, wakeRead, wakeWrite] { close(fd) }
        if let dropLog { fclose(dropLog) }
        if let queueLog { fclose(queueLog) }
    }

    public func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Relays until `stop()` or `seconds` have passed (nil = no limit). Call once.
    public func run(seconds: Double? = nil) -> RelaySummary {
        let start = MonotonicClock.nowNs()
        let end = seconds.map { start &+ UInt64(max(0, $0) * 1e9) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var fds = [pollfd(fd: listenFd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: upstreamFd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        var reason = "seconds"
        while true {
            var now = MonotonicClock.nowNs()
            release(now: now)
            flushDrops()
            flushQueueLog(now: now)
            if let end, now >= end { break }
            let deadline = [core.nextDeadline, end].compactMap { $0 }.min()
            // ppoll with a ns timeout: the bottleneck's departures are ~0.3 ms apart at 40 Mbit/s,
            // so ms rounding would batch them; the kernel's timer slack (50 µs) is fine.
            let rc = Self.pollNs(&fds, timeoutNs: deadline.map { $0 &- min($0, now) })
            if rc < 0 { continue }  // EINTR: a signal; its handler wrote to the wake pipe
            if fds[2].revents != 0 { reason = "stop"; break }
            if fds[0].revents != 0 {
                for _ in 0..<1024 {  // bounded, so one busy side cannot starve the other
                    var from = sockaddr_in()
                    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                    let n = buffer.withUnsafeMutableBytes { raw in
                        withUnsafeMutablePointer(to: &from) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                recvfrom(listenFd, raw.baseAddress, raw.count, 0, $0, &length)
                            }
                        }
                    }
                    if n < 0 { if errno == EAGAIN || errno == EWOULDBLOCK { break } else { continue } }
                    now = MonotonicClock.nowNs()
                    let source = LoopbackAddress(from)
                    if client == nil, let source { client = source }
                    guard let source, source == client else { ignoredForeign += 1; continue }
                    core.handle(Array(buffer[0..<n]), from: .c2h, now: now)
                }
            }
            if fds[1].revents != 0 {
                for _ in 0..<1024 {
                    let n = buffer.withUnsafeMutableBytes { recv(upstreamFd, $0.baseAddress, $0.count, 0) }
                    // ECONNREFUSED: an ICMP error for an earlier send (the host is not up); read on.
                    if n < 0 { if errno == EAGAIN || errno == EWOULDBLOCK { break } else { continue } }
                    now = MonotonicClock.nowNs()
                    core.handle(Array(buffer[0..<n]), from: .h2c, now: now)
                }
            }
        }
        flushDrops()
        if let dropLog { fflush(dropLog) }
        let now = MonotonicClock.nowNs()
        flushQueueLog(now: now)
        if let queueLog { fflush(queueLog) }
        core.advanceBottlenecks(to: now)
        return RelaySummary(c2h: core.c2h, h2c: core.h2c, inFlightC2H: core.inFlight(.c2h), inFlightH2C: core.inFlight(.h2c),
                            ignoredForeign: ignoredForeign, client: client, elapsedNs: now &- start,
                            end: reason, bottleneckC2H: core.bottleneck(.c2h), bottleneckH2C: core.bottleneck(.h2c))
    }

    private func release(now: UInt64) {
        while let out = core.pollRelease(now: now) {
            let sent: Int
            switch out.direction {
            case .c2h:
                sent = out.bytes.withUnsafeBytes { send(upstreamFd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            case .h2c:
                guard let client else { sent = -1; break }
                var sa = client.sockaddr
                sent = out.bytes.withUnsafeBytes { raw in
                    withUnsafePointer(to: &sa) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(listenFd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), $0,
                                   socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            }
            core.noteSent(out.direction, ok: sent == out.bytes.count)
        }
    }

    private typealias PPoll = @convention(c) (UnsafeMutablePointer<pollfd>?, nfds_t, UnsafePointer<timespec>?, UnsafeRawPointer?) -> Int32
    /// glibc's ppoll (Swift's Glibc module hides it behind _GNU_SOURCE), looked up once.
    private static let ppoll: PPoll? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "ppoll").map { unsafeBitCast($0, to: PPoll.self) }

    /// poll(2) with a ns timeout (nil = wait for ever); falls back to ms poll, rounded up.
    private static func pollNs(_ fds: inout [pollfd], timeoutNs: UInt64?) -> Int32 {
        let count = nfds_t(fds.count)
        guard let ppoll else {
            let ms = timeoutNs.map { Int32(clamping: ($0 + 999_999) / 1_000_000) } ?? -1
            return poll(&fds, count, ms)
        }
        guard let wait = timeoutNs else { return ppoll(&fds, count, nil, nil) }
        var ts = timespec(tv_sec: Int(min(wait / 1_000_000_000, 1 << 30)), tv_nsec: Int(wait % 1_000_000_000))
        return ppoll(&fds, count, &ts, nil)
    }

    private func flushQueueLog(now: UInt64) {
        let lines = core.takeQueueLog(upTo: now)
        guard let queueLog else { return }
        for line in lines { fputs(line + "\n", queueLog) }
        if !lines.isEmpty { fflush(queueLog) }
    }

    private func flushDrops() {
        guard let dropLog else { return }
        for record in core.takeDrops() { fputs(record.json + "\n", dropLog) }
    }

    private static func udpSocket(bind address: LoopbackAddress) throws(RelayError) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RelayError("socket") }
        var size: Int32 = 4 << 20  // the kernel caps it at rmem_max/wmem_max
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var sa = address.sockaddr
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw RelayError("bind \(address)", errno: code)
        }
        return fd
    }

    private static func localAddress(_ fd: Int32) throws(RelayError) -> LoopbackAddress {
        var sa = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0, let address = LoopbackAddress(sa) else { throw RelayError("getsockname") }
        return address
    }
}
