import Foundation
import PunktfunkWire

/// One stats window's latency split, p50/p95 per part in ms (nearest rank; nil: no sample):
/// - host: capture → sent on the host (the 0xCF `host_us`, data-plane.md §7.5);
/// - network: sent → the AU complete here (its completing packet's arrival − (pts + host_us),
///   session clock, ≥ 0; without a 0xCF: arrival − pts, the host's share included);
/// - decode: AU complete → picture decoded (the decode stage's queue included);
/// - display: picture decoded → on glass (the presenter's flip or presentation time);
/// - total: capture → on glass (pts mapped to the local clock by the session's clock offset).
/// Parts come from different frames' samples, so p50s need not add up to total's.
public struct LatencyFigures: Sendable, Equatable {
    public struct Percentiles: Sendable, Equatable {
        public var p50Ms: Double
        public var p95Ms: Double
        public init(p50Ms: Double, p95Ms: Double) { self.p50Ms = p50Ms; self.p95Ms = p95Ms }
    }
    public var host: Percentiles?
    public var network: Percentiles?
    public var decode: Percentiles?
    public var display: Percentiles?
    public var total: Percentiles?

    public init(host: Percentiles? = nil, network: Percentiles? = nil, decode: Percentiles? = nil,
                display: Percentiles? = nil, total: Percentiles? = nil) {
        self.host = host; self.network = network; self.decode = decode; self.display = display; self.total = total
    }

    /// One JSON member for the stats line:
    /// `"latency":{"host_ms":{"p50":…,"p95":…}|null,"network_ms":…,"decode_ms":…,"display_ms":…,"total_ms":…}`.
    public var jsonMember: String {
        func part(_ p: Percentiles?) -> String {
            p.map { "{\"p50\":\(String(format: "%.3f", $0.p50Ms)),\"p95\":\(String(format: "%.3f", $0.p95Ms))}" } ?? "null"
        }
        return "\"latency\":{\"host_ms\":\(part(host)),\"network_ms\":\(part(network)),\"decode_ms\":\(part(decode)),"
            + "\"display_ms\":\(part(display)),\"total_ms\":\(part(total))}"
    }

    /// The overlay's line: p50 of each part, ms, `-` where unknown (the total is the overlay's
    /// own capture→glass line).
    public var overlayLine: String {
        func f(_ p: Percentiles?) -> String { p.map { String(format: "%.1f", $0.p50Ms) } ?? "-" }
        return "split   host \(f(host)) net \(f(network)) dec \(f(decode)) disp \(f(display)) ms"
    }
}

/// The samples of the running stats window, per part, in ns. Pure; no allocation after init
/// (each part keeps ≤ `maxSamples`, the rest of a window is ignored).
public struct LatencyWindow: Sendable {
    public enum Part: Int, CaseIterable, Sendable { case host, network, decode, display, total }
    public static let maxSamples = 1024
    private var samples: [[Int64]]

    public init() {
        samples = Part.allCases.map { _ in
            var a: [Int64] = []
            a.reserveCapacity(Self.maxSamples)
            return a
        }
    }

    /// One sample; negative ones (clock skew beyond the share) are dropped.
    public mutating func add(_ part: Part, ns: Int64) {
        guard ns >= 0, samples[part.rawValue].count < Self.maxSamples else { return }
        samples[part.rawValue].append(ns)
    }

    /// The window's figures; starts the next window.
    public mutating func roll() -> LatencyFigures {
        func take(_ part: Part) -> LatencyFigures.Percentiles? {
            guard !samples[part.rawValue].isEmpty else { return nil }
            samples[part.rawValue].sort()
            let s = samples[part.rawValue]
            let p = LatencyFigures.Percentiles(p50Ms: Double(Self.nearestRank(s, 0.50)) / 1e6,
                                               p95Ms: Double(Self.nearestRank(s, 0.95)) / 1e6)
            samples[part.rawValue].removeAll(keepingCapacity: true)
            return p
        }
        return LatencyFigures(host: take(.host), network: take(.network), decode: take(.decode),
                              display: take(.display), total: take(.total))
    }

    /// Nearest-rank percentile of sorted, non-empty `values`: the ⌈q·n⌉-th smallest.
    static func nearestRank(_ sorted: [Int64], _ q: Double) -> Int64 {
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// Where a live stream's frames spend their time, fed from three threads — the pump
/// (`frameTiming`), the decoder (`decoded`) and the presenter (`noteFrame`, `shown`) — and closed
/// once per stats second (`figures(second:)`, pump thread). Per-frame calls take a lock and touch
/// fixed rings only (no allocation).
public final class LatencyBreakdown: @unchecked Sendable {
    static let ringSlots = 64
    private let lock = NSLock()
    private var window = LatencyWindow()
    /// Host − client realtime offset of the newest frame timing, ns (nil: none yet).
    private var offsetNs: Int64?
    private let realtimeMinusMonotonicNs: Int64
    /// Decode-complete time (CLOCK_MONOTONIC) of recent pictures, by pts.
    private var decodedAt = [(pts: Int64, ns: UInt64)](repeating: (.min, 0), count: LatencyBreakdown.ringSlots)
    private var nextDecoded = 0
    /// The pts of recently presented frame ids, by `id % ringSlots`.
    private var framePts = [(id: UInt64, pts: Int64)](repeating: (.max, 0), count: LatencyBreakdown.ringSlots)
    private var rolled: (second: Int, figures: LatencyFigures)?

    public init(realtimeMinusMonotonicNs: Int64) {
        self.realtimeMinusMonotonicNs = realtimeMinusMonotonicNs
    }

    /// Pump thread: a frame's host and network shares; `clockOffsetNs` = host − client realtime.
    public func frameTiming(_ f: HostTimingJoin.Frame, clockOffsetNs: Int64) {
        lock.withLock {
            offsetNs = clockOffsetNs
            if let h = f.host { window.add(.host, ns: Int64(h.hostUs) * 1000) }
            // An AU can be complete before the host's last packet (its unneeded parity) left,
            // which `host_us` counts: the network's share is then 0, not negative.
            window.add(.network, ns: max(0, f.networkNs))
        }
    }

    /// Decoder thread: the picture of pts `ptsNs` came out of the decoder at `decodedNs`; its AU
    /// was complete at `completeNs` (0: unknown). CLOCK_MONOTONIC ns.
    public func decoded(ptsNs: Int64, completeNs: UInt64, decodedNs: UInt64) {
        lock.withLock {
            if completeNs != 0, decodedNs >= completeNs { window.add(.decode, ns: Int64(decodedNs - completeNs)) }
            decodedAt[nextDecoded] = (ptsNs, decodedNs)
            nextDecoded = (nextDecoded + 1) % Self.ringSlots
        }
    }

    /// Presenter: frame `id` shows the picture of pts `ptsNs`.
    public func noteFrame(id: UInt64, ptsNs: Int64) {
        lock.withLock { framePts[Int(id % UInt64(Self.ringSlots))] = (id, ptsNs) }
    }

    /// Presenter: frame `id` reached glass at `glassNs` (CLOCK_MONOTONIC).
    public func shown(id: UInt64, glassNs: UInt64) {
        lock.withLock {
            let entry = framePts[Int(id % UInt64(Self.ringSlots))]
            guard entry.id == id else { return }
            if let d = decodedAt.first(where: { $0.pts == entry.pts && $0.ns != 0 }), glassNs >= d.ns {
                window.add(.display, ns: Int64(glassNs - d.ns))
            }
            if let offset = offsetNs {
                // Capture on the local monotonic clock: pts − (host − client) − (realtime − monotonic).
                let capture = entry.pts &- offset &- realtimeMinusMonotonicNs
                window.add(.total, ns: Int64(bitPattern: glassNs) &- capture)
            }
        }
    }

    /// The figures of stats second `second`: the first call for a second closes the window, later
    /// calls for the same second return the same figures (the stats line and the overlay share it).
    public func figures(second: Int) -> LatencyFigures {
        lock.withLock {
            if let r = rolled, r.second == second { return r.figures }
            let f = window.roll()
            rolled = (second, f)
            return f
        }
    }

    /// The newest closed window (nil before the first second).
    public var newest: LatencyFigures? { lock.withLock { rolled?.figures } }
}
