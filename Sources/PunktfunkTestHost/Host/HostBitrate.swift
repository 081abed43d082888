import HEVC
import PunktfunkWire

/// How a test host answers SetBitrate (control-plane.md §5.1): which rate it grants and the reason
/// it gives (written only to a client whose hello set `ABRFeatures.ackReason`). Pure.
public enum HostBitratePolicy: Sendable, Equatable {
    /// Grants the ask.
    case granted
    /// Grants min(ask, cap), reason EncoderLimit (1) when capped.
    case encoderLimit(UInt32)
    /// Grants the ask, reason Cadence (2): the encoder is behind (an ack a client must not read as
    /// headroom).
    case cadence
    /// Grants min(ask, cap), reason Governor (3) when capped (the shared-path governor).
    case governor(UInt32)
    /// Grants the current rate whatever is asked, reason Pinned (4).
    case pinned

    /// `granted`, `encoder-limit:KBPS`, `cadence`, `governor:KBPS`, `pinned`; nil otherwise.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first ?? "", parts.count) {
        case ("granted", 1): self = .granted
        case ("cadence", 1): self = .cadence
        case ("pinned", 1): self = .pinned
        case ("encoder-limit", 2): guard let k = UInt32(parts[1]), k > 0 else { return nil }; self = .encoderLimit(k)
        case ("governor", 2): guard let k = UInt32(parts[1]), k > 0 else { return nil }; self = .governor(k)
        default: return nil
        }
    }

    /// The grant for an ask of `asked` kbps (already resolved: SetBitrate 0 = the host default)
    /// while `current` is in force, and its reason.
    public func answer(asked: UInt32, current: UInt32) -> (kbps: UInt32, reason: BitrateChangeReason) {
        switch self {
        case .granted: return (asked, .granted)
        case .cadence: return (asked, .cadence)
        case .pinned: return (current, .pinned)
        case .encoderLimit(let cap): return asked > cap ? (cap, .encoderLimit) : (asked, .granted)
        case .governor(let cap): return asked > cap ? (cap, .governor) : (asked, .granted)
        }
    }
}

/// The video bytes one frame may carry at a wire rate, and the filler that grows an AU to them.
public enum HostFrameBudget {
    /// Wire bytes per shard beyond its payload: the media header (30), the AEAD tag (16) and
    /// IPv4 + UDP (28), as pf-relay's bottleneck counts a datagram.
    public static let shardOverheadBytes = MediaHeader.length + 16 + 28

    /// The video bytes one frame may carry so that its wire bytes stay within the rate's share:
    /// wire = (kbps − audioKbps)·125/fps bytes per frame; the budget is the most whole shards K
    /// with (K + parity(K))·(P + 74) ≤ wire, video = K·P. This is the proportional budget
    /// (wire − audio)·P/(P+overhead)·100/(100+fec) made exact for what the packetizer sends: the
    /// minimum of 2 parity shards per block, parity rounded up, the last shard padded to P. Blocks
    /// are assumed to hold all K (true below `maxDataPerBlock`·P ≈ 5.7 MB).
    public static func videoBytesPerFrame(kbps: UInt32, fps: Double, shardPayload: Int, fecPercent: Int,
                                          audioKbps: UInt32 = 0) -> Int {
        guard fps > 0, kbps > audioKbps, shardPayload > 0 else { return 0 }
        let wire = Double(kbps - audioKbps) * 125 / fps
        let perShard = Double(shardPayload + shardOverheadBytes)
        func fits(_ k: Int) -> Bool { Double(k + Packetizer.recoveryFor(k: k, percent: fecPercent)) * perShard <= wire }
        // Start from the proportional estimate and walk to the exact K.
        var k = max(0, Int(wire / perShard * 100 / Double(100 + max(fecPercent, 0))))
        while k > 0, !fits(k) { k -= 1 }
        while fits(k + 1) { k += 1 }
        return k * shardPayload
    }

    /// The smallest filler NAL unit: 4-byte start code, 2-byte header, the 0x80 trailing byte.
    public static let minimumFillerBytes = 7

    /// One HEVC filler-data NAL unit (FD_NUT, nal_unit_type 38, H.265 7.3.2.8 / 7.4.3.8) of
    /// exactly `bytes` bytes (≥ 7): `00 00 00 01 4C 01`, 0xFF × (bytes − 7), `80`. 0xFF bytes need no
    /// emulation prevention.
    public static func fillerNAL(bytes: Int) -> [UInt8] {
        precondition(bytes >= minimumFillerBytes)
        var out: [UInt8] = [0, 0, 0, 1, 38 << 1, 1]
        out.reserveCapacity(bytes)
        out += repeatElement(0xFF, count: bytes - minimumFillerBytes)
        out.append(0x80)
        return out
    }

    /// `au` grown to `target` bytes by one filler NAL unit right after its last slice (VCL NAL
    /// unit, before any suffix SEI or end-of-sequence), or at its end when it has no slice
    /// (synthetic bytes). Never shrinks: an AU at or over the target (or short of it by under 7
    /// bytes) comes back as it is.
    public static func pad(_ au: [UInt8], to target: Int) -> [UInt8] {
        let deficit = target - au.count
        guard deficit >= minimumFillerBytes else { return au }
        let lastSliceEnd = AnnexB.nalUnitRanges(in: au).last { (au[$0.lowerBound] >> 1) & 0x3F < 32 }?.upperBound ?? au.count
        var out = [UInt8]()
        out.reserveCapacity(target)
        out += au[..<lastSliceEnd]
        out += fillerNAL(bytes: deficit)
        out += au[lastSliceEnd...]
        return out
    }
}

/// Serves speed probes as the host does (control-plane.md §5.3): one burst per 10 s, except
/// bring-up ramp steps (≤ 50 ms) while the ramp window is open (`HOST_CAP2_RAMP` advertised: from
/// the data plane's start to the first frame) or within 1 s after the last in-window step (steps
/// served in that second do not extend it). Ramp steps do not count as the 10 s burst.
/// Probe-only sessions get every probe. Pure: times are CLOCK_MONOTONIC ns.
public struct ProbeGate: Sendable {
    public static let spacingNs: UInt64 = 10_000_000_000
    public static let rampStepMaxMs: UInt32 = 50
    public static let rampGraceNs: UInt64 = 1_000_000_000

    public enum Decision: Sendable, Equatable {
        case serve
        /// A ramp step served without the spacing.
        case rampStep
        /// Rate-limited: answer with an empty ProbeResult.
        case declined
    }

    public var rampAdvertised: Bool
    public var probeOnly: Bool
    private var lastBurstNs: UInt64?
    private var lastRampStepNs: UInt64?

    public init(rampAdvertised: Bool, probeOnly: Bool = false) {
        self.rampAdvertised = rampAdvertised; self.probeOnly = probeOnly
    }

    /// - Parameter windowOpen: the ramp window (no frame sent yet) is open.
    public mutating func decide(durationMs: UInt32, now: UInt64, windowOpen: Bool) -> Decision {
        if probeOnly { return .serve }
        if rampAdvertised, durationMs <= Self.rampStepMaxMs {
            if windowOpen {
                lastRampStepNs = now
                return .rampStep
            }
            if let last = lastRampStepNs, now &- last <= Self.rampGraceNs { return .rampStep }
        }
        if let last = lastBurstNs, now &- last < Self.spacingNs { return .declined }
        lastBurstNs = now
        return .serve
    }
}

/// A rate event of a test host session, for its log: the client's SetBitrate, the host's
/// BitrateChanged answer, a PipelineGap sent. `tMs` is from the session's data-plane start.
public struct HostBitrateEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case setBitrate(kbps: UInt32)
        /// `asked` = the ask resolved (SetBitrate 0 → the host default); `reasonSent` = the
        /// reason byte was written (the client's hello set ABR bit0).
        case bitrateChanged(kbps: UInt32, asked: UInt32, reason: BitrateChangeReason, reasonSent: Bool)
        case pipelineGap(gapMs: UInt32)
    }
    public var kind: Kind
    public var monoNs: UInt64
    public var tMs: UInt64

    public init(kind: Kind, monoNs: UInt64, tMs: UInt64) { self.kind = kind; self.monoNs = monoNs; self.tMs = tMs }

    /// `{"set_bitrate":{"kbps","t_ms","mono_ns"}}`,
    /// `{"bitrate_changed":{"kbps","asked_kbps","reason","reason_sent","t_ms","mono_ns"}}` (reason:
    /// granted, encoder-limit, cadence, governor, pinned), `{"pipeline_gap":{"gap_ms","t_ms","mono_ns"}}`.
    public var json: String {
        let time = "\"t_ms\":\(tMs),\"mono_ns\":\(monoNs)"
        switch kind {
        case .setBitrate(let kbps):
            return "{\"set_bitrate\":{\"kbps\":\(kbps),\(time)}}"
        case .bitrateChanged(let kbps, let asked, let reason, let sent):
            return "{\"bitrate_changed\":{\"kbps\":\(kbps),\"asked_kbps\":\(asked),\"reason\":\"\(Self.name(reason))\","
                + "\"reason_sent\":\(sent),\(time)}}"
        case .pipelineGap(let gap):
            return "{\"pipeline_gap\":{\"gap_ms\":\(gap),\(time)}}"
        }
    }

    static func name(_ reason: BitrateChangeReason) -> String {
        switch reason {
        case .granted: "granted"
        case .encoderLimit: "encoder-limit"
        case .cadence: "cadence"
        case .governor: "governor"
        case .pinned: "pinned"
        }
    }
}

/// One second of a test host's media wire output (UDP payload bytes of media datagrams: video with
/// its FEC and NACK resends, and probe filler; QUIC — control, audio — not counted), from the
/// session's data-plane start: second k covers [k, k+1) s.
public struct HostWireSecond: Sendable, Equatable {
    public var second: UInt64
    public var monoNs: UInt64
    public var videoBytes: UInt64
    public var probeBytes: UInt64
    public var grantedKbps: UInt32
    public var frames: Int
    /// Bytes of filler NAL units added to reach the budget, and frames whose real size was
    /// already over it.
    public var fillerBytes: UInt64
    public var framesOverBudget: Int

    public init(second: UInt64, monoNs: UInt64, videoBytes: UInt64 = 0, probeBytes: UInt64 = 0, grantedKbps: UInt32 = 0,
                frames: Int = 0, fillerBytes: UInt64 = 0, framesOverBudget: Int = 0) {
        self.second = second; self.monoNs = monoNs; self.videoBytes = videoBytes; self.probeBytes = probeBytes
        self.grantedKbps = grantedKbps; self.frames = frames; self.fillerBytes = fillerBytes; self.framesOverBudget = framesOverBudget
    }

    /// `{"host_wire":{"t_ms","mono_ns","kbps","video_kbps","probe_kbps","granted_kbps","frames",
    /// "filler_kbps","frames_over_budget"}}`, t_ms = the second's end, mono_ns = its start.
    public var json: String {
        func kbps(_ bytes: UInt64) -> UInt64 { bytes * 8 / 1000 }
        return "{\"host_wire\":{\"t_ms\":\((second + 1) * 1000),\"mono_ns\":\(monoNs),\"kbps\":\(kbps(videoBytes + probeBytes)),"
            + "\"video_kbps\":\(kbps(videoBytes)),\"probe_kbps\":\(kbps(probeBytes)),\"granted_kbps\":\(grantedKbps),"
            + "\"frames\":\(frames),\"filler_kbps\":\(kbps(fillerBytes)),\"frames_over_budget\":\(framesOverBudget)}}"
    }
}

/// A PipelineGap a test host plays: `atNs` after the first video frame, video stops for `gapMs`,
/// then PipelineGap {gap_ms} goes out and the next frame is a keyframe (a rebuilt encoder).
public struct PipelineGapEvent: Sendable, Equatable {
    public var atNs: UInt64
    public var gapMs: UInt32
    public init(atNs: UInt64, gapMs: UInt32) { self.atNs = atNs; self.gapMs = gapMs }

    /// `SECONDS[:GAP_MS]` (GAP_MS default 200).
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let s = Double(parts[0]), s >= 0, s < 1e7 else { return nil }
        var gap: UInt32 = 200
        if parts.count == 2 { guard let g = UInt32(parts[1]) else { return nil }; gap = g }
        self.init(atNs: UInt64((s * 1e9).rounded()), gapMs: gap)
    }
}
