import Foundation
import Testing
import Audio
import PunktfunkWire
@testable import PunktfunkSession
import PunktfunkTestHost
import SystemClock

/// Issue 34 items 3 and 4 over a real session on 127.0.0.1: the test host grants the channels
/// the ClientHello asks for and sends a tone per channel; it sends 0xD2 when the client sets
/// CLIENT_CAP_AUDIO_RED, and the kiosk's audio sink then recovers what loss took instead of
/// concealing it.
@Suite(.serialized) struct AudioSurroundRedundancyTests {
    static func hello(channels: UInt8, red: Bool) -> ClientHello {
        var h = ClientSession.defaultHello
        h.audioChannels = channels
        h.audioLayout = .standard
        if red { h.features.clientCaps.insert(.audioRed) } else { h.features.clientCaps.remove(.audioRed) }
        return h
    }

    static func client(_ rig: SessionRig, seconds: Double, hello: ClientHello) -> ClientSession {
        ClientSession(options: .init(remote: rig.host.localAddress, identity: QuicLoopbackTests.clientIdentity,
                                     trust: .pinned(QuicLoopbackTests.hostIdentity.fingerprint), seconds: seconds, hello: hello))
    }

    /// |DFT| at `hz` of channel `c` of interleaved `pcm`, normalised to the sine's amplitude.
    static func magnitude(_ pcm: [Float], channel c: Int, channels: Int, hz: Double) -> Double {
        var re = 0.0, im = 0.0
        let n = pcm.count / channels
        for i in 0..<n {
            let phase = 2 * Double.pi * hz * Double(i) / 48_000
            re += Double(pcm[i * channels + c]) * cos(phase)
            im += Double(pcm[i * channels + c]) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(n)
    }

    /// control-plane.md §3.2 tag 10 (2/6/8, others → 2), §3.6: 0xD2 only with both RED bits.
    @Test func theHostGrantsWhatTheHelloAsksAndItCanSend() {
        let six = Self.hello(channels: 6, red: true)
        #expect(HostAudioPlan(client: six, fixedChannels: nil, surround: true, redundancy: true)
            == HostAudioPlan(channels: 6, layout: .standard, redundant: true))
        // No multichannel source, a fixed count, redundancy off, no client cap.
        #expect(HostAudioPlan(client: six, fixedChannels: nil, surround: false, redundancy: true).channels == 2)
        #expect(HostAudioPlan(client: six, fixedChannels: 8, surround: true, redundancy: true).channels == 8)
        #expect(HostAudioPlan(client: six, fixedChannels: 2, surround: true, redundancy: true).channels == 2)
        #expect(HostAudioPlan(client: six, fixedChannels: nil, surround: true, redundancy: false).redundant == false)
        #expect(HostAudioPlan(client: Self.hello(channels: 8, red: false), fixedChannels: nil, surround: true, redundancy: true)
            == HostAudioPlan(channels: 8, layout: .standard, redundant: false))
        var odd = Self.hello(channels: 4, red: false)
        odd.audioLayout = AudioLayout(rawValue: 9)
        let plan = HostAudioPlan(client: odd, fixedChannels: nil, surround: true, redundancy: true)
        #expect(plan.channels == 2 && plan.layout == .legacy)
        var hello = ServerHello(sessionID: SessionID(bytes: [UInt8](repeating: 1, count: 16))!)
        HostAudioPlan(channels: 6, layout: .standard, redundant: true).apply(to: &hello)
        #expect(hello.audioChannels == 6 && hello.audioLayout == .standard && hello.features.hostCaps.contains(.audioRed))
    }

    /// The host grants 6 / 8 channels as asked; decoded by the ServerHello's layout, every wire
    /// channel carries its own tone and every other channel's at least 25 dB down (measured: 31 dB
    /// or more, the worst the coupled FL/FR pair). (The tones
    /// are encoded at 0.3; CELT's 5 ms frames spread a pure tone's energy over its band, so its
    /// own bin keeps 0.15–0.3.)
    @Test(arguments: [UInt8(6), 8], [AudioLayout.legacy, .standard, .uncoupled])
    func surroundArrivesWithEachToneOnItsChannel(_ channels: UInt8, _ layout: AudioLayout) throws {
        let rig = try SessionRig(accessUnits: SyntheticAccessUnits.make(count: 4, bytes: 2_000, seed: 1)) {
            $0.makeAudioSource = { layout in
                let tone = LockedBox(try! OpusSurroundTone(layout: layout))
                return { _ in var p: [UInt8] = []; tone.mutate { p = $0.nextPacket() }; return p }
            }
        }
        var ask = Self.hello(channels: channels, red: false)
        ask.audioLayout = layout
        let client = Self.client(rig, seconds: 1.2, hello: ask)
        var packets: [AudioFrame] = []
        client.onAudio = { if case .opus(let f) = $0 { packets.append(f) } }
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil)
        let hello = try #require(client.parameters?.serverHello)
        #expect(hello.audioChannels == channels)
        #expect(hello.audioLayout == layout)
        #expect(rig.host.audioPlan?.channels == channels)
        let format = try AudioStreamFormat(serverHello: hello)
        let decoder = try AudioDecoder(format: format)
        let n = Int(channels)
        var pcm = [Float](repeating: 0, count: decoder.maxSamplesPerPacket)
        var all: [Float] = []
        // After the encoder's 20-packet lead, 0.1 s (20 packets): every tone a whole number of cycles.
        let steady = packets.sorted { $0.seq < $1.seq }.filter { $0.seq >= 40 }.prefix(20)
        #expect(steady.count == 20, "\(packets.count) packets")
        for p in steady {
            let frames = try decoder.decode(p.payload, into: &pcm)
            all += pcm.prefix(frames * n)
        }
        var table: [String] = []
        for c in 0..<n {
            let own = Self.magnitude(all, channel: c, channels: n, hz: OpusSurroundTone.frequenciesHz[c])
            let others = (0..<n).filter { $0 != c }.map { Self.magnitude(all, channel: c, channels: n, hz: OpusSurroundTone.frequenciesHz[$0]) }
            let leak = others.max() ?? 0
            table.append("ch\(c) \(OpusSurroundTone.frequenciesHz[c]) Hz: \(String(format: "%.3f", own)), loudest other \(String(format: "%.4f", leak))")
            #expect(own > 0.12 && own < 0.33, "channel \(c): its tone at \(own)")
            #expect(leak < own / 17.8, "channel \(c): another tone at \(leak) against \(own) (< −25 dB)")
        }
        print("surround \(channels) ch, layout \(layout.rawValue), over loopback: " + table.joined(separator: "; "))

        // Folded onto a stereo device: each side carries its front, the centre and its
        // surrounds at BS.775's relative −3 dB; the other side's channels and the LFE stay out.
        let fold = try #require(ChannelDownmix(from: n, to: 2))
        let frames = all.count / n
        var stereo = [Float](repeating: 0, count: frames * 2)
        all.withUnsafeBufferPointer { i in stereo.withUnsafeMutableBufferPointer { fold.mix(i, into: $0, frames: frames) } }
        let f = OpusSurroundTone.frequenciesHz
        func m(_ pcm: [Float], _ c: Int, _ chans: Int, _ tone: Int) -> Double { Self.magnitude(pcm, channel: c, channels: chans, hz: f[tone]) }
        let scale = 1 / (1 + Double(n == 8 ? 3 : 2) * 0.5.squareRoot())
        for (side, front, surround) in [(0, 0, 4), (1, 1, 5)] {
            #expect(abs(m(stereo, side, 2, front) - scale * m(all, front, n, front)) < 0.01)
            #expect(abs(m(stereo, side, 2, 2) - scale * 0.5.squareRoot() * m(all, 2, n, 2)) < 0.01)
            #expect(abs(m(stereo, side, 2, surround) - scale * 0.5.squareRoot() * m(all, surround, n, surround)) < 0.01)
            #expect(m(stereo, side, 2, 3) < 0.003, "LFE left out")
            #expect(m(stereo, side, 2, 1 - front) < 0.01, "the other front stays on its side")
        }
    }

    /// One run of `seconds` with the host dropping `lossPercent` of its audio datagrams (seeded),
    /// the client playing through `AudioOutput` on a device that cannot open (the sink keeps its
    /// jitter buffer's timeline and counts what it plays, recovers and conceals). Returns the
    /// sink's jitter figures, the sequence numbers that never arrived as a primary and the kinds
    /// of audio datagram seen.
    struct LossRun {
        var stats: JitterStats
        var missing: Set<UInt32>
        var range: ClosedRange<UInt32>
        var redundantPackets = 0
        var plainPackets = 0
        var hostCapRed = false

        /// The sequence numbers the sink's playout reached: one per played, recovered or
        /// concealed packet, from the first that arrived.
        var reached: Range<UInt32> {
            let n = UInt32(clamping: stats.playedPackets + stats.recoveredPackets + stats.lostPackets)
            return range.lowerBound..<(range.lowerBound &+ n)
        }
    }

    static func lossRun(red: Bool, lossPercent: Double, seed: UInt64, seconds: Double) throws -> LossRun {
        let rig = try SessionRig(accessUnits: SyntheticAccessUnits.make(count: 4, bytes: 2_000, seed: 1)) {
            $0.seed = seed
            $0.audioLossPercent = lossPercent
            let tone = LockedBox(try! OpusToneLoop(try! OpusToneSource(frequencyHz: 1_000))!)
            $0.audioSource = { _ in var p: [UInt8] = []; tone.mutate { p = $0.nextPacket() }; return p }
        }
        let client = Self.client(rig, seconds: seconds, hello: Self.hello(channels: 2, red: red))
        var output: AudioOutput?
        var seen: Set<UInt32> = []
        var result = LossRun(stats: JitterStats(), missing: [], range: 0...0)
        client.onEstablished = { params in
            result.hostCapRed = params.serverHello.features.hostCaps.contains(.audioRed)
            var settings = AudioOutput.Settings(device: "hw:CARD=NoSuchCard,DEV=0", reason: "test")
            settings.realtimePriority = 0
            let made = try! AudioOutput(format: AudioStreamFormat(serverHello: params.serverHello), settings: settings)
            made.onLine = { _ in }
            made.setClockOffset(params.clockOffsetNs)
            made.start()
            output = made
        }
        client.onAudio = { packet in
            switch packet {
            case .opus(let f): seen.insert(f.seq); result.plainPackets += 1
            case .redundant(let f): seen.insert(f.seq); result.redundantPackets += 1
            default: break
            }
            output?.submit(packet, arrivalNs: MonotonicClock.nowNs())
        }
        let run = runClient(client)
        // Let the sink play out what it holds (its delay is tens of ms).
        Thread.sleep(forTimeInterval: 0.3)
        output?.stop()
        #expect(rig.join())
        #expect(run.error == nil)
        result.stats = try #require(output?.stats.jitter)
        let lo = seen.min() ?? 0, hi = seen.max() ?? 0
        result.range = lo...hi
        result.missing = Set((lo...hi).filter { !seen.contains($0) })
        return result
    }

    /// 5 % seeded audio loss, the same seed with and without redundancy: without it every lost
    /// packet is concealed; with it every lost packet whose successor arrived is recovered, and
    /// only back-to-back losses are concealed.
    @Test func redundantAudioRecoversWhatConcealmentWouldFake() throws {
        let seed: UInt64 = 7, loss = 5.0, seconds = 4.0
        let plain = try Self.lossRun(red: false, lossPercent: loss, seed: seed, seconds: seconds)
        let red = try Self.lossRun(red: true, lossPercent: loss, seed: seed, seconds: seconds)

        #expect(!plain.hostCapRed && plain.redundantPackets == 0 && plain.plainPackets > 0)
        #expect(red.hostCapRed && red.plainPackets == 0 && red.redundantPackets > 0)
        // The same seed drops the same sequence numbers in both runs.
        let common = max(plain.range.lowerBound, red.range.lowerBound)...min(plain.range.upperBound, red.range.upperBound)
        #expect(plain.missing.filter(common.contains) == red.missing.filter(common.contains))
        let lost = plain.missing.count
        #expect(lost >= 15, "\(lost) lost of \(plain.range.count)")

        // Without redundancy: concealed = lost, nothing recovered — counted over the sequence
        // numbers the sink's playout reached (each output period takes the next one: played,
        // recovered or concealed); a loss in the tail the run ended before is never concealed.
        #expect(plain.stats.recoveredPackets == 0)
        let lostReached = plain.missing.filter(plain.reached.contains).count
        #expect(abs(plain.stats.lostPackets - lostReached) <= 2, "concealed \(plain.stats.lostPackets), lost \(lostReached) of the \(plain.reached.count) reached")
        // With it: a loss whose successor came is recovered; only runs of losses conceal.
        let redMissing = red.missing.filter(red.reached.contains)
        let recoverable = redMissing.filter { !red.missing.contains($0 &+ 1) }.count
        let backToBack = redMissing.count - recoverable
        #expect(abs(red.stats.recoveredPackets - recoverable) <= 2, "recovered \(red.stats.recoveredPackets) of \(recoverable)")
        #expect(abs(red.stats.lostPackets - backToBack) <= 2, "concealed \(red.stats.lostPackets), back-to-back \(backToBack)")
        #expect(red.stats.recoveredPackets >= red.missing.count * 8 / 10)
        print("audio loss \(loss) %, seed \(seed), \(seconds) s: without redundancy \(lost) of \(plain.range.count) packets lost → "
            + "concealed \(plain.stats.lostPackets), recovered \(plain.stats.recoveredPackets), played \(plain.stats.playedPackets); "
            + "with 0xD2 \(red.missing.count) of \(red.range.count) lost → recovered \(red.stats.recoveredPackets), "
            + "concealed \(red.stats.lostPackets) (\(backToBack) back-to-back), played \(red.stats.playedPackets)")
    }

    /// The same through the executables: `pf-testhost --audio --audio-loss 5 --seed 7` and
    /// `punktfunk-kiosk connect --audio-redundancy on|off`, the kiosk's device absent (its sink
    /// keeps the timeline and counts). The hello carries CLIENT_CAP_AUDIO_RED exactly when asked,
    /// and the stats line's `"audio":{…"concealed":N,"recovered":M}` tells the two apart.
    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)))
    func connectCountsRecoveredAndConcealedWithTheRedundancyFlag() throws {
        var figures: [String: (concealed: Int, recovered: Int, caps: Int)] = [:]
        for red in ["off", "on"] {
            let host = try TestHostProcess(["--frames", "0", "--fps", "30", "--au-bytes", "2000", "--audio", "--audio-loss", "5",
                                            "--seed", "7", "--max-seconds", "12"], name: "red-e2e-\(red)")
            defer { host.stop() }
            let run = try PairingExecutableTests.run(TestHostProcess.kiosk,
                                                     ["connect", host.address, "--headless", "--fp", host.fingerprint, "--seconds", "4",
                                                      "--audio-device", "hw:CARD=NoSuchCard,DEV=0", "--audio-redundancy", red],
                                                     environment: host.kioskEnvironment)
            #expect(run.status == 0, "\(run.stderr)")
            let log = host.stop()
            let stats = run.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("{\"second\":") }
            let last = try #require(stats.last, "\(run.stdout)")
            func number(_ key: String, in text: String) -> Int? {
                guard let r = text.range(of: "\"\(key)\":") else { return nil }
                return Int(text[r.upperBound...].prefix { $0.isNumber })
            }
            let audio = try #require(last.range(of: "\"audio\":{").map { String(last[$0.upperBound...]) }, "\(last)")
            let concealed = try #require(number("concealed", in: audio)), recovered = try #require(number("recovered", in: audio))
            let caps = try #require(number("client_caps", in: log), "\(log.prefix(300))")
            figures[red] = (concealed, recovered, caps)
        }
        let off = try #require(figures["off"]), on = try #require(figures["on"])
        #expect(off.caps & 0x04 == 0 && on.caps & 0x04 != 0, "client caps \(off.caps) / \(on.caps)")
        #expect(off.recovered == 0 && off.concealed >= 10, "without: \(off)")
        #expect(on.recovered >= 10 && on.concealed * 4 < on.recovered, "with: \(on)")
        print("connect, 5 % audio loss, seed 7, 4 s: --audio-redundancy off: concealed \(off.concealed), recovered \(off.recovered); "
            + "on: concealed \(on.concealed), recovered \(on.recovered)")
    }
}
