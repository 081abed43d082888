#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import SystemClock
@testable import LossyLink

/// A UDP socket on 127.0.0.1 playing the client or the host.
final class LoopbackPeer {
    let fd: Int32
    let address: LoopbackAddress

    init() throws {
        let sock = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var size: Int32 = 4 << 20
        _ = setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var sa = LoopbackAddress(ip: 0x7F00_0001, port: 0)!.sockaddr
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &length) }
        }
        guard sock >= 0, rc == 0, let address = LoopbackAddress(bound) else {
            if sock >= 0 { close(sock) }
            throw RelayError("test socket")
        }
        fd = sock
        self.address = address
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8], to: LoopbackAddress) {
        var sa = to.sockaddr
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// The next datagram within `timeoutMs` (0 = only what is there now), or nil.
    func receive(timeoutMs: Int32) -> [UInt8]? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, timeoutMs) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return n >= 0 ? Array(buffer[0..<n]) : nil
    }

    /// Everything that arrives until `quietMs` pass with nothing.
    func drain(quietMs: Int32) -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let datagram = receive(timeoutMs: quietMs) { out.append(datagram) }
        return out
    }
}

/// A relay running `run` on its own thread until `finish()`.
final class RunningRelay: @unchecked Sendable {
    let relay: UDPRelay
    private var summary: RelaySummary?
    private let done = DispatchSemaphore(value: 0)

    init(_ configuration: UDPRelay.Configuration) throws {
        relay = try UDPRelay(configuration)
        let thread = Thread { [self] in
            summary = relay.run(seconds: 30)  // a bound: a test that forgets finish() still ends
            done.signal()
        }
        thread.start()
    }

    func finish() -> RelaySummary {
        relay.stop()
        done.wait()
        return summary!
    }
}

/// The real relay loop over loopback sockets: counts, delay, media-only. Bounded in time; only
/// 127.0.0.1 is used.
@Suite(.serialized) struct UDPRelayTests {
    static let ms: UInt64 = 1_000_000

    static func checkBalance(_ c: DirectionCounters, inFlight: Int) {
        #expect(c.received + c.duplicated == c.forwarded + c.sendErrors + c.droppedLoss + c.droppedQueue + inFlight, "\(c)")
    }

    @Test func countsAddUpBothWays() throws {
        let client = try LoopbackPeer(), host = try LoopbackPeer()
        let impairment = ImpairmentConfig(loss: .independent(loss: 0.1), delayNs: Self.ms, jitterNs: Self.ms,
                                          reorderProbability: 0.05, reorderDelayNs: 2 * Self.ms, duplicateProbability: 0.05)
        let running = try RunningRelay(.init(listen: LoopbackAddress("127.0.0.1:0")!, upstream: host.address,
                                             c2h: impairment, h2c: impairment, seed: 77))
        let relay = running.relay
        let n = 400
        var atHost: [[UInt8]] = [], atClient: [[UInt8]] = []
        for i in 0..<n {
            client.send(LinkImpairmentTests.media(seq: UInt32(i)), to: relay.listenAddress)
            while let datagram = host.receive(timeoutMs: 0) { atHost.append(datagram) }
            usleep(200)
        }
        atHost += host.drain(quietMs: 300)
        for i in 0..<n {
            host.send(LinkImpairmentTests.media(seq: UInt32(10_000 + i)), to: relay.upstreamLocalAddress)
            while let datagram = client.receive(timeoutMs: 0) { atClient.append(datagram) }
            usleep(200)
        }
        atClient += client.drain(quietMs: 300)
        let summary = running.finish()

        #expect(summary.end == "stop" && summary.client == client.address && summary.ignoredForeign == 0)
        #expect(summary.c2h.received == n && summary.h2c.received == n)
        #expect(summary.c2h.media == n && summary.c2h.quic == 0)
        Self.checkBalance(summary.c2h, inFlight: summary.inFlightC2H)
        Self.checkBalance(summary.h2c, inFlight: summary.inFlightH2C)
        #expect(summary.inFlightC2H == 0 && summary.inFlightH2C == 0)
        #expect(atHost.count == summary.c2h.forwarded && atClient.count == summary.h2c.forwarded)
        for c in [summary.c2h, summary.h2c] {
            #expect(c.droppedLoss > 10 && c.droppedLoss < 80, "about 10 % of \(n)")
            #expect(c.duplicated > 0 && c.reordered > 0 && c.sendErrors == 0 && c.droppedQueue == 0)
        }
        #expect(Set(atHost.map { RelayCore.seqLow($0)! }).isSubset(of: Set((0..<UInt32(n)))))
        #expect(summary.json.contains("\"c2h\":{\"received\":\(n),"))
    }

    @Test func delayedPacketsArriveNoSoonerThanTheDelay() throws {
        let client = try LoopbackPeer(), host = try LoopbackPeer()
        let delay = ImpairmentConfig(delayNs: 30 * Self.ms)
        let running = try RunningRelay(.init(listen: LoopbackAddress("127.0.0.1:0")!, upstream: host.address,
                                             c2h: delay, h2c: delay, seed: 1))
        let relay = running.relay
        var waits: [UInt64] = []
        for i in 0..<10 {
            let sent = MonotonicClock.nowNs()
            client.send(LinkImpairmentTests.media(seq: UInt32(i)), to: relay.listenAddress)
            let up = try #require(host.receive(timeoutMs: 2000))
            let arrived = MonotonicClock.nowNs()
            #expect(RelayCore.seqLow(up) == UInt32(i))
            waits.append(arrived - sent)
            host.send(up, to: relay.upstreamLocalAddress)
            let back = try #require(client.receive(timeoutMs: 2000))
            waits.append(MonotonicClock.nowNs() - arrived)
            #expect(back == up)
        }
        let summary = running.finish()
        #expect(waits.allSatisfy { $0 >= 30 * Self.ms }, "\(waits.map { Double($0) / 1e6 }) ms")
        #expect(waits.min()! < 500 * Self.ms)
        #expect(summary.c2h.forwarded == 10 && summary.h2c.forwarded == 10)
    }

    @Test func mediaOnlyNeverDropsQuicAndLogsMediaDrops() throws {
        let client = try LoopbackPeer(), host = try LoopbackPeer(), stranger = try LoopbackPeer()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pf-relay-drops-\(getpid()).jsonl")
        defer { try? FileManager.default.removeItem(at: log) }
        let dropAll = ImpairmentConfig(loss: .init(p: 1, r: 0, lossGood: 1, lossBad: 1))
        let running = try RunningRelay(.init(listen: LoopbackAddress("127.0.0.1:0")!, upstream: host.address,
                                             c2h: dropAll, h2c: dropAll, policy: RelayPolicy(mediaOnly: true),
                                             seed: 1, dropLogPath: log.path))
        let relay = running.relay
        var atHost: [[UInt8]] = []
        for i in 0..<100 {
            client.send(LinkImpairmentTests.quic(), to: relay.listenAddress)
            client.send(LinkImpairmentTests.media(seq: UInt32(i)), to: relay.listenAddress)
            while let datagram = host.receive(timeoutMs: 0) { atHost.append(datagram) }
            usleep(200)
        }
        stranger.send(LinkImpairmentTests.quic(), to: relay.listenAddress)
        atHost += host.drain(quietMs: 300)
        let summary = running.finish()

        #expect(atHost.count == 100 && atHost.allSatisfy { $0[0] == 0xC0 })
        #expect(summary.c2h.quic == 100 && summary.c2h.media == 100 && summary.c2h.droppedLoss == 100)
        #expect(summary.c2h.forwarded == 100 && summary.ignoredForeign == 1)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 100)
        #expect(lines.first?.hasPrefix("{\"dir\":\"c2h\",\"seq_low\":0,\"mono_ns\":") == true)
        #expect(lines.last?.hasPrefix("{\"dir\":\"c2h\",\"seq_low\":99,\"mono_ns\":") == true)
    }
}

/// The `pf-relay` executable: the stderr banner, relaying, SIGINT and the JSON summary. Skipped when
/// it is not beside the test bundle (`swift build --build-tests` builds it).
@Suite struct PFRelayExecutableTests {
    static var binDirectory: URL { URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent() }
    static var executable: URL { binDirectory.appendingPathComponent("pf-relay") }
    static let built = FileManager.default.isExecutableFile(atPath: executable.path)

    @Test(.enabled(if: PFRelayExecutableTests.built, "pf-relay is not built beside the test bundle"))
    func bannerRelayAndSummaryOnSIGINT() throws {
        let client = try LoopbackPeer(), host = try LoopbackPeer()
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--listen", "127.0.0.1:0", "--to", "\(host.address)", "--loss", "2", "--burst-ms", "20",
                             "--delay-ms", "1", "--seed", "5", "--seconds", "20", "--media-only"]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // The banner: "pf-relay listening on 127.0.0.1:PORT".
        var banner = Data()
        while !banner.contains(UInt8(ascii: "\n")) {
            let chunk = stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner.append(chunk)
        }
        let line = String(decoding: banner, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        let prefix = "pf-relay listening on "
        #expect(line.hasPrefix(prefix), "\(line)")
        let listen = try #require(LoopbackAddress(String(line.dropFirst(prefix.count))))
        #expect(listen.port != 0)

        for _ in 0..<20 { client.send(LinkImpairmentTests.quic(), to: listen) }
        let got = host.drain(quietMs: 500)
        #expect(got.count == 20)
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(out.hasPrefix("{\"end\":\"stop\""), "\(out)")
        #expect(out.contains("\"c2h\":{\"received\":20,\"forwarded\":20,"), "\(out)")
        #expect(out.hasSuffix("}\n") && out.split(separator: "\n").count == 1)
    }
}
