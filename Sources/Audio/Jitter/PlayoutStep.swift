/// What the output does for one period (one packet's duration, `frameSamples` frames).
///
/// Each sequence number the buffer takes on appears in the step stream at most once, as `.play`,
/// `.recover`, `.conceal(seq:)` or `.silence(seq:)`; the rest are counted in `Playout.coveredLost`
/// (lost packets whose time earlier `.conceal(seq: nil)` periods already filled) or in
/// `JitterStats.overflowDrops`. data-plane.md §5.1–5.2.
public enum PlayoutStep<Payload> {
    /// Decode packet `seq` and play it.
    case play(seq: UInt32, ptsNs: UInt64, payload: Payload)
    /// Packet `seq` is lost but packet `seq + 1` carries a copy of it (RED, tag 0xD2): decode the
    /// redundant copy inside `payload` (packet `seq + 1`'s). Packet `seq + 1` itself is played
    /// by a later step. `ptsNs` is `seq + 1`'s minus one frame.
    case recover(seq: UInt32, ptsNs: UInt64, payload: Payload)
    /// One frame of loss concealment (libopus: decode with no data for exactly `frameSamples`).
    /// `seq` is the lost packet this frame stands for; nil while the buffer is waiting for the
    /// next packet (an underrun): that frame is later counted against a packet found lost
    /// (`Playout.coveredLost`) or, when the packet turns up, as inserted delay.
    case conceal(seq: UInt32?)
    /// One frame of silence, no decode and no PLC: the packet `seq` is DTX (empty payload), or
    /// concealment ran past its bound (`Configuration.maxConcealNs`, then `seq` is the lost
    /// packet or nil while waiting), or playout has not started (nil).
    case silence(seq: UInt32?)
}

extension PlayoutStep: Sendable where Payload: Sendable {}
extension PlayoutStep: Equatable where Payload: Equatable {}
