import Glibc
@testable import PunktfunkSession
import SystemClock
import PunktfunkTestHost

/// A client and a server `QuicConnection` over two real UDP sockets on 127.0.0.1 (ephemeral ports),
/// driven in one thread: flush both, poll() both fds until the earliest deadline, read everything,
/// run timers. Every run is bounded in iterations and wall time.
final class QuicLoopback {
    let clientSocket: UDPSocket
    let serverSocket: UDPSocket
    let client: QuicConnection
    /// The client side runs through the production pump half.
    let clientDriver: QuicSocketDriver
    /// Media datagrams the client driver delivered.
    private(set) var clientMedia: [[UInt8]] = []
    private(set) var server: QuicConnection?
    let serverConfiguration: QuicConfiguration
    private(set) var clientEvents: [QuicEvent] = []
    private(set) var serverEvents: [QuicEvent] = []
    private(set) var clientErrors: [QuicError] = []
    private(set) var serverErrors: [QuicError] = []
    private var packet = [UInt8](repeating: 0, count: 65_536)

    let listener: QuicListener
    /// Retry packets the listener sent, and datagrams it dropped.
    private(set) var retries = 0
    private(set) var drops = 0
    /// While true, everything that reaches the server socket is read and thrown away (a dead path).
    var serverMuted = false

    init(client clientConfiguration: QuicConfiguration, server serverConfiguration: QuicConfiguration,
         retry: Bool = true, address: String = "127.0.0.1") throws {
        let loopback = SocketAddress(ip: address, port: 0)!
        serverSocket = try UDPSocket(bind: loopback)
        clientSocket = try UDPSocket(bind: loopback)
        self.serverConfiguration = serverConfiguration
        listener = QuicListener(configuration: serverConfiguration, localAddress: serverSocket.localAddress,
                                requiresRetry: retry)
        client = try QuicConnection(client: clientConfiguration, local: clientSocket.localAddress,
                                    remote: serverSocket.localAddress, now: MonotonicClock.nowNs())
        clientDriver = QuicSocketDriver(socket: clientSocket, connection: client)
        clientDriver.onMedia = { [unowned self] in self.clientMedia.append(Array($0)) }
    }

    /// Drives both ends until `done()` or the bounds run out.
    /// - Returns: whether `done()` became true.
    @discardableResult
    func run(seconds: Double = 3, maxIterations: Int = 20_000, until done: () -> Bool) -> Bool {
        let start = MonotonicClock.nowNs()
        let limit = start + UInt64(seconds * 1e9)
        for _ in 0..<maxIterations {
            flush()
            drainEvents()
            if done() { return true }
            let now = MonotonicClock.nowNs()
            if now >= limit { return false }
            let deadlines = [client.nextDeadline, server?.nextDeadline].compactMap { $0 }
            let wait = min(deadlines.min().map { $0 > now ? $0 - now : 0 } ?? 10_000_000, 10_000_000, limit - now)
            var fds = [pollfd(fd: clientSocket.fileDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: serverSocket.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, Int32((wait + 999_999) / 1_000_000))
            receive()
            let after = MonotonicClock.nowNs()
            if let server, let d = server.nextDeadline, d <= after {
                do { try server.handleTimeout(now: after) } catch { serverErrors.append(error) }
            }
        }
        return done()
    }

    private func flush() {
        stepClient()
        if let server { flush(server, serverSocket, errors: &serverErrors) }
    }

    private func flush(_ connection: QuicConnection, _ socket: UDPSocket, errors: inout [QuicError]) {
        for _ in 0..<1_000 {
            let n: Int?
            do {
                n = try connection.pollTransmit(into: &packet, now: MonotonicClock.nowNs())
            } catch {
                errors.append(error)
                continue  // a CONNECTION_CLOSE may now be waiting
            }
            guard let n else { return }
            _ = try? socket.send(Array(packet.prefix(n)), to: connection.remoteAddress)
        }
    }

    private func receive() {
        stepClient()
        for _ in 0..<1_000 {
            guard let (n, from) = packet.withUnsafeMutableBytes({ try? serverSocket.receive(into: $0) }) ?? nil else { break }
            let datagram = Array(packet.prefix(n))
            if serverMuted { continue }
            do {
                if let server {
                    try server.handle(datagram: datagram, from: from, now: MonotonicClock.nowNs())
                } else {
                    let outcome = try datagram.withUnsafeBytes { raw in
                        try listener.handle(datagram: raw, from: from, now: MonotonicClock.nowNs())
                    }
                    switch outcome {
                    case .drop: drops += 1
                    case .retry(let packet):
                        retries += 1
                        _ = try? serverSocket.send(packet, to: from)
                    case .accepted(let connection): server = connection
                    }
                }
            } catch let error as QuicError {
                serverErrors.append(error)
            } catch {}
        }
    }

    /// One pass of the client's `QuicSocketDriver`.
    private func stepClient() {
        let before = clientDriver.connectionErrors.count
        do { clientEvents += try clientDriver.step() } catch { clientErrors.append(error) }
        clientErrors += clientDriver.connectionErrors.dropFirst(before)
    }

    /// Sends raw bytes from the server's socket to the client (a media datagram, say).
    func sendFromServer(_ bytes: [UInt8]) throws {
        _ = try serverSocket.send(bytes, to: clientSocket.localAddress)
    }

    private func drainEvents() {
        while let e = client.pollEvent() { clientEvents.append(e) }
        while let server, let e = server.pollEvent() { serverEvents.append(e) }
    }

    static let ipv6Available: Bool = (try? UDPSocket(bind: SocketAddress(ip: "::1", port: 0)!)) != nil

    /// Runs until both sides are established.
    func connect() -> Bool {
        run { client.state == .established && server?.state == .established }
    }

    /// Concatenated stream bytes seen by one side on `stream`, and whether FIN arrived.
    static func streamBytes(_ events: [QuicEvent], stream: Int64) -> (bytes: [UInt8], fin: Bool) {
        var bytes: [UInt8] = []
        var fin = false
        for case .streamData(let s, let b, let f) in events where s == stream {
            bytes += b
            fin = fin || f
        }
        return (bytes, fin)
    }

    static func datagrams(_ events: [QuicEvent]) -> [[UInt8]] {
        events.compactMap { if case .datagram(let d) = $0 { d } else { nil } }
    }
}
