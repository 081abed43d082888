/// A tiny HEVC Main encoder for the test host that answers reference-frame invalidation the way a
/// real encoder does: with an anchor P picture that predicts only from a picture the client
/// still holds cleanly.
///
/// Stream: VPS/SPS/PPS before every IDR; the IDR is a PCM test pattern (new per IDR); every other
/// picture is one P slice that moves its reference by one motion vector (`AnchorMotion`). A
/// picture whose POC is a multiple of `checkpointEvery` is a checkpoint. Each P picture's
/// short-term RPS keeps the previous picture (its reference) and the newest `checkpointsKept`
/// checkpoints, so after a loss the client still holds recent clean checkpoints.
///
/// `invalidate(first:last:)` taints every picture from `first` on: a tainted picture is never a
/// reference again. The next picture is then an anchor that predicts from the newest checkpoint
/// before `first` (its RPS keeps only clean checkpoints), or an IDR when there is none. A client
/// that never received `first`…(anchor − 1) decodes the anchor and everything after it
/// bit-exactly like one that did.
///
/// Sans-I/O and deterministic: the output depends only on the configuration and the calls.
/// Frame indices are the wire's u32 and wrap; "a is after b" means Int32(bitPattern: a &- b) > 0.
public struct AnchorStream: Sendable {
    public struct Configuration: Sendable {
        /// Luma size; multiples of 16.
        public var width = 320, height = 192
        /// Frames (POC steps) between checkpoints; ≥ 1.
        public var checkpointEvery = 8
        /// Checkpoints every picture keeps, 1…14 (the DPB also holds the previous and the
        /// current picture: sps_max_dec_pic_buffering = checkpointsKept + 2 ≤ 16).
        public var checkpointsKept = 12
        /// Frames between periodic IDRs; nil = only the first and on request.
        public var idrInterval: Int? = nil
        /// Bytes of filler data (a FD_NUT NAL unit of 0xFF bytes, which decoders discard) after
        /// the slice of every P and anchor access unit, to emulate a realistic bitrate. 0 = none.
        public var paddingBytes = 0
        /// Seeds the IDR test patterns (mixed with the IDR's count).
        public var seed: UInt64 = 1
        public init() {}
    }

    public enum Kind: Equatable, Sendable {
        case idr, predicted
        /// Predicted from the checkpoint with this wire frame index.
        case anchor(reference: UInt32)
    }

    public struct Frame: Sendable {
        /// One access unit, Annex-B with 4-byte start codes.
        public var bytes: [UInt8]
        public var kind: Kind
        /// 0x04 IDR, 0x20 anchor, 0 otherwise.
        public var userFlags: UInt32
    }

    /// A picture the DPB holds for later prediction.
    private struct Reference: Sendable {
        var frame: UInt32
        /// Frames since its IDR.
        var poc: Int32
    }

    private let configuration: Configuration
    private let parameterSets: [UInt8]
    private var keyframePending = true
    /// The first invalidated frame an anchor must avoid (the earliest of pending asks).
    private var anchorPendingFirst: UInt32?
    private var idrCount: UInt64 = 0
    private var idrFrame: UInt32 = 0
    /// The last coded picture: the next P picture's reference.
    private var previous: Reference?
    /// Clean checkpoints in the DPB, newest first, at most `checkpointsKept`.
    private var checkpoints: [Reference] = []

    public init(configuration: Configuration = .init()) {
        let c = configuration
        precondition(c.width > 0 && c.height > 0 && c.width % 16 == 0 && c.height % 16 == 0,
                     "AnchorStream: width and height must be multiples of 16")
        precondition((1...14).contains(c.checkpointsKept), "AnchorStream: checkpointsKept must be 1…14")
        precondition(c.checkpointEvery >= 1 && c.checkpointEvery * (c.checkpointsKept + 1) < 1 << 15,
                     "AnchorStream: checkpoints must stay within a POC distance of 2^15")
        precondition(c.idrInterval.map { $0 >= 1 } ?? true && c.paddingBytes >= 0)
        self.configuration = c
        parameterSets = SyntheticParameterSets(width: c.width, height: c.height,
                                               maxDecPicBufferingMinus1: c.checkpointsKept + 1).annexB()
    }

    /// The access unit for wire frame index `frame` (consecutive, wrapping). The POC is the
    /// distance from the last IDR's frame index, so an index not after it starts a new IDR.
    public mutating func next(frame: UInt32) -> Frame {
        let sinceIDR = frame &- idrFrame
        let periodicDue = configuration.idrInterval.map { UInt64(sinceIDR) >= UInt64($0) } ?? false
        guard !keyframePending, !periodicDue, let previous, Int32(bitPattern: sinceIDR) > 0 else {
            return idr(frame: frame)
        }
        let poc = Int32(bitPattern: sinceIDR)
        let reference: Reference
        var rps: [Reference]
        let kind: Kind
        if anchorPendingFirst != nil, let newest = checkpoints.first {
            reference = newest
            rps = checkpoints
            kind = .anchor(reference: newest.frame)
        } else {
            reference = previous
            rps = [previous] + checkpoints.filter { $0.frame != previous.frame }
            kind = .predicted
        }
        anchorPendingFirst = nil
        rps.sort { $0.poc > $1.poc }
        let motion = AnchorMotion.position(poc: poc) - AnchorMotion.position(poc: reference.poc)
        var bytes = SyntheticSlices.predicted(
            width: configuration.width, height: configuration.height, pocLsb: UInt16(truncatingIfNeeded: poc),
            references: rps.map { ShortTermReference(deltaPoc: $0.poc - poc, usedByCurrPic: $0.frame == reference.frame) },
            motion: motion)
        if configuration.paddingBytes > 0 {
            bytes += NALUnitWriter.annexB(.fillerData, rbsp: [UInt8](repeating: 0xFF, count: configuration.paddingBytes) + [0x80])
        }
        record(Reference(frame: frame, poc: poc))
        return Frame(bytes: bytes, kind: kind, userFlags: kind == .predicted ? 0 : 0x20)
    }

    /// A keyframe ask: the next frame is an IDR.
    public mutating func forceKeyframe() {
        keyframePending = true
    }

    /// An RFI ask: frames `first`…`last` are lost, so every frame from `first` on is tainted.
    /// Returns true when an anchor will answer it, false when the next frame is an IDR (no clean
    /// checkpoint before `first` is left, or an IDR is already due).
    @discardableResult public mutating func invalidate(first: UInt32, last: UInt32) -> Bool {
        guard !keyframePending else { return false }
        var start = first
        if let pending = anchorPendingFirst, Int32(bitPattern: start &- pending) > 0 { start = pending }
        checkpoints.removeAll { Int32(bitPattern: start &- $0.frame) <= 0 }
        guard !checkpoints.isEmpty else {
            keyframePending = true
            anchorPendingFirst = nil
            return false
        }
        anchorPendingFirst = start
        return true
    }

    private mutating func idr(frame: UInt32) -> Frame {
        idrCount &+= 1
        idrFrame = frame
        keyframePending = false
        anchorPendingFirst = nil
        checkpoints = []
        let picture = SyntheticPicture(testPatternWidth: configuration.width, height: configuration.height,
                                       seed: configuration.seed &+ idrCount &* 0x9E37_79B9_7F4A_7C15)
        record(Reference(frame: frame, poc: 0))
        return Frame(bytes: parameterSets + SyntheticSlices.idr(picture), kind: .idr, userFlags: 0x04)
    }

    /// The coded picture becomes the next reference, and a checkpoint when its POC says so.
    private mutating func record(_ picture: Reference) {
        previous = picture
        if Int(picture.poc) % configuration.checkpointEvery == 0 {
            checkpoints.insert(picture, at: 0)
            if checkpoints.count > configuration.checkpointsKept { checkpoints.removeLast() }
        }
    }
}
