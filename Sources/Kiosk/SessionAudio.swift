import Audio
import Foundation
import PunktfunkSession
import PunktfunkWire
import SystemClock

/// The audio of one live stream: picks the device once, then for each session the dialer makes
/// (first connect, redirect, resume) opens an `AudioOutput` — at its first audio datagram — for
/// the format its ServerHello resolved and hands it that session's audio datagrams, clock offset
/// and the video's latency.
/// A format the decoder refuses or a device that will not open costs a stderr line and the sound,
/// never the stream.
///
/// Threads: `attach` and the session callbacks run on the pump thread; `stats` and `stop` on any.
public final class SessionAudio: @unchecked Sendable {
    public let choice: AudioDeviceChoice
    public let realtimePriority: Int32
    /// `--mic DEVICE`: the capture device of the mic uplink, used when the host grants the mic.
    public let micDevice: String?
    /// Play the session's sound (false: `--audio none` with `--mic`: the uplink only).
    public let plays: Bool
    /// Channels the device plays (2, 6, 8: `AudioChannelCapability`) and why: what the hello asks
    /// for; a stream with more is folded down onto this many.
    public let deviceChannels: (channels: UInt8, reason: String)
    private let lock = NSLock()
    private var output: AudioOutput?
    private var mic: MicUplink?
    /// Host − client clock offset in force (pump thread).
    private var offsetNs: Int64 = 0
    /// Set once a picture reached glass: the skew is then taken against glass time, and the
    /// decode-time estimate of `noteVideo` no longer applies.
    private var onGlass = false

    /// - Parameter deviceChannels: the device's channels when already probed; nil probes
    ///   `choice.device` now (opens it without playing).
    public init(choice: AudioDeviceChoice, realtimePriority: Int32, micDevice: String? = nil, plays: Bool = true,
                deviceChannels: (channels: UInt8, reason: String)? = nil) {
        self.plays = plays
        self.deviceChannels = deviceChannels ?? (plays ? AudioChannelCapability.probe(device: choice.device) : (2, "no sound played"))
        self.choice = choice
        self.realtimePriority = realtimePriority
        self.micDevice = micDevice
    }

    /// The device by `--audio-device`, else the HDMI/DP output of `connector` (DRM node path and
    /// connector name, nil when headless), else `default`.
    public static func choose(explicit: String?, drmNode: String?, connector: String?) -> AudioDeviceChoice {
        if let explicit { return AudioDeviceChoice.choose(explicit: explicit, display: nil, outputs: []) }
        var display: (connector: String, identity: DisplayIdentity?)?
        if let drmNode, let connector {
            let card = (drmNode as NSString).lastPathComponent
            let edid = FileManager.default.contents(atPath: "/sys/class/drm/\(card)-\(connector)/edid").map { [UInt8]($0) }
            display = (connector, edid.flatMap { DisplayIdentity(edid: $0) })
        }
        return AudioDeviceChoice.choose(explicit: nil, display: display, outputs: AlsaCardScan.hdmiOutputs())
    }

    /// Pump thread, from `StreamPipeline.prepare`: plays `session`'s audio once it is established.
    public func attach(_ session: ClientSession) {
        var current: AudioOutput?
        var hello: ServerHello?
        let established = session.onEstablished
        session.onEstablished = { [self] params in
            established?(params)
            offsetNs = params.clockOffsetNs
            hello = params.serverHello
            stop()  // a resumed or redirected session's sound starts afresh with its first packet
            startMic(session, grants: params.serverHello.grants)
        }
        // The device opens with the first audio datagram: a host that sends none costs nothing.
        session.onAudio = { [self] packet in
            if current == nil, plays, let h = hello {
                hello = nil
                current = start(h)
                current?.setClockOffset(offsetNs)
            }
            current?.submit(packet, arrivalNs: MonotonicClock.nowNs())
        }
        let stats = session.onStats
        session.onStats = { [self] s in
            offsetNs = s.clockOffsetNs
            current?.setClockOffset(s.clockOffsetNs)
            stats?(s)
        }
    }

    /// Pump thread: a video access unit with host pts `ptsNs` arrived now and will take about
    /// `decodeNs` to decode: its capture → decoded latency on the client clock, for A/V sync.
    public func noteVideo(ptsNs: Int64, decodeNs: UInt64) {
        guard let output = lock.withLock({ onGlass ? nil : output }) else { return }
        let latency = Int64(bitPattern: MonotonicClock.realtimeNs()) &- (ptsNs &- offsetNs) &+ Int64(decodeNs)
        output.setVideoLatency(latency)
    }

    /// Presenting thread: a picture reached glass `latencyNs` after its host capture time (both on
    /// the local CLOCK_MONOTONIC). From then on the A/V skew is measured against glass time.
    public func noteVideoOnGlass(latencyNs: UInt64) {
        guard let output = lock.withLock({ () -> AudioOutput? in onGlass = true; return output }) else { return }
        output.setVideoLatency(Int64(min(latencyNs, UInt64(Int64.max))))
    }

    /// The playing output's newest figures (nil without one).
    public var stats: AudioOutputStats? { lock.withLock { output }?.stats }

    /// Stops the sound and the mic uplink (the stream ended).
    public func stop() {
        let (o, m) = lock.withLock { () -> (AudioOutput?, MicUplink?) in
            defer { output = nil; mic = nil }
            return (output, mic)
        }
        o?.stop()
        m?.stop()
    }

    /// The mic uplink for `session` when `--mic` is given and the host grants the mic (0xCB
    /// datagrams through the session's outbox).
    private func startMic(_ session: ClientSession, grants: AccessGrants) {
        guard let micDevice else { return }
        guard grants.contains(.mic) else {
            FileHandle.standardError.write(Data("punktfunk-kiosk: no mic uplink: the host does not grant the microphone\n".utf8))
            return
        }
        let uplink = MicUplink(device: micDevice)
        let outbox = session.outbox
        uplink.send = { seq, pts, bytes in
            _ = outbox.send(.mic(AudioFrame(seq: seq, ptsNs: pts, payload: Array(bytes))))
        }
        lock.withLock { mic = uplink }
        uplink.start()
    }

    private func start(_ hello: ServerHello) -> AudioOutput? {
        let previous = lock.withLock { () -> AudioOutput? in defer { output = nil }; return output }
        previous?.stop()
        var settings = AudioOutput.Settings(device: choice.device, reason: choice.reason)
        settings.realtimePriority = realtimePriority
        settings.deviceChannels = Int(deviceChannels.channels)
        let made: AudioOutput
        do { made = try AudioOutput(format: AudioStreamFormat(serverHello: hello), settings: settings) } catch {
            FileHandle.standardError.write(Data("punktfunk-kiosk: no sound: the session's audio cannot be decoded (\(error))\n".utf8))
            return nil
        }
        made.start()
        lock.withLock { output = made }
        return made
    }
}
