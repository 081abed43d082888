import Foundation
import HEVC
import SystemClock
import VideoFrames

/// The decoder rungs, best first.
public enum DecoderRungKind: String, Sendable, Codable, CaseIterable {
    case vaapi
    /// The kernel's V4L2 stateless (request API) decoders of ARM boards.
    case v4l2
    case software

    /// The rungs `auto` means, best first.
    public static let automatic: [DecoderRungKind] = [.vaapi, .v4l2, .software]
}

/// The session's decoder: VA-API, then V4L2 stateless, then libavcodec.
///
/// - Every rung error (a driver failure, an access unit that does not decode) asks the host for
///   a keyframe through `onKeyframeRequest`; so do planner warnings that leave a picture inexact.
/// - Three errors spread over at least one second, with no good picture in between, demote to
///   the next rung (the last rung is kept whatever happens); a stream the rung cannot decode at
///   all (profile or format it lacks) demotes at once.
/// - A rung whose hardware is simply absent (no V4L2 stateless decoder on an x86 box) is skipped
///   without a warning while a later rung remains (`absentRungs`).
/// - A rung started mid-stream (the first one too) is fed nothing until an access unit with an
///   IRAP picture; it asks for a keyframe when it starts. That access unit gets the newest
///   parameter sets seen in front when it carries none.
///
/// `decode` never throws and never traps: bad input becomes warnings (`onWarning`), keyframe
/// requests and, eventually, a demotion. Not thread-safe: use from one task.
public final class DecoderLadder {
    public struct Configuration {
        /// Rungs to try, in order.
        public var rungs: [DecoderRungKind]
        /// Errors (with the window below) that demote a rung.
        public var errorsToDemote: Int
        /// The errors must span at least this many nanoseconds.
        public var demotionWindowNanos: UInt64
        /// Opens the VA display (default: the first render node that initialises).
        public var openVADisplay: () throws -> VADisplayConnection
        /// Chooses the V4L2 stateless decoder (default: `V4L2Decoders.choose()`, the first that
        /// is not a virtual test driver, or PUNKTFUNK_V4L2_DEVICE).
        public var chooseV4L2Device: () throws -> V4L2DecoderDevice
        /// Surfaces beyond max DPB + 1 for pictures held by the display (VA-API rung).
        public var headroom: Int
        /// libavcodec slice threads (nil: its default).
        public var softwareThreads: Int?
        /// The VA-API rung's sync path (`decode-sync`; `.auto`: `DecodeSyncDecision`'s table).
        public var decodeSync: DecodeSyncSetting = .auto

        public init(rungs: [DecoderRungKind] = DecoderRungKind.automatic, errorsToDemote: Int = 3,
                    demotionWindowNanos: UInt64 = 1_000_000_000,
                    openVADisplay: @escaping () throws -> VADisplayConnection = { try VADisplayConnection.openFirst() },
                    chooseV4L2Device: @escaping () throws -> V4L2DecoderDevice = { try V4L2Decoders.choose() },
                    headroom: Int = 8, softwareThreads: Int? = nil) {
            self.rungs = rungs; self.errorsToDemote = max(1, errorsToDemote)
            self.demotionWindowNanos = demotionWindowNanos; self.openVADisplay = openVADisplay
            self.chooseV4L2Device = chooseV4L2Device
            self.headroom = headroom; self.softwareThreads = softwareThreads
        }
    }

    /// Asked whenever a keyframe (IRAP) would repair the stream. Called on the decode thread.
    public var onKeyframeRequest: () -> Void = {}
    /// Human-readable notices (rung errors, concealment, demotions).
    public var onWarning: (String) -> Void = { _ in }

    public let configuration: Configuration
    /// The rung in use; nil when none could be started.
    public var activeRung: DecoderRungKind? { rung?.kind }
    /// True while the active rung waits for an IRAP picture.
    public private(set) var awaitingIRAP = true
    /// Every demotion so far: the rung left and why.
    public private(set) var demotions: [(from: DecoderRungKind, reason: String)] = []
    /// Errors of the active rung since its last good picture (monotonic ns).
    public private(set) var errorTimes: [UInt64] = []
    /// Rung errors since the ladder started, all rungs.
    public private(set) var errorCount = 0
    /// Rungs that could not start, with the reason (also sent to `onWarning` once it is set
    /// for rungs tried later).
    public private(set) var unavailableRungs: [(rung: DecoderRungKind, reason: String)] = []
    /// Rungs skipped without a warning because their hardware is absent, with the reason.
    public private(set) var absentRungs: [(rung: DecoderRungKind, reason: String)] = []

    private var rung: (any LadderRung)?
    private var parameterSets = ParameterSetCache()
    private var nextRungIndex = 0
    private let now: () -> UInt64

    /// - Parameter clock: monotonic nanoseconds (tests pass a fake clock).
    public init(configuration: Configuration = Configuration(), clock: @escaping () -> UInt64 = MonotonicClock.nowNs) {
        self.configuration = configuration
        now = clock
        startNextRung(reason: nil)
    }

    /// Decodes one access unit (Annex-B bytes); returns the pictures ready for display.
    public func decode(accessUnit: [UInt8], pts: Int64) -> [DecodedPicture] {
        decodeReporting(accessUnit: accessUnit, pts: pts).pictures
    }

    /// Decodes one access unit (Annex-B bytes) and says which pictures are known to be inexact,
    /// whether the rung failed, and whether it skipped the access unit on purpose.
    public func decodeReporting(accessUnit: [UInt8], pts: Int64) -> DecodeReport {
        var report = DecodeReport()
        guard let current = rung else {
            report.failed = true
            return report
        }
        parameterSets.observe(accessUnit)
        var input = accessUnit
        if awaitingIRAP {
            guard AccessUnitSplitter.containsIRAP(accessUnit) else {
                report.skipped = true
                return report
            }
            awaitingIRAP = false
            input = parameterSets.completed(accessUnit)  // the host may have sent them only once
        }
        do {
            let out = try current.decode(accessUnit: input, pts: pts)
            for w in out.warnings { onWarning("\(current.kind.rawValue): \(w)") }
            if out.requestsKeyframe { onKeyframeRequest() }
            if out.decodedPicture { errorTimes.removeAll() }
            report.pictures = out.pictures
            report.damaged = out.pictures.map(\.damaged)
            report.skipped = out.skipped
            return report
        } catch {
            onWarning("\(current.kind.rawValue): \(error)")
            onKeyframeRequest()
            errorCount += 1
            let t = now()
            errorTimes.append(t)
            if Self.rungCannotDecodeStream(error), nextRungIndex < configuration.rungs.count {
                startNextRung(reason: "\(error)")
            } else if errorTimes.count >= configuration.errorsToDemote, let first = errorTimes.first,
               t &- first >= configuration.demotionWindowNanos, nextRungIndex < configuration.rungs.count {
                startNextRung(reason: "\(errorTimes.count) errors in \(Double(t &- first) / 1e9) s, last: \(error)")
            }
            report.failed = true
            return report
        }
    }

    /// Drops the active rung's reference pictures and pictures waiting for output (their
    /// surfaces and leases go back; pictures already returned stay valid) and makes it wait for
    /// the next IRAP picture: what a client does before the keyframe that ends a freeze. The
    /// software rung flushes libavcodec (avcodec_flush_buffers). Asks for no keyframe itself.
    public func restart() {
        rung?.restart()
        awaitingIRAP = true
    }

    /// End of stream: the pictures the active rung still holds.
    public func flush() -> [DecodedPicture] { rung?.flush() ?? [] }

    /// Builds the next rung that starts; records why the previous one was left.
    private func startNextRung(reason: String?) {
        if let old = rung, let reason {
            demotions.append((old.kind, reason))
            onWarning("demoted from \(old.kind.rawValue): \(reason)")
        }
        rung = nil
        errorTimes = []
        awaitingIRAP = true
        while nextRungIndex < configuration.rungs.count {
            let kind = configuration.rungs[nextRungIndex]
            nextRungIndex += 1
            do {
                rung = try makeRung(kind)
                break
            } catch {
                if Self.rungHardwareAbsent(error), nextRungIndex < configuration.rungs.count {
                    absentRungs.append((kind, "\(error)"))
                    continue
                }
                unavailableRungs.append((kind, "\(error)"))
                onWarning("\(kind.rawValue) rung unavailable: \(error)")
            }
        }
        if reason != nil, rung != nil { onKeyframeRequest() }
    }

    private func makeRung(_ kind: DecoderRungKind) throws -> any LadderRung {
        switch kind {
        case .vaapi:
            let connection = try configuration.openVADisplay()
            return StatelessRung(try VAAPIDecoder(connection: connection, headroom: configuration.headroom,
                                                  sync: configuration.decodeSync), kind: .vaapi)
        case .v4l2:
            return StatelessRung(V4L2Decoder(device: try configuration.chooseV4L2Device(), headroom: configuration.headroom), kind: .v4l2)
        case .software:
            return SoftwareRung(try SoftwareDecoder(threads: configuration.softwareThreads))
        }
    }

    /// Errors that will repeat for every picture of the stream (a profile or format the rung
    /// does not have): demote at once instead of waiting for the error window.
    static func rungCannotDecodeStream(_ error: any Error) -> Bool {
        // A driver that refuses the controls it was designed for refuses every picture.
        switch error as? V4L2Error {
        case .unsupportedStream?, .controlsRefused?: return true
        default: break
        }
        switch error as? VAAPIError {
        case .profileUnsupported?, .unsupportedStream?: return true
        default: return false
        }
    }

    /// The rung's hardware does not exist on this box (not a failure of hardware that does).
    static func rungHardwareAbsent(_ error: any Error) -> Bool {
        if case .noDecoder? = error as? V4L2Error { return true }
        return false
    }

}

/// What a rung made of one access unit.
struct RungOutput {
    var pictures: [DecodedPicture]
    var warnings: [String]
    var requestsKeyframe: Bool
    /// A picture was decoded without error (resets the demotion count).
    var decodedPicture: Bool
    /// The rung took no picture from the access unit on purpose (see `DecodeReport.skipped`).
    var skipped = false
}

protocol LadderRung: AnyObject {
    var kind: DecoderRungKind { get }
    func decode(accessUnit: [UInt8], pts: Int64) throws -> RungOutput
    func flush() -> [DecodedPicture]
    /// Drops the DPB and pictures waiting for output; waits for the next IRAP picture.
    func restart()
}

/// A hardware rung (VA-API, V4L2): the planner's pictures as exported surfaces.
final class StatelessRung: LadderRung {
    let decoder: any StatelessDecoder
    let kind: DecoderRungKind
    init(_ decoder: any StatelessDecoder, kind: DecoderRungKind) { self.decoder = decoder; self.kind = kind }

    func decode(accessUnit: [UInt8], pts: Int64) throws -> RungOutput {
        let waiting = decoder.awaitingIRAP
        let out = try decoder.decode(accessUnit: accessUnit, pts: pts)
        // A picture was decoded unless the planner skipped the access unit.
        let skipped = out.warnings.contains {
            switch $0 {
            case .awaitingIRAP, .raslSkipped, .missingParameterSet, .noFirstSliceSegment, .surfacePoolExhausted: true
            default: false
            }
        }
        // On purpose: the planner waits for an IRAP picture or drops a RASL picture (8.1.3).
        let onPurpose = out.warnings.contains {
            switch $0 {
            case .awaitingIRAP, .raslSkipped: true
            default: false
            }
        }
        return RungOutput(pictures: out.pictures.map { .dmaBuf($0) }, warnings: out.warnings.map(\.description),
                          requestsKeyframe: out.requestsKeyframe, decodedPicture: !skipped && !(waiting && decoder.awaitingIRAP),
                          skipped: onPurpose)
    }

    func restart() { decoder.restart() }

    func flush() -> [DecodedPicture] {
        ((try? decoder.flush())?.pictures ?? []).map { .dmaBuf($0) }
    }
}

final class SoftwareRung: LadderRung {
    let decoder: SoftwareDecoder
    /// The last picture out was damaged: the next damaged one is the same loss, not a new one.
    private var inDamage = false
    init(_ decoder: SoftwareDecoder) { self.decoder = decoder }
    var kind: DecoderRungKind { .software }

    func decode(accessUnit: [UInt8], pts: Int64) throws -> RungOutput {
        let frames = try decoder.decode(accessUnit: accessUnit, pts: pts)
        // One warning and keyframe request per run of damaged pictures: libavcodec conceals a
        // missing reference silently, and every picture up to the next IRAP is damaged after it.
        let startsDamage = !inDamage && frames.contains(where: \.damaged)
        if let last = frames.last { inDamage = last.damaged }
        let skipped: Bool
        switch decoder.lastSkip {
        case .awaitingIRAP?, .raslSkipped?: skipped = true
        default: skipped = false
        }
        return RungOutput(pictures: frames.map { .cpu($0) },
                          warnings: startsDamage ? ["picture decoded from a reference libavcodec never received (concealed)"] : [],
                          requestsKeyframe: startsDamage, decodedPicture: true, skipped: skipped)
    }

    func flush() -> [DecodedPicture] { decoder.flush().map { .cpu($0) } }

    func restart() {
        decoder.restart()
        inDamage = false
    }
}
