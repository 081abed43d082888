/// The host's wire budget (upstream `abr/budget.rs`): a SetBitrate is the whole wire rate, and
/// the host fits video, FEC parity, shard headers and audio inside it.
///
///     video = (wire − audio) · P / (P + 64) · 100 / (100 + fec)
///
/// with P the shard payload in bytes (64 bytes of header and tag ride on every shard) and fec the
/// parity share in percent. All rates kbps; the result rounds down and never goes below 0.
/// Used by tests and the stats line; the rate loop itself reasons in wire kbps throughout, which
/// is what the receiver measures.
public enum WireBudget {
    /// Per-shard wire overhead beside the payload, bytes.
    public static let shardOverheadBytes: UInt64 = 64

    /// The video rate the host encodes at for a wire budget of `wireKbps`.
    public static func videoKbps(wireKbps: UInt32, audioKbps: UInt32, shardPayload: UInt16,
                                 fecPercent: UInt8) -> UInt32 {
        guard wireKbps > audioKbps, shardPayload > 0 else { return 0 }
        let p = UInt64(shardPayload)
        let net = UInt64(wireKbps - audioKbps) * p / (p + shardOverheadBytes)
        return UInt32(net * 100 / (100 + UInt64(fecPercent)))
    }

    /// The wire budget that carries `videoKbps` of video (the inverse, rounded up).
    public static func wireKbps(videoKbps: UInt32, audioKbps: UInt32, shardPayload: UInt16,
                                fecPercent: UInt8) -> UInt32 {
        guard shardPayload > 0 else { return UInt32.max }
        let p = UInt64(shardPayload)
        let withFEC = (UInt64(videoKbps) * (100 + UInt64(fecPercent)) + 99) / 100
        let withHeaders = (withFEC * (p + shardOverheadBytes) + p - 1) / p
        return UInt32(min(withHeaders + UInt64(audioKbps), UInt64(UInt32.max)))
    }
}
