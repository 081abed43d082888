import Foundation
import Testing
import Audio
import FFmpegOracle
import PunktfunkWire
@testable import PunktfunkSession
import HEVC
import PunktfunkTestHost

/// A `HostSession` configured by the test on its own thread, a `ClientSession` on the test thread,
/// real UDP on 127.0.0.1. Bounded like `PumpRig`.
final class SessionRig {
    let host: HostSession
    private let done = DispatchSemaphore(value: 0)
    /// Client datagrams the host decoded, in arrival order.
    let received = LockedBox<[ClientDatagram]>([])

    init(accessUnits: [[UInt8]], configure: (inout HostSession.Options) -> Void) throws {
        var options = HostSession.Options(identity: QuicLoopbackTests.hostIdentity,
                                          bind: SocketAddress(ip: "127.0.0.1", port: 0)!, accessUnits: accessUnits)
        options.seed = 42
        options.maxSeconds = 15
        options.recordSchedule = true
        configure(&options)
        host = try HostSession(options: options)
        let received = self.received
        host.onClientDatagram = { result, _ in
            if case .success(let d) = result { received.mutate { $0.append(d) } }
        }
        let host = self.host
        let done = self.done
        Thread { try? host.run(); done.signal() }.start()
    }

    func client(seconds: Double) -> ClientSession {
        ClientSession(options: .init(remote: host.localAddress, identity: QuicLoopbackTests.clientIdentity,
                                     trust: .pinned(QuicLoopbackTests.hostIdentity.fingerprint), seconds: seconds))
    }

    @discardableResult
    func join() -> Bool {
        host.stop()
        return done.wait(timeout: .now() + 10) == .success
    }
}

/// A value shared between the host thread and the test thread.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func mutate(_ body: (inout T) -> Void) { lock.withLock { body(&value) } }
    var get: T { lock.withLock { value } }
}

/// What a client run produced.
struct ClientRun {
    var aus: [UInt32: [UInt8]] = [:]
    var keyframes: [UInt32] = []
    var epochs: [UInt32: UInt8] = [:]
    var error: SessionError?
}

func runClient(_ client: ClientSession) -> ClientRun {
    var run = ClientRun()
    client.onAccessUnit = { au in
        run.aus[au.frame] = Array(au.data)
        if au.isKeyframe { run.keyframes.append(au.frame) }
        run.epochs[au.frame] = au.epoch
    }
    do { try client.run() } catch { run.error = error }
    return run
}

@Suite(.serialized) struct SessionLoopbackTests {
    /// A low-delay-P HEVC stream from libx265 (IDR every 60 frames), split into AUs, with the
    /// indices of its IRAP AUs. Nil when ffmpeg is not installed.
    static let hevcStream: (aus: [[UInt8]], keyframes: [Int])? = {
        guard FFmpeg.isAvailable else { return nil }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pf-session-\(getpid()).hevc").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let out = try? FFmpeg.run(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=60", "-frames:v", "120",
                                         "-c:v", "libx265", "-preset", "ultrafast",
                                         "-x265-params", "keyint=60:min-keyint=60:bframes=0:repeat-headers=1:log-level=error",
                                         "-f", "hevc", "-y", path]), out.status == 0,
              let data = FileManager.default.contents(atPath: path) else { return nil }
        let aus = AccessUnitSplitter.splitPreservingBytes([UInt8](data))
        return (aus, AccessUnitSplitter.keyframeIndices(aus))
    }()

    /// Every AU the client received equals the file AU the host sent for that frame number.
    func expectExact(_ run: ClientRun, _ rig: SessionRig, sourceLocation: SourceLocation = #_sourceLocation) {
        let schedule = rig.host.schedule
        let aus = rig.host.options.accessUnits
        for (frame, bytes) in run.aus {
            guard Int(frame) < schedule.count else { Issue.record("frame \(frame) was never sent", sourceLocation: sourceLocation); continue }
            #expect(bytes == aus[schedule[Int(frame)]], "frame \(frame)", sourceLocation: sourceLocation)
        }
    }

    @Test(.enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265 to make the HEVC stream"),
          arguments: [(0.0, 10), (10.0, 60), (20.0, 90)])
    func fileAUsArriveByteExactUnderLossWithinTheFECBudget(loss: Double, fec: Int) throws {
        let stream = try #require(Self.hevcStream)
        let rig = try SessionRig(accessUnits: stream.aus) {
            $0.keyframeIndices = stream.keyframes
            $0.lossPercent = loss
            $0.fecPercent = fec
        }
        let client = rig.client(seconds: 2)
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil, "\(String(describing: run.error))")
        let sent = rig.host.framesSent
        expectExact(run, rig)
        if loss == 0 {
            #expect(run.aus.count >= sent - 3, "\(run.aus.count) of \(sent) AUs")
            #expect(client.asks.framesLost == 0)
        } else {
            #expect(rig.host.datagramsDropped > 0)
            #expect(client.counters.shardsRecovered > 0)
            // Blocks of one or two data shards carry only one or two parity shards, so at 20 %
            // a few tiny P-frames can still fall beyond their block's budget: each such loss must
            // be answered by a keyframe, and nearly every frame arrives.
            #expect(run.aus.count * 100 >= sent * 95, "\(run.aus.count) of \(sent) AUs at \(loss) % loss")
            if client.asks.framesLost > 0 {
                #expect(client.asks.asksOpened >= 1)
                #expect(rig.host.keyframesForced >= 1)
            }
        }
    }

    @Test(.enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265 to make the HEVC stream"))
    func lossBeyondTheBudgetAsksForAKeyframeAndRecovers() throws {
        let stream = try #require(Self.hevcStream)
        // 10 frames in, all packets of ~250 ms of frames vanish: beyond any FEC budget. The
        // stream's next own IDR is 50 frames later, so only an answered ask brings one sooner.
        let rig = try SessionRig(accessUnits: stream.aus) {
            $0.keyframeIndices = stream.keyframes
            $0.blackoutAfterFrames = 10
            $0.blackoutSeconds = 0.25
        }
        let client = rig.client(seconds: 2.2)
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil, "\(String(describing: run.error))")
        #expect(client.asks.asksOpened >= 1)
        #expect(client.asks.asksAnswered >= 1)
        #expect(client.askFeedbackSent >= 1)
        #expect(rig.host.keyframesForced >= 1)
        // The host answered with an IRAP of the file; frames after it arrive again, intact.
        let schedule = rig.host.schedule
        let answer = try #require(run.keyframes.first { $0 > 10 }, "no keyframe after the loss: \(run.keyframes)")
        #expect(stream.keyframes.contains(schedule[Int(answer)]))
        #expect(answer < 55, "the keyframe at frame \(answer) was the stream's own, not the answer")
        #expect(run.aus.keys.filter { $0 > answer }.count >= 30)
        expectExact(run, rig)
    }

    @Test func aThreeSecondOutageEndsInResumedStreamingNotAHang() throws {
        // 600 distinct AUs, only the first a keyframe: after the outage nothing but the answer
        // to the client's ask can restart the picture.
        let rig = try SessionRig(accessUnits: SyntheticAccessUnits.make(count: 600, bytes: 4_000, seed: 3)) {
            $0.keyframeIndices = [0]
            $0.blackoutAfterFrames = 20
            $0.blackoutSeconds = 3
        }
        let client = rig.client(seconds: 6)
        let started = Date()
        let run = runClient(client)
        #expect(Date().timeIntervalSince(started) < 9)
        #expect(rig.join())
        #expect(run.error == nil, "\(String(describing: run.error))")
        #expect(rig.host.blackoutDropped > 100)
        // Streaming resumed after the outage: a keyframe answered the ask and ≥ 0.5 s of frames followed.
        #expect(rig.host.keyframesForced >= 1)
        let keyAfter = run.keyframes.filter { $0 > 20 }
        #expect(!keyAfter.isEmpty, "no keyframe after the outage")
        let after = run.aus.keys.filter { $0 > 30 }
        #expect(after.count >= 30, "only \(after.count) frames after the outage")
        #expect(client.asks.asksAnswered >= 1)
        expectExact(run, rig)
    }

    @Test func opusAudioArrivesIntactAndDecodesToTheTone() throws {
        let tone = try OpusToneSource(frequencyHz: 1000)
        let sentPackets = LockedBox<[UInt32: [UInt8]]>([:])
        let source = LockedBox(tone)
        let rig = try SessionRig(accessUnits: SyntheticAccessUnits.make(count: 4, bytes: 2_000, seed: 1)) {
            $0.audioSource = { seq in
                var packet: [UInt8]?
                source.mutate { packet = try? $0.nextPacket() }
                if let packet { sentPackets.mutate { $0[seq] = packet } }
                return packet
            }
        }
        let client = rig.client(seconds: 1.5)
        var received: [AudioFrame] = []
        client.onAudio = { if case .opus(let frame) = $0 { received.append(frame) } }
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil)
        // 5 ms packets for ~1.5 s.
        #expect(received.count >= 150, "\(received.count) audio packets")
        #expect(rig.host.audioSent >= received.count)
        let sent = sentPackets.get
        for frame in received { #expect(sent[frame.seq] == frame.payload, "audio seq \(frame.seq)") }
        // Decoded, the packets are the tone: 240 samples per channel each, ~1000 Hz by zero crossings.
        let decoder = try AudioDecoder(format: .opus(.stereo))
        var pcm = [Float](repeating: 0, count: decoder.maxSamplesPerPacket)
        var left: [Float] = []
        for frame in received.sorted(by: { $0.seq < $1.seq }) {
            let frames = try decoder.decode(frame.payload, into: &pcm)
            #expect(frames == 240)
            left += stride(from: 0, to: 2 * frames, by: 2).map { pcm[$0] }
        }
        let settled = Array(left.dropFirst(4_800))   // skip the codec's start-up
        var crossings = 0
        for i in 1..<settled.count where (settled[i - 1] < 0) != (settled[i] < 0) { crossings += 1 }
        let hz = Double(crossings) / 2 / (Double(settled.count) / 48_000)
        #expect(abs(hz - 1000) < 15, "tone measured at \(hz) Hz")
    }

    @Test func inputFromAnotherThreadReachesTheHostInOrder() throws {
        let rig = try SessionRig(accessUnits: SyntheticAccessUnits.make(count: 4, bytes: 2_000, seed: 1)) { _ in }
        let client = rig.client(seconds: 1.5)
        var snapshot = GamepadSnapshot(pad: 0, seq: 1, buttons: [.a], leftTrigger: 200)
        snapshot.leftStickX = -12_345
        let inputs: [ClientDatagram] = [
            .input(.keyDown(vk: 0x41)), .input(.keyUp(vk: 0x41)),
            .input(.mouseMove(dx: 5, dy: -3)), .input(.mouseButtonDown(.left)), .input(.mouseButtonUp(.left)),
            .input(.mouseScroll(axis: .vertical, delta: -120)),
            .input(.gamepadArrival(pad: 0, padType: 2)), .input(.gamepadState(snapshot)),
            .input(.gamepadButton(.b, pressed: true, pad: 0)), .input(.gamepadAxis(.rightTrigger, value: 255, pad: 0)),
            .input(.touchDown(id: 1, x: 100, y: 200, surfaceWidth: 1920, surfaceHeight: 1080)),
            .input(.touchUp(id: 1)),
            .richInput(.touchpad(pad: 0, finger: 0, active: true, x: 960, y: 540)),
            .richInput(.motion(pad: 0, gyro: SIMD3(1, -2, 3), accel: SIMD3(0, 8192, 0))),
        ]
        let outbox = client.outbox
        // Sent from another thread once the session runs.
        Thread {
            Thread.sleep(forTimeInterval: 0.6)
            for input in inputs { outbox.send(input) }
        }.start()
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil)
        let got = rig.received.get.filter { if case .feedback = $0 { return false }; return true }
        #expect(got == inputs)
        #expect(client.outboxSent == inputs.count)
    }

    @Test func scriptedHostEventsReachTheClient() throws {
        let rumble = Rumble(pad: 0, low: 0x4000, high: 0xC000)
        let led = HIDOutput.led(pad: 0, r: 255, g: 64, b: 0)
        var config = StreamConfig(epoch: 1)
        config.mode = Mode(width: 1280, height: 720, refreshHz: 60)
        let rig = try SessionRig(accessUnits: SyntheticAccessUnits.make(count: 4, bytes: 2_000, seed: 1)) {
            $0.events = [ScriptedEvent(frame: 20, action: .datagram(.rumble(rumble))),
                         ScriptedEvent(frame: 21, action: .datagram(.hidOutput(led))),
                         ScriptedEvent(frame: 30, action: .control(.streamConfig(config)))]
        }
        let client = rig.client(seconds: 1.2)
        var datagrams: [HostDatagram] = []
        var controls: [ControlMessage] = []
        // The host's 0xCF per frame (the hello asks for host timing) is not a scripted event.
        client.onHostDatagram = { if case .hostTiming = $0 { return }; datagrams.append($0) }
        client.onControl = { controls.append($0) }
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil)
        #expect(datagrams == [.rumble(rumble), .hidOutput(led)])
        // Epoch 0 from the handshake (held during the clock rounds), then the scripted epoch 1.
        let epochs: [UInt8] = controls.compactMap { if case .streamConfig(let c) = $0 { return c.epoch }; return nil }
        #expect(epochs == [0, 1])
        #expect(client.streamConfig == config)
    }

    @Test func reconfigureSetBitrateAndASpeedTestAreAnswered() throws {
        let rig = try SessionRig(accessUnits: SyntheticAccessUnits.make(count: 30, bytes: 6_000, seed: 9)) {
            $0.keyframeIndices = [0]
        }
        let client = rig.client(seconds: 2.5)
        var controls: [ControlMessage] = []
        client.onControl = { controls.append($0) }
        let newMode = Mode(width: 1280, height: 720, refreshHz: 60)
        let outbox = client.outbox
        Thread {
            Thread.sleep(forTimeInterval: 0.6)
            outbox.sendControl(.setBitrate(SetBitrate(kbps: 20_000)))
            outbox.sendControl(.reconfigure(Reconfigure(mode: newMode)))
            outbox.sendControl(.probeRequest(ProbeRequest(targetKbps: 100_000, durationMs: 600)))
        }.start()
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil, "\(String(describing: run.error))")
        #expect(controls.contains(.bitrateChanged(BitrateChanged(kbps: 20_000))))
        #expect(controls.contains(.reconfigured(Reconfigured(accepted: true, mode: newMode))))
        #expect(client.streamConfig?.epoch == 1)
        #expect(client.streamConfig?.mode == newMode)
        // The new epoch starts with a keyframe and frames keep arriving in it.
        let epoch1 = run.epochs.filter { $0.value == 1 }.keys.sorted()
        #expect(epoch1.count >= 20, "\(epoch1.count) frames in epoch 1")
        if let first = epoch1.first { #expect(run.keyframes.contains(first)) }
        // The speed test: ~100 Mbit/s for 0.6 s beside the video, measured on arrival.
        let probe = try #require(client.lastProbe)
        #expect(probe.result.durationMs == 600)
        #expect(probe.packets > 1_000)
        #expect(probe.packets <= UInt64(probe.result.wirePacketsSent))
        #expect(probe.linkLossPercent < 5, "\(probe.json)")
        #expect(abs(probe.throughputKbps - 100_000) / 100_000 < 0.35, "\(probe.json)")
        #expect(probe.jitterP50Us != nil)
    }

    @Test func aLostSessionIsResumedWithItsSessionID() throws {
        // The path dies 20 frames in for longer than the (shortened, 1.5 s) idle timeout: both
        // ends drop the connection; the client re-dials with ClientHello.resume; the second
        // session (no outage) streams.
        var options = HostSession.Options(identity: QuicLoopbackTests.hostIdentity,
                                          bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: SyntheticAccessUnits.make(count: 60, bytes: 4_000, seed: 4))
        options.blackoutAfterFrames = 20
        options.blackoutSeconds = 4
        options.maxSeconds = 15
        let series = try HostSessionSeries(options: options, sessions: 2)
        series.laterOptions = { _, later in later.blackoutAfterFrames = nil }
        let hosts = LockedBox<[HostSession]>([])
        series.onSession = { host in hosts.mutate { $0.append(host) } }
        let done = DispatchSemaphore(value: 0)
        Thread { series.run(); done.signal() }.start()

        var clientOptions = ClientSession.Options(remote: series.localAddress, identity: QuicLoopbackTests.clientIdentity,
                                                  trust: .pinned(QuicLoopbackTests.hostIdentity.fingerprint), seconds: 6)
        clientOptions.idleTimeoutNs = 1_500_000_000
        var resumes: [Int] = []
        var perSession: [Int] = []
        let session = try SessionDialer.run(clientOptions, prepare: { s in
            perSession.append(0)
            s.onAccessUnit = { _ in perSession[perSession.count - 1] += 1 }
        }, onResume: { resumes.append($0) })
        series.stop()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(resumes.count >= 1)
        let served = hosts.get
        try #require(served.count == 2)
        let firstID = try #require(served[0].sessionID)
        #expect(served[1].resumeRequested == firstID)
        #expect(served[1].sessionID != firstID)
        #expect(session.options.hello.resume == firstID)
        // The resumed session streamed for the rest of the time.
        #expect(perSession.first.map { $0 >= 15 } == true, "\(perSession)")
        #expect((perSession.last ?? 0) >= 60, "\(perSession)")
    }
}
