import Foundation
import Input
import PunktfunkSession
import PunktfunkTestHost
import PunktfunkWire
import SystemClock

/// Input path benchmark over a real loopback session (`punktfunk-bench input`): an evdev frame
/// handed to the mapper as the input thread does after its libevdev read (REL_X + SYN_REPORT) →
/// `InputMapper` → the outbox's input queue → the pump's wake, encode and `sendDatagram` → the
/// socket → the test host's receive. Latency per event p50/p99 (host receive time minus the
/// moment the frame was handed over, one clock). Baseline in the same run: the same event queued
/// as an already-encoded datagram through the outbox's general `send` (no mapper). Also the
/// mapper's own cost per event with a sink that only counts. The kernel's part (evdev write →
/// epoll wake of the input thread) needs /dev/uinput and is measured in the VM harness's input
/// check only as correctness; this figure starts at the read.
func runInputBench(quick: Bool) -> [String] {
    var lines = ["Input (evdev frame → mapper → outbox → pump → socket → host, loopback session)"]
    do {
        let events = quick ? 500 : 3000
        let mapped = try measure(events: events, viaMapper: true)
        let raw = try measure(events: events, viaMapper: false)
        lines.append("  " + pad("path", 30) + pad("events", 8) + pad("p50 µs", 9) + pad("p99 µs", 9) + "max µs")
        for (name, r) in [("mapper + input queue", mapped), ("baseline: encoded datagram", raw)] {
            lines.append("  " + pad(name, 30) + pad("\(r.count)", 8) + pad(fixed(pct(r, 0.5), 1), 9)
                         + pad(fixed(pct(r, 0.99), 1), 9) + fixed(r.last ?? 0, 1))
        }
        lines.append("  p99 ratio mapper/baseline: \(fixed(pct(mapped, 0.99) / max(0.001, pct(raw, 0.99)), 2))")
    } catch {
        lines.append("  input bench failed: \(error)")
    }
    let n = quick ? 200_000 : 2_000_000
    let sink = CountingSink()
    let mapper = InputMapper(sink: sink)
    mapper.setPolicy(InputPolicy())
    mapper.add(device: 1, role: .mouse)
    let t0 = MonotonicClock.nowNs()
    for i in 0..<n {
        mapper.handle(device: 1, type: EV.rel, code: EV.relX, value: Int32(i & 7) + 1)
        mapper.handle(device: 1, type: EV.syn, code: EV.synReport, value: 0)
    }
    let perEvent = Double(MonotonicClock.nowNs() - t0) / Double(n)
    lines.append("  mapper alone: \(fixed(perEvent, 1)) ns per frame (REL_X + SYN_REPORT → one event), \(sink.count) events")
    return lines
}

private final class CountingSink: InputSink {
    var count = 0
    func send(_ event: InputEvent, reliable: Bool) -> Bool { count += 1; return true }
    func send(_ rich: RichInput) -> Bool { count += 1; return true }
}

private final class OutboxSink: InputSink {
    let outbox: ClientOutbox
    init(_ outbox: ClientOutbox) { self.outbox = outbox }
    func send(_ event: InputEvent, reliable: Bool) -> Bool { outbox.sendInput(reliable ? .edge(event) : .event(event)) }
    func send(_ rich: RichInput) -> Bool { outbox.sendInput(.rich(rich)) }
}

private func pct(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
}

/// Latencies in µs, sorted.
private func measure(events: Int, viaMapper: Bool) throws -> [Double] {
    let identity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
    var options = HostSession.Options(identity: identity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                      accessUnits: [[0, 0, 1, 0x40, 1, 0x0C]])
    options.fps = 30
    options.maxSeconds = 120
    options.hostCaps2 = [.inputEdges]
    let host = try HostSession(options: options)
    let lock = NSLock()
    var sentAt = [UInt64](repeating: 0, count: events + 1)
    var latencies: [Double] = []
    latencies.reserveCapacity(events)
    host.onClientDatagram = { result, now in
        guard case .success(.input(let e)) = result, e.kind == .mouseMove else { return }
        lock.withLock {
            let id = Int(e.x)
            if id > 0, id <= events, sentAt[id] != 0 { latencies.append(Double(now - sentAt[id]) / 1000) }
        }
    }
    let hostDone = DispatchSemaphore(value: 0)
    Thread { try? host.run(); hostDone.signal() }.start()
    defer { host.stop(); _ = hostDone.wait(timeout: .now() + 5) }

    let session = ClientSession(options: ClientSession.Options(remote: host.localAddress, identity: nil,
                                                               trust: .pinned(identity.fingerprint), seconds: 60))
    let sessionDone = DispatchSemaphore(value: 0)
    nonisolated(unsafe) let running = session
    Thread { _ = try? running.run(); sessionDone.signal() }.start()
    defer { session.outbox.requestQuit(); _ = sessionDone.wait(timeout: .now() + 5) }
    let deadline = MonotonicClock.nowNs() + 10_000_000_000
    while session.parameters == nil, MonotonicClock.nowNs() < deadline { usleep(1000) }
    guard session.parameters != nil else { throw BenchError.noSession }
    usleep(200_000)

    let mapper = InputMapper(sink: OutboxSink(session.outbox))
    mapper.setPolicy(InputPolicy(grants: .all, gamepadSnapshots: false, reliableKeyEdges: true, normalisedScroll: true))
    mapper.add(device: 1, role: .mouse)
    for id in 1...events {
        let t = MonotonicClock.nowNs()
        lock.withLock { sentAt[id] = t }
        if viaMapper {
            mapper.handle(device: 1, type: EV.rel, code: EV.relX, value: Int32(id))
            mapper.handle(device: 1, type: EV.syn, code: EV.synReport, value: 0)
        } else {
            session.outbox.send(.input(.mouseMove(dx: Int32(id), dy: 0)))
        }
        usleep(1000)
    }
    usleep(300_000)
    return lock.withLock { latencies.sorted() }
}

private enum BenchError: Error { case noSession }
