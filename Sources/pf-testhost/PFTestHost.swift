import ArgumentParser
import Foundation
import PunktfunkSession
import PunktfunkWire
import Audio
import HEVC
import PunktfunkTestHost
import SystemClock

/// `pf-testhost`: a punktfunk/2 test host serving one session — Retry, handshake, then a looped AU
/// stream through the real packetizer/FEC/AEAD on the shared socket, with seeded loss. Every client
/// datagram is logged as one JSON line on stdout.
///
/// Admission and pairing (control-plane.md §3.4, §6): `--pin` arms one PIN window (one guess),
/// `--require-pairing` gates sessions on the trust store (`--trust-file`, default
/// `IDENTITY_DIR/paired-clients`, else memory), unknown devices knock and are approved
/// (`--approve-after`), denied (`--deny`) or time out (`--approval-wait`); `--pending` and
/// `--redirect` script the answer; `--sessions` serves that many connections in a row.
@main
struct PFTestHost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pf-testhost",
        abstract: "Serve one punktfunk/2 session from synthetic or Annex-B HEVC access units.")

    @Option(help: "UDP port to listen on (0 = ephemeral; the bound address is printed on stderr).") var port: UInt16 = 9777
    @Option(help: "Bind address.") var bind = "0.0.0.0"
    @Option(help: "Directory holding the host identity (created on first use).") var identityDir: String?
    @Option(help: "Frames to send, then end (0 = until the client leaves).") var frames = 0
    @Option(help: "Frame rate, frames per second.") var fps = 60.0
    @Option(help: "Size of each synthetic AU in bytes.") var auBytes = 30_000
    @Option(help: "Annex-B HEVC file streamed as AUs, looped (instead of synthetic AUs).") var hevc: String?
    @Flag(name: .customLong("anchor-stream"), help: "Stream live HEVC made on the fly (PCM IDR test patterns, moving P pictures) that answers an RFI ask with an honest anchor: a P picture predicting only from a picture before the invalidated range.") var anchorStream = false
    @Flag(name: .customLong("keyframes-only"), help: "With --anchor-stream: answer RFI asks with an IDR too (the keyframe-only baseline).") var keyframesOnly = false
    @Option(name: .customLong("anchor-size"), help: "With --anchor-stream: picture size WxH (multiples of 16).") var anchorSize = "320x192"
    @Option(name: .customLong("p-frame-padding"), help: "With --anchor-stream: filler bytes after every P picture's slice (a filler-data NAL unit, which decoders discard), to emulate a realistic bitrate.") var pFramePadding = 0
    @Option(name: .customLong("idr-interval"), help: "With --anchor-stream: frames between periodic IDRs (default: only the first and those asked for).") var idrInterval: Int?
    @Option(name: .customLong("lose-answers"), help: "Fault injection: drop every packet of the first N frames that answer a recovery ask (the lost-answer case).") var loseAnswers = 0
    @Option(name: .customLong("sent-stream"), help: "Append every video AU sent to this file (Annex-B, in send order: the stream a clean decoder sees), and log {\"sent\":FRAME,\"flags\":F,\"bytes\":N,\"mono_ns\":T} per AU on stdout (T: CLOCK_MONOTONIC when it was sent).") var sentStream: String?
    @Option(help: "Media datagrams dropped on purpose, percent.") var loss = 0.0
    @Flag(name: .customLong("streamed-au"), help: "Stream each AU slice by slice as its slices are encoded (data-plane.md §2.3), to a client whose hello has STREAMED_AU (slice mode with MULTI_SLICE, else full-K blocks).") var streamedAU = false
    @Option(name: .customLong("slice-encode-ms"), help: "Simulated encode time per slice, ms: an AU's slices (VCL NAL units) come out of the encoder one per interval, whether sent streamed or whole.") var sliceEncodeMs = 0.0
    @Option(name: .customLong("stream-block-shards"), help: "With --streamed-au: whole shards a sentinel block waits for (the host's MIN_STREAM_BLOCK_SHARDS).") var streamBlockShards = Packetizer.defaultMinStreamBlockShards
    @Option(name: .customLong("pace-mbps"), help: "Pace video datagrams at this link rate, Mbit/s (0: unpaced).") var paceMbps = 0.0
    @Flag(name: .customLong("log-host-timing"), help: "Log every 0xCF sent as {\"host_timing\":{…}} on stdout.") var logHostTiming = false
    @Option(help: "Seed for the loss pattern and synthetic AU content.") var seed: UInt64 = 1
    @Option(help: "Close with this code (decimal or 0x-hex) after the ClientHello.") var refuse: String?
    @Option(help: "Give up after this many seconds.") var maxSeconds = 3600.0
    @Option(help: "Arm pairing with this four-digit PIN (one guess); 'random' draws one and prints it.") var pin: String?
    @Flag(help: "Admit only paired devices; unknown certificates knock, anonymous clients get 0x63.") var requirePairing = false
    @Option(help: "Approve a knocking device after this many seconds (it is added to the trust store).") var approveAfter: Double?
    @Flag(help: "Deny knocking devices (close 0x64) one second after the knock.") var deny = false
    @Option(help: "Close an undecided knock with 0x65 after this many seconds.") var approvalWait = 180.0
    @Option(help: "Send this many Pending frames before the answer.") var pending = 0
    @Option(help: "Seconds between Pending frames.") var pendingEvery = 10.0
    @Option(help: "Answer with a Redirect to HOST:PORT[:PIN] (empty HOST = same address; PIN = 64-hex fingerprint).") var redirect: String?
    @Option(help: "File of paired client fingerprints (default: IDENTITY_DIR/paired-clients, else memory only).") var trustFile: String?
    @Option(help: "Connections to serve one after another on the same port (0 = until killed).") var sessions = 1
    @Option(help: "Parity shards per block, percent of the data shards (0…90).") var fec = 10
    @Option(help: "Cut the network path (drop every datagram both ways) after this many frames.") var blackoutAfter: Int?
    @Option(help: "Length of that outage, seconds.") var blackoutSeconds = 3.0
    @Flag(help: "Send a 997 Hz Opus test tone (48 kHz stereo, 5 ms packets), encoded once per period of the signal and replayed.") var audio = false
    @Option(help: "Write every input item the client sends (0xC8 datagrams, INPUT_EVENT key edges, 0xCC rich input) to this file as JSON lines, in arrival order.") var inputLog: String?
    @Option(help: "Input capabilities to advertise, comma-separated: snapshots (HOST_CAP_GAMEPAD_STATE), edges (HOST_CAP2_INPUT_EDGES), scroll (HOST_CAP2_SCROLL), cursor (HOST_CAP_CURSOR: forward the pointer to a client that draws it — a 16×16 magenta square moved by its input, 0xD0 with every frame); 'none' for none.") var inputCaps = "snapshots,edges,scroll"
    @Option(help: "With --input-caps cursor: from frame N on the pointer is captured (0xD0's relative-mode hint, a game taking the mouse).") var pointerCapturedFrom: Int?
    @Option(help: "Write one JSON line per video frame sent to this file: {\"frame\":N,\"capture_mono_ns\":C,\"pts_ns\":P} (C: CLOCK_MONOTONIC; P: the pts the client derives, the host's realtime capture time).") var frameLog: String?
    @Option(help: "Access grants mask the ServerHello carries (255 = all). Without LAUNCH (0x20) a client hello naming a title (tag 8) is closed with 0x6A launch-not-permitted.") var grants: UInt32 = 255
    @Option(name: .customLong("launch-outcome"), help: "Answer a client hello naming a title (tag 8) with LaunchOutcome KIND[:MESSAGE] after Ready; KIND is spawned, adopted, adopted-unknown, refused, failed or sign-in-needed.")
    var launchOutcome: String?
    @Option(name: .customLong("hdr-metadata"), help: "HDR10: announce bit depth 10 and BT.2020/PQ colour [9,16,9,0], and send this 28-byte 0xCE body (56 hex digits: G, B, R, white x/y in 1/50000, max/min mastering luminance u32 in 0.0001 cd/m², MaxCLL, MaxFALL; little-endian) before every keyframe.") var hdrMetadata: String?
    @Option(name: .customLong("audio-skew-ppm"), help: "Run the audio clock this many ppm slow (> 0) or fast (< 0) against CLOCK_MONOTONIC.") var audioSkewPPM = 0.0
    @Option(name: .customLong("audio-loss"), help: "Audio datagrams dropped on purpose, percent (seeded).") var audioLoss = 0.0
    @Option(name: .customLong("audio-channels"), help: "Channels the ServerHello grants: auto (what the client's hello asks: 6, 8, else 2) or 2, 6, 8. 6 and 8 carry a different tone per channel (FL 500, FR 900, FC 1300, LFE 70, RL 1700, RR 2900, SL 4400, SR 6200 Hz); logged as {\"audio_session\":…}.") var audioChannels = "2"
    @Option(name: .customLong("audio-redundancy"), help: "on: send 0xD2 (each packet with its predecessor) with HOST_CAP_AUDIO_RED when the client sets CLIENT_CAP_AUDIO_RED; off: never.") var audioRedundancy = "on"
    @Option(name: .customLong("audio-jitter-ms"), help: "Hold each audio datagram back a random 0…N ms (reorders).") var audioJitterMs = 0.0
    @Option(name: .customLong("audio-marker-every"), help: "Every Nth audio packet is a 3 kHz marker burst; its due time is logged as {\"audio_marker\":…} (0 = none).") var audioMarkerEvery = 0
    @Option(name: .customLong("audio-jitter-burst"), help: "START:SECONDS:MS — audio packets due START…START+SECONDS s after the first one are held back a random 0…MS ms instead (logged as {\"audio_jitter_burst\":…}).") var audioJitterBurst: String?
    @Flag(name: .customLong("video-at-audio-markers"), help: "Capture a video frame at each audio marker's due time (frames stamped on a grid that follows the markers); each is logged as {\"video_marker\":…}.") var videoAtAudioMarkers = false
    @Option(help: "Record this ALSA capture device (e.g. hw:Loopback,1) as S16_LE stereo 48 kHz into --capture-file, then print {\"capture\":…}.") var capture: String?
    @Option(name: .customLong("capture-seconds")) var captureSeconds = 5.0
    @Option(name: .customLong("capture-file")) var captureFile = "capture.raw"
    @Option(name: .customLong("capture-skip"), help: "Seconds of sound to let pass before recording.") var captureSkip = 0.0
    @Option(help: "Announce this host over mDNS (DNS-SD _punktfunk._udp) under this instance name; a goodbye is sent on exit.") var mdns: String?
    @Option(help: "TXT id of the --mdns advert (default: the first 16 hex digits of the fingerprint).") var mdnsId: String?
    @Option(help: "TXT mac of the --mdns advert: comma-separated Wake-on-LAN MACs.") var mdnsMac = "02:00:00:00:00:01"
    @Option(help: "mDNS UDP port (tests only; the standard is 5353).") var mdnsPort: UInt16 = 5353
    @Option(name: .customLong("bitrate-kbps"), help: "The host's default rate, kbit/s: ServerHello bitrate, the grant for SetBitrate 0, the start rate (a non-zero ClientHello ask replaces it).") var bitrateKbps: UInt32 = 30_000
    @Flag(name: .customLong("follow-bitrate"), help: "Grow every AU with an HEVC filler-data NAL unit (type 38) after its slices to the granted rate's budget per frame: the most whole shards K with (K + parity(K))·(P + 74) ≤ (kbps − audio)·125/fps, video = K·P (P shard payload; 74 = media header, AEAD tag, IPv4/UDP). AUs already over it go as they are. Without --hevc the AUs are the embedded demo stream (640x360 HEVC, ≤ 4.4 KB an AU) instead of synthetic bytes. Logs {\"host_wire\":…} every second.") var followBitrate = false
    @Option(name: .customLong("bitrate-reason"), help: "How SetBitrate is answered: granted, encoder-limit:KBPS (min(ask, KBPS)), cadence, governor:KBPS (min(ask, KBPS)), pinned (the current rate). The reason byte is written only to a client whose hello set ABR bit0.") var bitrateReason = "granted"
    @Flag(help: "Advertise HOST_CAP2_RAMP and serve bring-up ramp steps (≤ 50 ms probes) without the 10 s probe spacing before the first frame (held --ramp-window-ms) and for 1 s after the last such step.") var ramp = false
    @Option(name: .customLong("ramp-window-ms"), help: "With --ramp: the first video frame waits this long after the data plane starts.") var rampWindowMs = 250.0
    @Option(name: .customLong("pipeline-gap-at"), help: "SECONDS[:GAP_MS] after the first frame: video stops GAP_MS (default 200), then PipelineGap {gap_ms} and a keyframe. Repeatable.") var pipelineGapAt: [String] = []
    @Flag(name: .customLong("log-wire"), help: "Log {\"host_wire\":…} (media wire kbit/s) every second without --follow-bitrate.") var logWire = false
    @Option(help: "JSON lines {\"frame\":N,\"datagram\":\"HEX\"} or {\"frame\":N,\"control\":\"HEX\"}: host datagrams (rumble, HID output, …) or control frames (StreamConfig, Reconfigured, …) sent before frame N.") var script: String?

    func validate() throws {
        guard (0...100).contains(loss) else { throw ValidationError("--loss must be 0…100") }
        guard fps > 0, auBytes > 0, frames >= 0 else { throw ValidationError("--fps and --au-bytes must be positive") }
        if let refuse, Self.parseCode(refuse) == nil { throw ValidationError("--refuse takes a close code such as 0x4A or 74") }
        if let pin, pin != "random", (try? PairingCeremony.normalizedPIN(pin)) == nil {
            throw ValidationError("--pin takes four digits (e.g. 0042) or 'random'")
        }
        if approveAfter != nil && deny { throw ValidationError("give --approve-after or --deny, not both") }
        if let approveAfter, approveAfter < 0 { throw ValidationError("--approve-after must not be negative") }
        guard approvalWait > 0, pendingEvery > 0, pending >= 0, sessions >= 0 else {
            throw ValidationError("--approval-wait and --pending-every must be positive; --pending and --sessions not negative")
        }
        if let audioJitterBurst, AudioJitterBurst(parsing: audioJitterBurst) == nil {
            throw ValidationError("--audio-jitter-burst takes START:SECONDS:MS, e.g. 16:1:20")
        }
        if videoAtAudioMarkers && audioMarkerEvery <= 0 { throw ValidationError("--video-at-audio-markers needs --audio-marker-every") }
        if HostBitratePolicy(parsing: bitrateReason) == nil {
            throw ValidationError("--bitrate-reason takes granted, encoder-limit:KBPS, cadence, governor:KBPS or pinned")
        }
        for gap in pipelineGapAt where PipelineGapEvent(parsing: gap) == nil {
            throw ValidationError("--pipeline-gap-at takes SECONDS[:GAP_MS], e.g. 20:300")
        }
        guard rampWindowMs >= 0, rampWindowMs < 60_000 else { throw ValidationError("--ramp-window-ms must be 0…60000") }
        if let redirect, Self.parseRedirect(redirect) == nil {
            throw ValidationError("--redirect takes HOST:PORT[:PIN], e.g. 127.0.0.1:9778 or :9778")
        }
    }

    /// `HOST:PORT[:PIN]`; HOST may be empty (same address), PIN is a 64-hex fingerprint.
    static func parseRedirect(_ text: String) -> Redirect? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, let port = UInt16(parts[1]), port != 0 else { return nil }
        var pin = ""
        if parts.count == 3 {
            guard let fp = CertificateFingerprint.normalize(parts[2]) else { return nil }
            pin = fp
        }
        return Redirect(addr: parts[0], port: port, pin: pin)
    }

    /// `--launch-outcome KIND[:MESSAGE]`.
    static func launchOutcome(_ text: String) -> LaunchOutcome? {
        let kinds: [String: LaunchOutcomeKind] = ["spawned": .spawned, "adopted": .adopted, "adopted-unknown": .adoptedUnknown,
                                                  "refused": .refused, "failed": .failed, "sign-in-needed": .signInNeeded]
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let kind = kinds[String(parts[0])] else { return nil }
        return LaunchOutcome(kind: kind, message: parts.count > 1 ? String(parts[1]) : "")
    }

    static func parseCode(_ text: String) -> UInt64? {
        text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }

    func run() throws {
        let identity: TLSIdentity
        if let identityDir {
            identity = try TLSIdentity.loadOrCreate(in: URL(fileURLWithPath: identityDir, isDirectory: true),
                                                    commonName: TLSIdentity.hostCommonName)
        } else {
            identity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        }
        let aus: [[UInt8]]
        if let hevc {
            let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: hevc)))
            aus = AccessUnitSplitter.splitPreservingBytes(data)
            guard !aus.isEmpty else { throw ValidationError("\(hevc) holds no HEVC access units") }
        } else if followBitrate {
            // Real HEVC the client decodes, small enough (≤ 4.4 KB an AU) for filler to set the rate.
            aus = DemoStream.accessUnits
        } else {
            aus = SyntheticAccessUnits.make(count: 60, bytes: auBytes, seed: seed)
        }
        guard let address = SocketAddress(ip: bind, port: port) else { throw ValidationError("--bind must be an IP literal") }
        var options = HostSession.Options(identity: identity, bind: address, accessUnits: anchorStream ? [] : aus)
        if anchorStream {
            let size = anchorSize.split(separator: "x").compactMap { Int($0) }
            guard size.count == 2, size[0] > 0, size[1] > 0, size[0] % 16 == 0, size[1] % 16 == 0 else {
                throw ValidationError("--anchor-size takes WxH, multiples of 16 (e.g. 320x192)")
            }
            var stream = AnchorStream.Configuration()
            stream.width = size[0]
            stream.height = size[1]
            stream.paddingBytes = max(0, pFramePadding)
            stream.idrInterval = idrInterval
            stream.seed = seed
            options.anchorStream = stream
            options.answersRFI = !keyframesOnly
        }
        options.loseAnswers = max(0, loseAnswers)
        if let sentStream {
            guard FileManager.default.createFile(atPath: sentStream, contents: nil),
                  let sent = FileHandle(forWritingAtPath: sentStream) else { throw ValidationError("cannot write \(sentStream)") }
            options.onFrameSent = { frame, au, flags in
                sent.write(Data(au))
                FileHandle.standardOutput.write(Data("{\"sent\":\(frame),\"flags\":\(flags),\"bytes\":\(au.count),\"mono_ns\":\(MonotonicClock.nowNs())}\n".utf8))
            }
        }
        options.onAsk = { ask, answer in
            let range = ask.invalidate.map { ",\"first\":\($0.first),\"last\":\($0.last)" } ?? ""
            let nack = ask.nack.map { ",\"nack\":\($0.frame)" } ?? ""
            FileHandle.standardOutput.write(Data(("{\"ask\":\(ask.number),\"keyframe\":\(ask.keyframe)\(range)\(nack),"
                + "\"answer\":\"\(answer.rawValue)\",\"mono_ns\":\(MonotonicClock.nowNs())}\n").utf8))
        }
        options.frames = frames
        options.fps = fps
        options.streamedAU = streamedAU
        options.sliceEncodeNs = UInt64(max(0, sliceEncodeMs) * 1e6)
        options.minStreamBlockShards = max(1, streamBlockShards)
        options.paceBitsPerSecond = UInt64(max(0, paceMbps) * 1e6)
        if logHostTiming {
            options.onHostTiming = { frame, t in
                let s = t.stages.map { ",\"queue_us\":\($0.queueUs),\"encode_us\":\($0.encodeUs),\"pace_us\":\($0.paceUs)" } ?? ""
                FileHandle.standardOutput.write(Data("{\"host_timing\":{\"frame\":\(frame),\"pts_ns\":\(t.ptsNs),\"host_us\":\(t.hostUs)\(s)}}\n".utf8))
            }
        }
        options.lossPercent = loss
        options.bitrateKbps = bitrateKbps
        options.followBitrate = followBitrate
        options.bitratePolicy = HostBitratePolicy(parsing: bitrateReason)!
        options.rampProbes = ramp
        options.rampWindowNs = UInt64(rampWindowMs * 1e6)
        options.pipelineGaps = pipelineGapAt.compactMap(PipelineGapEvent.init(parsing:))
        // One JSON line per SetBitrate, BitrateChanged and PipelineGap; one per second of wire output.
        options.onBitrateEvent = { event in FileHandle.standardOutput.write(Data((event.json + "\n").utf8)) }
        if followBitrate || logWire {
            options.onWireSecond = { second in FileHandle.standardOutput.write(Data((second.json + "\n").utf8)) }
        }
        options.seed = seed
        options.refuse = refuse.flatMap(Self.parseCode).map { CloseCode(code: $0) }
        options.maxSeconds = maxSeconds
        options.fecPercent = fec
        options.keyframeIndices = hevc == nil && !followBitrate ? [0] : AccessUnitSplitter.keyframeIndices(aus)
        options.blackoutAfterFrames = blackoutAfter
        options.blackoutSeconds = blackoutSeconds
        var toneHow: String?   // said after the banner, which tests and the harness read first
        if audio {
            let markerEvery = max(audioMarkerEvery, 0)
            let tone = try TestToneFeed { () throws(AudioError) in try OpusToneSource(markerEvery: markerEvery) }
            toneHow = tone.how
            options.audioSource = { _ in tone.next() }
            guard ["auto", "2", "6", "8"].contains(audioChannels), ["on", "off"].contains(audioRedundancy) else {
                throw ValidationError("--audio-channels must be auto, 2, 6 or 8; --audio-redundancy on or off")
            }
            options.audioChannels = UInt8(audioChannels)
            options.audioRedundancy = audioRedundancy == "on"
            // The layout is known once the client's hello is: stereo keeps the tone above (markers
            // and all), 6 and 8 channels get a tone per channel.
            options.makeAudioSource = { layout in
                FileHandle.standardOutput.write(Data("{\"audio_session\":{\"channels\":\(layout.channels),\"streams\":\(layout.streams),\"coupled\":\(layout.coupledStreams)}}\n".utf8))
                guard layout.channels > 2, let surround = try? OpusSurroundTone(layout: layout) else { return { _ in tone.next() } }
                let feed = SurroundToneFeed(surround)
                return { _ in feed.next() }
            }
            options.audioSkewPPM = audioSkewPPM
            options.audioLossPercent = audioLoss
            options.audioJitterNs = UInt64(max(0, audioJitterMs) * 1e6)
            let burst = audioJitterBurst.flatMap(AudioJitterBurst.init(parsing:))
            options.audioJitterBurst = burst
            let every = UInt32(max(audioMarkerEvery, 0))
            // Both callbacks run on the session thread: the newest marker, for its video frame.
            let newest = MarkerNote()
            options.onAudioProduced = { seq, due in
                if seq == 0, let burst {
                    FileHandle.standardOutput.write(Data(("{\"audio_jitter_burst\":{\"start_mono_ns\":\(due + burst.startNs),"
                        + "\"end_mono_ns\":\(due + burst.startNs + burst.durationNs),\"jitter_ms\":\(Double(burst.jitterNs) / 1e6)}}\n").utf8))
                }
                guard every > 0, seq % every == 0 else { return }
                newest.seq = seq
                newest.dueNs = due
                FileHandle.standardOutput.write(Data("{\"audio_marker\":{\"seq\":\(seq),\"due_mono_ns\":\(due)}}\n".utf8))
            }
            if videoAtAudioMarkers {
                options.videoAtAudioMarkers = every
                options.onVideoFrame = { frame, capture, pts in
                    guard capture == newest.dueNs else { return }
                    FileHandle.standardOutput.write(Data(("{\"video_marker\":{\"seq\":\(newest.seq),\"frame\":\(frame),"
                        + "\"capture_mono_ns\":\(capture),\"pts_ns\":\(pts)}}\n").utf8))
                }
            }
        }
        if let frameLog {
            guard FileManager.default.createFile(atPath: frameLog, contents: nil), let file = FileHandle(forWritingAtPath: frameLog) else {
                throw ValidationError("cannot write \(frameLog)")
            }
            let markers = options.onVideoFrame
            options.onVideoFrame = { frame, capture, pts in
                markers?(frame, capture, pts)
                file.write(Data("{\"frame\":\(frame),\"capture_mono_ns\":\(capture),\"pts_ns\":\(pts)}\n".utf8))
            }
        }
        let recorder = capture.map { LoopbackCapture(device: $0, seconds: captureSeconds, path: captureFile, skipSeconds: captureSkip) }
        recorder?.start()
        defer { if let recorder { FileHandle.standardOutput.write(Data((recorder.wait().json + "\n").utf8)) } }
        if let script { options.events = try ScriptFile.events(path: script) }
        options.pendingCount = pending
        options.pendingEveryNs = UInt64(pendingEvery * 1e9)
        options.redirect = redirect.flatMap(Self.parseRedirect)
        let trusted: PairedClients
        if let path = trustFile ?? identityDir.map({ "\($0)/\(PairedClients.fileName)" }) {
            trusted = try PairedClients(file: URL(fileURLWithPath: path))
        } else {
            trusted = PairedClients()
        }
        let window = PairingWindow()
        var armedPIN: String?
        if let pin {
            let chosen = pin == "random" ? PairingWindow.randomPIN() : pin
            try window.arm(pin: chosen)
            armedPIN = chosen
        }
        options.pairing = HostPairing(window: window, trusted: trusted)
        if requirePairing {
            let knock: HostAdmission.KnockPolicy = approveAfter.map { .approveAfter(UInt64($0 * 1e9)) }
                ?? (deny ? .denyAfter(1_000_000_000) : .ignore)
            options.admission = HostAdmission(requirePairing: true, trusted: trusted, knock: knock,
                                              pendingEvery: UInt64(pendingEvery * 1e9),
                                              approvalWait: UInt64(approvalWait * 1e9))
        }
        for cap in inputCaps.split(separator: ",") {
            switch cap {
            case "snapshots": options.hostCaps.insert(.gamepadState)
            case "edges": options.hostCaps2.insert(.inputEdges)
            case "scroll": options.hostCaps2.insert(.scroll)
            case "cursor": options.hostCaps.insert(.cursor)
            case "none": break
            default: throw ValidationError("--input-caps takes snapshots, edges, scroll, cursor or none")
            }
        }
        options.grants = AccessGrants(rawValue: grants)
        options.pointerCapturedFrom = pointerCapturedFrom
        if let launchOutcome {
            guard let outcome = Self.launchOutcome(launchOutcome) else {
                throw ValidationError("--launch-outcome takes KIND[:MESSAGE], KIND one of spawned, adopted, adopted-unknown, refused, failed, sign-in-needed")
            }
            options.launchOutcome = outcome
        }
        if let hdrMetadata {
            let digits = Array(hdrMetadata.filter(\.isHexDigit))
            let bytes = stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
            guard digits.count == 2 * HDRMetadata.encodedLength, let m = try? HDRMetadata(decoding: bytes) else {
                throw ValidationError("--hdr-metadata takes the 28-byte 0xCE body as 56 hex digits")
            }
            options.hdrMetadata = m
        }
        var inputLogHandle: FileHandle?
        if let inputLog {
            guard FileManager.default.createFile(atPath: inputLog, contents: nil), let h = FileHandle(forWritingAtPath: inputLog) else {
                throw ValidationError("cannot write \(inputLog)")
            }
            inputLogHandle = h
        }
        let series = try HostSessionSeries(options: options, sessions: sessions)
        FileHandle.standardError.write(Data("pf-testhost listening on \(series.localAddress) fingerprint \(identity.fingerprint)\n".utf8))
        if let toneHow { FileHandle.standardError.write(Data("pf-testhost: audio tone \(toneHow)\n".utf8)) }
        let responder = try mdns.map { name in
            try TestHostAnnouncement.start(name: name, id: mdnsId ?? String(identity.fingerprint.prefix(16)),
                                           fingerprint: identity.fingerprint, pair: requirePairing ? "required" : "optional",
                                           macs: mdnsMac, bind: bind, port: series.localAddress.port, mdnsPort: mdnsPort)
        }
        defer { responder?.stop() }
        if let armedPIN { FileHandle.standardError.write(Data("pf-testhost pairing armed, PIN \(armedPIN)\n".utf8)) }
        // Counters of finished sessions, folded in when the next one starts (memory stays flat).
        var finished = (frames: 0, dropped: 0, feedback: 0)
        var last: HostSession?
        series.onSession = { host in
            if let last { finished = (finished.frames + last.framesSent, finished.dropped + last.datagramsDropped,
                                      finished.feedback + last.feedbackReceived) }
            last = host
            host.onClientHello = { hello in
                FileHandle.standardOutput.write(Data((ClientHelloLog.json(hello) + "\n").utf8))
            }
            host.onClientDatagram = { result, now in
                FileHandle.standardOutput.write(Data((DatagramLog.json(result, monotonicNs: now) + "\n").utf8))
                guard let log = inputLogHandle else { return }
                switch result {
                case .success(.input(let e)): log.write(Data((DatagramLog.inputJSON(e, via: "datagram", monotonicNs: now) + "\n").utf8))
                case .success(.richInput(let r)): log.write(Data((DatagramLog.richJSON(r, monotonicNs: now) + "\n").utf8))
                default: break
                }
            }
            host.onClientControl = { message, now in
                // The Wayland harness's resize check reads this (Tests/wayland).
                if case .reconfigure(let request) = message {
                    FileHandle.standardError.write(Data("pf-testhost: the client asks for the mode \(request.mode)\n".utf8))
                }
                guard let log = inputLogHandle, case .inputEvent(let edge) = message,
                      let e = try? InputEvent(decoding: edge.event) else { return }
                log.write(Data((DatagramLog.inputJSON(e, via: "control", monotonicNs: now) + "\n").utf8))
            }
        }
        series.run()
        let framesSent = finished.frames + (last?.framesSent ?? 0)
        let dropped = finished.dropped + (last?.datagramsDropped ?? 0)
        let feedback = finished.feedback + (last?.feedbackReceived ?? 0)
        if trusted.count > 0 { FileHandle.standardError.write(Data("pf-testhost: \(trusted.count) paired device(s)\n".utf8)) }
        if let error = series.errors.last {
            FileHandle.standardError.write(Data("pf-testhost: \(error)\n".utf8))
            throw ExitCode(1)
        }
        FileHandle.standardError.write(Data("pf-testhost: sent \(framesSent) frames, dropped \(dropped) datagrams, received \(feedback) feedback datagrams\n".utf8))
        if let last {
            FileHandle.standardOutput.write(Data(("{\"host_summary\":{\"frames\":\(last.framesSent),\"idrs\":\(last.idrsSent),"
                + "\"anchors\":\(last.anchorsSent),\"keyframes_forced\":\(last.keyframesForced),"
                + "\"media_bytes\":\(last.mediaBytesSent),\"streamed_aus\":\(last.streamedSent),"
                + "\"host_timings\":\(last.hostTimingsSent)}}\n").utf8))
        }
    }
}

/// The newest audio marker pf-testhost logged (seq, due time), read when a video frame is sent.
/// Written and read on the session thread only.
private final class MarkerNote: @unchecked Sendable {
    var seq: UInt32 = 0
    var dueNs: UInt64 = .max
}
