import PunktfunkWire
import PunktfunkSession

/// The host side of one speed-test burst (control-plane.md §5.3) for test hosts: probe-stream
/// filler AUs (`MediaStream.probe`) at `kbps` for `durationNs`, beside the live video, then a
/// ProbeResult.
///
/// Figures in the result: `bytesSent` = wire bytes of every probe datagram handed to the socket,
/// `packetsSent` = `wirePacketsSent` = those datagrams (data and parity), `sendDropped` = datagrams
/// the socket refused (full buffer) or a blackout swallowed, `durationMs` = the burst's length.
struct ProbeBurst {
    /// Filler AU size: 32 KiB → 24 data shards of 1408 bytes.
    static let fillerBytes = 32 * 1024
    static let filler = [UInt8](repeating: 0xA5, count: fillerBytes)

    let kbps: UInt32
    let start: UInt64
    let durationNs: UInt64
    private(set) var result = ProbeResult()
    private var payloadSent: UInt64 = 0
    private var probeFrame: UInt32 = 0

    init(kbps: UInt32, start: UInt64, durationNs: UInt64) {
        self.kbps = kbps
        self.start = start
        self.durationNs = durationNs
        result.durationMs = UInt32(durationNs / 1_000_000)
    }

    /// Sends the filler due by `now`, in the stream's current `epoch` (the receiver drops older ones). `transmit` returns false when the datagram was not sent.
    /// - Returns: true once the burst is over (then send `result`).
    mutating func pump(now: UInt64, sender: MediaSender, epoch: UInt8,
                       transmit: (UnsafeRawBufferPointer) throws -> Bool) -> Bool {
        let elapsed = min(now - start, durationNs)
        let due = UInt64(kbps) * 125 * elapsed / 1_000_000_000  // bytes owed so far (kbit/s → B/s = ×125)
        var result = self.result
        while payloadSent + UInt64(Self.fillerBytes) <= due || (payloadSent < due && elapsed >= durationNs) {
            Self.filler.withUnsafeBytes { raw in
                try? sender.send(raw, frame: probeFrame, epoch: epoch, userFlags: 0, ptsMicros: 0, stream: .probe) { datagram in
                    if (try? transmit(datagram)) == true {
                        result.bytesSent += UInt64(datagram.count)
                        result.packetsSent += 1
                        result.wirePacketsSent += 1
                    } else {
                        result.sendDropped += 1
                    }
                }
            }
            probeFrame &+= 1
            payloadSent += UInt64(Self.fillerBytes)
        }
        self.result = result
        return elapsed >= durationNs
    }
}
