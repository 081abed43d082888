import Foundation
import Testing
import Input
import PunktfunkSession
import PunktfunkWire
@testable import Kiosk
import PunktfunkTestHost

/// Mapped input through the real session to the test host over loopback: key edges on the
/// control stream, the rest as datagrams, in order — and the releases queued right before a
/// deliberate quit still reach the host.
@Suite(.serialized) struct InputLoopbackTests {
    final class Log: @unchecked Sendable {
        let lock = NSLock()
        var items: [(via: String, event: InputEvent)] = []
        func add(_ via: String, _ e: InputEvent) { lock.withLock { items.append((via, e)) } }
        var all: [(via: String, event: InputEvent)] { lock.withLock { items } }
    }

    @Test func inputReachesTheHostInOrderAndNothingStaysHeld() throws {
        let identity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        var options = HostSession.Options(identity: identity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: DemoStream.accessUnits)
        options.keyframeIndices = DemoStream.keyframeIndices
        options.fps = DemoStream.fps
        options.maxSeconds = 20
        options.hostCaps = [.gamepadState]
        options.hostCaps2 = [.inputEdges, .scroll]
        let host = try HostSession(options: options)
        let log = Log()
        host.onClientDatagram = { result, _ in if case .success(.input(let e)) = result { log.add("datagram", e) } }
        host.onClientControl = { message, _ in
            if case .inputEvent(let edge) = message, let e = try? InputEvent(decoding: edge.event) { log.add("control", e) }
        }
        let done = DispatchSemaphore(value: 0)
        Thread { try? host.run(); done.signal() }.start()
        defer { host.stop(); _ = done.wait(timeout: .now() + 5) }

        let client = ClientSession.Options(remote: host.localAddress, identity: nil,
                                           trust: .pinned(identity.fingerprint), seconds: 30)
        let pipeline = StreamPipeline(options: client, decoder: nil)
        pipeline.start()
        let deadline = Date().addingTimeInterval(10)
        while pipeline.session?.parameters == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let hello = try #require(pipeline.session?.parameters?.serverHello)

        let mapper = InputMapper(sink: SessionInputSink(pipeline: pipeline))
        mapper.setPolicy(InputPolicy(serverHello: hello, askedPadKind: .auto))
        mapper.add(device: 1, role: .keyboard)
        mapper.add(device: 2, role: .mouse)
        func frame(_ d: Int, _ evs: [(UInt16, UInt16, Int32)]) {
            for (t, c, v) in evs { mapper.handle(device: d, type: t, code: c, value: v) }
            mapper.handle(device: d, type: EV.syn, code: EV.synReport, value: 0)
        }
        frame(1, [(EV.key, 30, 1)])                    // A down
        frame(2, [(EV.rel, EV.relX, 5), (EV.rel, EV.relY, -3)])
        frame(2, [(EV.key, EV.btnLeft, 1)])
        frame(1, [(EV.key, 42, 1)])                    // left shift down
        mapper.releaseAll()                            // the stream ends with A, shift and the button held
        pipeline.stop()
        pipeline.wait()

        let until = Date().addingTimeInterval(3)
        while log.all.count < 7, Date() < until { Thread.sleep(forTimeInterval: 0.01) }
        let got = log.all
        let control = got.filter { $0.via == "control" }.map(\.event)
        let datagrams = got.filter { $0.via == "datagram" }.map(\.event)
        #expect(control == [.keyDown(vk: 0x41), .keyDown(vk: 0xA0), .keyUp(vk: 0x41), .keyUp(vk: 0xA0)])
        #expect(datagrams == [.mouseMove(dx: 5, dy: -3), .mouseButtonDown(.left), .mouseButtonUp(.left)])
        #expect(mapper.held.isEmpty)
        #expect(mapper.counters.eventsSent == 7)
    }
}
