/// Holds audio against the video's latency (issue 13 item 4). Both latencies are "host capture
/// time → leaves the client" on one clock: audio = DAC time of a packet − its pts mapped through
/// the session's clock offset; video = glass (or, headless, decode) time of a picture − its pts.
/// `skew = audio − video`: > 0 audio late, < 0 audio early.
///
/// Audio can be made later, never earlier than its jitter buffer needs: when audio is early by
/// more than `deadbandNs`, the jitter buffer's delay floor rises by the difference (the buffer
/// then walks its delay up without a click or a pitch change, `TimeStretch`); when audio is late and a floor is
/// set, the floor comes down. At most `stepNs` per update so a noisy video figure cannot swing
/// the audio. Pure.
public struct AVSyncControl: Sendable, Equatable {
    /// Skew within this is left alone, ns.
    public var deadbandNs: Int64 = 5_000_000
    /// Largest floor change per update, ns.
    public var stepNs: Int64 = 10_000_000
    /// Highest floor, ns (the jitter buffer's own cap applies too).
    public var maxFloorNs: Int64 = 100_000_000
    /// The delay floor for the jitter buffer, ns.
    public private(set) var floorNs: Int64 = 0

    public init() {}

    /// One measurement. - Returns: the skew, ns (audio − video).
    @discardableResult
    public mutating func update(audioLatencyNs: Int64, videoLatencyNs: Int64) -> Int64 {
        let skew = audioLatencyNs - videoLatencyNs
        guard abs(skew) > deadbandNs else { return skew }
        let desired = min(maxFloorNs, max(0, floorNs - skew))
        floorNs += min(stepNs, max(-stepNs, desired - floorNs))
        return skew
    }
}
