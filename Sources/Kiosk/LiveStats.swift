import Screen
import Foundation
import PunktfunkSession
import SystemClock

/// The session figures the stats overlay shows, handed from the pump thread (each second's
/// `PumpStats`) to the presenting thread, which reads them with the decode stage's totals.
public final class LiveStats: @unchecked Sendable {
    private let lock = NSLock()
    private var framesLost: UInt64 = 0
    private var offsetNs: Int64?
    private var rate: PumpStats.RateStats?
    private var stallSummary: String?
    private var wifi: WiFiLink?
    /// The stream's sound, for the overlay's audio line (nil: `--audio none`).
    public let audio: SessionAudio?
    /// Where frames spend their time (host, network, decode, display), per stats second.
    public let latency = LatencyBreakdown(realtimeMinusMonotonicNs: MonotonicClock.realtimeMinusMonotonicNs())

    public init(audio: SessionAudio? = nil) { self.audio = audio }

    /// Pump thread: the newest per-second stats.
    public func update(_ stats: PumpStats) {
        lock.withLock {
            framesLost = stats.framesLost; offsetNs = stats.clockOffsetNs; rate = stats.rate
            stallSummary = stats.stallSummary; wifi = stats.wifi
        }
    }

    /// Chains `update` after the session's existing `onStats` (call from `StreamPipeline.prepare`).
    public func observe(_ session: ClientSession) {
        let previous = session.onStats
        session.onStats = { [self] stats in
            previous?(stats)
            update(stats)
            _ = latency.figures(second: stats.second)
        }
        let timing = session.onFrameTiming
        session.onFrameTiming = { [self, unowned session] f in
            timing?(f)
            latency.frameTiming(f, clockOffsetNs: session.clockOffsetNs)
        }
    }

    /// Host − client clock offset of the newest stats (nil before the first second).
    public var clockOffsetNs: Int64? { lock.withLock { offsetNs } }

    /// The overlay's counters: video bytes and decode figures from `stage`, loss from the session.
    public func counters(stage: DecodeStage) -> StatsCounters {
        let t = stage.totals
        var c = StatsCounters(videoBytes: t.bytes, decodedPictures: t.pictures, decodeNs: t.decodeNs,
                              framesLost: lock.withLock { framesLost })
        c.audioLine = audio?.stats?.overlayLine
        c.pictureLine = stage.pictureHold.overlayLine
        c.latencyLine = latency.newest?.overlayLine
        c.rateLine = lock.withLock { rate }.map(Self.rateLine)
        lock.withLock {
            c.linkLine = wifi.map(Self.wifiLine)
            c.stallLine = stallSummary
        }
        return c
    }

    /// `wi-fi   ch 6 (2.4 GHz) -67 dBm tx 54 Mb/s`.
    static func wifiLine(_ w: WiFiLink) -> String {
        var parts: [String] = []
        if let c = w.channel, let b = w.bandName { parts.append("ch \(c) (\(b) GHz)") }
        if let s = w.signalDBm { parts.append("\(s) dBm") }
        if let t = w.txKbps { parts.append("tx \(t / 1000) Mb/s") }
        return "wi-fi   " + (parts.isEmpty ? w.interface : parts.joined(separator: " "))
    }

    /// `rate    asked 9.8 granted 9.8 Mb/s, cut: delay rose 38 ms over 6 frames`.
    static func rateLine(_ r: PumpStats.RateStats) -> String {
        func mb(_ kbps: UInt32) -> String { StatsFigures.fixed(Double(kbps) / 1000, 1) }
        let last = r.decision.map { d in ", \(d)" + (r.reason.map { ": \($0)" } ?? "") } ?? ""
        return "rate    asked \(mb(r.askedKbps)) granted \(mb(r.grantedKbps)) Mb/s\(last)"
    }
}
