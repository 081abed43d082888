import Glibc
import SystemClock

/// Drives one `QuicConnection` over the shared UDP socket of punktfunk/2 (data-plane.md §8.1):
/// reads every queued datagram (recvmmsg, 32 per call), hands media (first byte & 0xC0 == 0) from the dialled host to
/// `onMedia` and everything else to the connection, runs its timers and sends what it writes.
/// This is the pump's I/O half: the only place here that touches the socket or the clock.
///
/// Non-blocking except in `wait(timeout:)`, which sleeps in poll() until a datagram arrives, the
/// connection's deadline passes, or `timeout` runs out. At most one send is parked when the socket
/// buffer is full (STYLE.md "The session pump"); it goes first on the next pass.
///
/// Owns neither the socket nor the connection exclusively: both are shared with the caller, on one
/// thread.
public final class QuicSocketDriver {
    public let socket: UDPSocket
    public let connection: QuicConnection
    /// Called with each media datagram from the connection's remote address; valid during the call.
    public var onMedia: ((UnsafeRawBufferPointer) -> Void)?
    /// Media datagrams dropped because they came from another address.
    public private(set) var foreignMediaDropped = 0
    /// Errors the connection reported while being driven (the last one is also `connection.error`).
    public private(set) var connectionErrors: [QuicError] = []
    /// While true the network path is "cut": every datagram read is discarded and every packet the
    /// connection writes is dropped instead of sent (test hosts simulate an outage with it).
    public var blackout = false
    /// Datagrams discarded in either direction because of `blackout`.
    public private(set) var blackoutDropped = 0
    /// An extra descriptor `wait(timeout:)` also wakes on (e.g. an eventfd another thread signals
    /// when it queued input to send); -1 = none. The driver never reads or closes it.
    public var wakeDescriptor: Int32 = -1

    private var buffer = [UInt8](repeating: 0, count: 65_536)
    private let batch = DatagramBatch(count: 32)
    /// Datagrams longer than a receive slot (9217 bytes), dropped unparsed.
    public private(set) var truncatedDropped = 0
    private var parked: (bytes: [UInt8], to: SocketAddress)?
    /// Upper bound on datagrams read or packets written per pass, so one pass stays short.
    private let batchLimit = 256

    public init(socket: UDPSocket, connection: QuicConnection) {
        self.socket = socket
        self.connection = connection
    }

    /// One pass: receive everything queued, run due timers, send everything due, then drain events.
    /// - Throws: only socket errors; connection failures land in `connection.error`.
    public func step() throws(QuicError) -> [QuicEvent] {
        try receiveAll()
        let now = MonotonicClock.nowNs()
        if let deadline = connection.nextDeadline, deadline <= now {
            do { try connection.handleTimeout(now: now) } catch { connectionErrors.append(error) }
        }
        try sendAll()
        var events: [QuicEvent] = []
        while let event = connection.pollEvent() { events.append(event) }
        return events
    }

    /// Sleeps until the socket is readable, the connection's deadline, or `timeout` nanoseconds,
    /// whichever comes first, then runs `step()`.
    /// Transmits what the connection has queued now (no receive, no timers), e.g. input the pump
    /// just handed over, so it does not wait for the next wake-up.
    public func flush() throws(QuicError) { try sendAll() }

    public func wait(timeout: UInt64) throws(QuicError) -> [QuicEvent] {
        let now = MonotonicClock.nowNs()
        var wait = timeout
        if let deadline = connection.nextDeadline { wait = min(wait, deadline > now ? deadline - now : 0) }
        if parked != nil { wait = min(wait, 1_000_000) }  // retry a blocked send soon
        var fds = [pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        let milliseconds = Int32(clamping: (wait + 999_999) / 1_000_000)
        if poll(&fds, wakeDescriptor >= 0 ? 2 : 1, milliseconds) < 0 && errno != EINTR {
            throw .socket(errno: errno, call: "poll")
        }
        return try step()
    }

    private func receiveAll() throws(QuicError) {
        // recvmmsg in batches of `batch.count`; at most `batchLimit` datagrams per pass.
        var taken = 0
        while taken < batchLimit {
            let n = try batch.receive(from: socket)
            if n == 0 { return }
            taken += n
            for i in 0..<n {
                let (bytes, from, truncated) = batch[i]
                if truncated || bytes.isEmpty { truncatedDropped += truncated ? 1 : 0; continue }
                if blackout { blackoutDropped += 1; continue }
                switch SharedSocketDemux.route(firstByte: bytes[0]) {
                case .drop:
                    continue
                case .media:
                    // data-plane.md §8.1: media is accepted only from the host we dialled.
                    if from.canonical == connection.remoteAddress.canonical, let onMedia {
                        onMedia(bytes)
                    } else {
                        foreignMediaDropped += 1
                    }
                case .quic:
                    do {
                        try connection.handle(datagram: bytes, from: from, now: MonotonicClock.nowNs())
                    } catch {
                        connectionErrors.append(error)
                    }
                }
            }
            if n < batch.count { return }
        }
    }

    private func sendAll() throws(QuicError) {
        if let (bytes, to) = parked {
            guard try socket.send(bytes, to: to) else { return }
            parked = nil
        }
        for _ in 0..<batchLimit {
            let written: Int?
            do {
                written = try buffer.withUnsafeMutableBytes { raw in
                    Result { () throws(QuicError) -> Int? in try connection.pollTransmit(into: raw, now: MonotonicClock.nowNs()) }
                }.get()
            } catch {
                connectionErrors.append(error)
                continue  // its CONNECTION_CLOSE comes next
            }
            guard let count = written else { return }
            if blackout { blackoutDropped += 1; continue }
            let destination = connection.remoteAddress
            let sent = try buffer.withUnsafeBytes { raw in
                Result { () throws(QuicError) -> Bool in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[0..<count]), to: destination)
                }
            }.get()
            if !sent {
                parked = (Array(buffer.prefix(count)), destination)  // the one blocked send
                return
            }
        }
    }
}
