import Foundation
import PunktfunkSession
import PunktfunkWire
import VideoDecode
import VideoFrames

/// A live session end to end, minus the glass: the pump thread (`SessionDialer` →
/// `ClientSession`: dial, handshake, media, feedback, resume), the decode thread (`DecodeStage`,
/// when decoding), and decoded pictures waiting in `stage.output` for whoever presents them.
///
/// Threads: `start()` spawns the pump and decode threads; callbacks of the session and
/// `onProgress` run on the pump thread; a decoder keyframe request reaches the session through
/// its outbox (thread-safe). `wait()` blocks until the session ended and the decoder drained;
/// `stop()` ends it early (the pump quits with 0x51 at its next pass).
public final class StreamPipeline: @unchecked Sendable {
    /// The decode thread; nil when the session runs without decoding (headless AU dumps).
    public let stage: DecodeStage?
    public let options: ClientSession.Options
    /// Installed on each ClientSession the dialer creates (stats, audio, …), after the pipeline's own.
    public var prepare: (ClientSession) -> Void = { _ in }
    /// Progress for the application, on the pump thread: established (each session, after a
    /// redirect or resume too), resuming, and finally `.ended` once the decoder drained.
    public var onProgress: @Sendable (StreamEvent) -> Void = { _ in }
    /// Each complete AU before it is decoded (bytes valid during the call; pump thread).
    public var onAccessUnit: ((AccessUnit) -> Void)?
    /// The host's newest static HDR metadata (0xCE datagrams), for the presenting thread.
    public let hostHDR = LatestHDRMetadata()
    /// `--rate-log`: the rate loop's line per Feedback window (set before `start()`).
    public var rateLog: JSONLinesFile?

    private let lock = NSLock()
    private var current: ClientSession?
    private var _result: Result<ClientSession, SessionError>?
    private var _stopRequested = false
    private let ended = DispatchSemaphore(value: 0)

    public init(options: ClientSession.Options, decoder: DecoderLadder.Configuration?) {
        self.options = options
        stage = decoder.map { DecodeStage(configuration: $0) }
    }

    /// How the session ended (nil while it runs).
    public var result: Result<ClientSession, SessionError>? { lock.withLock { _result } }
    /// The session running now (after a redirect or resume, the newest).
    public var session: ClientSession? { lock.withLock { current } }

    public func start() {
        if let stage {
            stage.onKeyframeRequest = { [weak self] in self?.session?.outbox.requestKeyframe() }
            stage.onCleanPicture = { [weak self] frame in self?.session?.outbox.noteDecoded(frame: frame) }
            stage.start()
        }
        let thread = Thread { [self] in
            let stage = self.stage
            let progress = self.onProgress
            let observe = self.onAccessUnit
            let dialled = options.remote
            let result: Result<ClientSession, SessionError>
            do throws(SessionError) {
                let session = try SessionDialer.run(options, prepare: { session in
                    session.onAccessUnit = { au in observe?(au) }
                    session.onVideoFrame = { au, order in
                        var unit = DecodeStage.Unit(bytes: Array(au.data), frame: au.frame, ptsNs: au.ptsNs,
                                                    userFlags: au.userFlags, order: order)
                        unit.completeNs = au.lastArrivalNs
                        stage?.submit(unit)
                    }
                    if let rateLog = self.rateLog { session.onRateWindow = { rateLog.write($0) } }
                    let hostHDR = self.hostHDR
                    session.onHostDatagram = { datagram in
                        if case .hdrMetadata(let m) = datagram { hostHDR.offer(HDRStaticMetadata(wire: m)) }
                    }
                    session.onEstablished = { [unowned session] _ in
                        progress(.established(peerFingerprint: session.peerFingerprint,
                                              redirected: session.options.remote != dialled))
                    }
                    let stopped = self.lock.withLock { () -> Bool in self.current = session; return self._stopRequested }
                    if stopped { session.outbox.requestQuit() }
                    self.prepare(session)
                }, onResume: { progress(.resuming(attempt: $0)) })
                result = .success(session)
            } catch {
                result = .failure(error)
            }
            lock.withLock { _result = result }
            stage?.finish()
            switch result {
            case .success: progress(.ended(.finished))
            case .failure(let error): progress(.ended(.failed(sentence: error.description)))
            }
            ended.signal()
        }
        thread.name = "pump"
        thread.stackSize = 1 << 22
        thread.start()
    }

    /// Ends the session (deliberate quit) soon; any thread. Also stops a dialer between attempts.
    public func stop() {
        lock.withLock { _stopRequested = true }
        session?.outbox.requestQuit()
    }

    /// Blocks until the session ended and the decoder drained (pictures may remain in
    /// `stage.output`).
    public func wait() {
        ended.wait()
        ended.signal()
    }

    /// Waits up to `seconds` for the end. - Returns: whether it ended.
    public func wait(seconds: Double) -> Bool {
        guard ended.wait(timeout: .now() + seconds) == .success else { return false }
        ended.signal()
        return true
    }
}
