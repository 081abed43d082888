import Foundation
import PunktfunkSession
import PunktfunkWire
import VideoDecode
import VideoFrames

/// A live session end to end, minus the glass: the pump thread (`SessionDialer` →
/// `ClientSession`: dial, handshake, media, feedback, resume), the decode thread (`DecodeStage`),
/// and decoded pictures waiting in `stage.output` for whoever presents them on the calling side.
///
/// Threads: `start()` spawns the pump and decode threads; callbacks of the session run on the
/// pump thread; a decoder keyframe request reaches the session through its outbox (thread-safe).
/// `wait()` blocks until the session ended and the decoder drained; `stop()` ends it early (the
/// pump quits with 0x51 at its next pass).
public final class StreamPipeline: @unchecked Sendable {
    public let stage: DecodeStage
    public let options: ClientSession.Options
    /// Installed on each ClientSession the dialer creates (stats, audio, …), after the pipeline's own.
    public var prepare: (ClientSession) -> Void = { _ in }
    public var onResume: (Int) -> Void = { _ in }
    /// The host's newest static HDR metadata (0xCE datagrams), for the presenting thread.
    public let hostHDR = LatestHDRMetadata()

    private let lock = NSLock()
    private var current: ClientSession?
    private var _result: Result<ClientSession, SessionError>?
    private var _stopRequested = false
    private let ended = DispatchSemaphore(value: 0)

    public init(options: ClientSession.Options, decoder: DecoderLadder.Configuration) {
        self.options = options
        stage = DecodeStage(configuration: decoder)
    }

    /// How the session ended (nil while it runs).
    public var result: Result<ClientSession, SessionError>? { lock.withLock { _result } }
    /// The session running now (after a redirect or resume, the newest).
    public var session: ClientSession? { lock.withLock { current } }

    public func start() {
        stage.onKeyframeRequest = { [weak self] in self?.session?.outbox.requestKeyframe() }
        stage.start()
        let thread = Thread { [self] in
            let stage = self.stage
            let result: Result<ClientSession, SessionError>
            do throws(SessionError) {
                let session = try SessionDialer.run(options, prepare: { session in
                    session.onAccessUnit = { au in
                        stage.submit(DecodeStage.Unit(bytes: Array(au.data), frame: au.frame, ptsNs: au.ptsNs, keyframe: au.isKeyframe))
                    }
                    let hostHDR = self.hostHDR
                    session.onHostDatagram = { datagram in
                        if case .hdrMetadata(let m) = datagram { hostHDR.offer(HDRStaticMetadata(wire: m)) }
                    }
                    let stopped = self.lock.withLock { () -> Bool in self.current = session; return self._stopRequested }
                    if stopped { session.outbox.requestQuit() }
                    self.prepare(session)
                }, onResume: onResume)
                result = .success(session)
            } catch {
                result = .failure(error)
            }
            lock.withLock { _result = result }
            stage.finish()
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
}
