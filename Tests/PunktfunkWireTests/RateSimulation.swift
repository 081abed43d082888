import PunktfunkWire

/// A deterministic fluid model of one bottleneck driving a `RateLoop`, for the rate tests.
///
/// Per 1 ms step: the host sends at its granted rate (R kbps = R bits per ms, frames of 1/fps of
/// that), the bottleneck queues it drop-tail (`queueMs` of the current capacity) and serves
/// `capacity` bits per ms (nothing during an outage). A frame's first shard arrives when the
/// bottleneck served its first accepted bit, the frame completes when it served the last one,
/// both plus the base one-way delay. An ask reaches the host one base delay after it left and its
/// ack (reason Granted) one base delay later; the host sends at the new rate from then on (one
/// RTT). Random loss drops packets after the bottleneck (FEC repairs a frame missing up to
/// `fecPercent` of its packets). Windows close every 750 ms of client time.
struct RateSimulation {
    struct Scenario {
        var durationMs = 60_000
        /// (from ms, kbps), sorted.
        var capacity: [(Int, UInt32)] = [(0, 40_000)]
        var configuration = RateLoop.Configuration(startKbps: 30_000)
        var baseOWDMs = 10
        var queueMs = 100
        var fps = 60
        var packetBytes = 1200
        var fecPercent = 10
        /// Packets lost at random after the bottleneck, per million.
        var randomLossPPM: UInt64 = 0
        /// Outages: every `outageEveryMs` from `outageFirstMs`, `outageLenMs` long.
        var outageEveryMs: Int? = nil
        var outageFirstMs = 15_000
        var outageLenMs = 150
        /// Head shards lost per window (a waking receiver).
        var headLossPerWindow: UInt32 = 0
        var seed: UInt64 = 0x5eed
    }

    struct WindowSample {
        var tMs: Int
        var asked: UInt32
        var granted: UInt32
        var sending: UInt32
        var capacity: UInt32
        var shape: UInt8
        var decision: RateDecision?
    }

    struct Result {
        var windows: [WindowSample] = []
        /// Client time (ms) of each cut, and of each asked rate change (ms, new asked).
        var cutTimes: [Int] = []
        /// Client time (ms) of every fall of the asked rate (cuts and refused wall retries).
        var decreaseTimes: [Int] = []
        /// Cumulative sent and dropped bits per ms.
        var sentAt: [UInt64] = []
        var droppedAt: [UInt64] = []
        var askedChanges: [(Int, UInt32)] = []
        /// Per ms: asked rate and capacity, sampled every ms.
        var asked: [UInt32] = []
        var capacity: [UInt32] = []
        /// Per frame: (client ms at completion, queue delay ms of its first bit, lost for good).
        var frames: [(Int, Int, Bool)] = []
        var sentBits: UInt64 = 0
        var droppedBits: UInt64 = 0
        var loop: RateLoop

        /// Cuts in [fromMs, toMs).
        func cuts(from: Int, to: Int) -> Int { cutTimes.filter { $0 >= from && $0 < to }.count }
        /// The most cuts in any `spanMs` stretch starting within [fromMs, toMs − spanMs].
        func maxCuts(inAny spanMs: Int, from: Int, to: Int) -> Int {
            var m = 0
            for c in cutTimes where c >= from && c + spanMs <= to { m = max(m, cuts(from: c, to: c + spanMs)) }
            return m
        }
        /// First ms ≥ `from` at which the asked rate is ≤ the capacity.
        func firstFit(after from: Int) -> Int? {
            (from..<asked.count).first { asked[$0] <= capacity[$0] }
        }
        /// Share of [from, to) ms frozen: from a frame lost for good until the next frame that
        /// completed whole after one RTT more.
        func frozenShare(from: Int, to: Int, rttMs: Int) -> Double {
            var frozen = 0
            var until = -1
            var lossAt: Int?
            for (t, _, lost) in frames {
                if lost {
                    if lossAt == nil { lossAt = t }
                } else if let l = lossAt, t >= l + rttMs + 17 {
                    let a = max(l, from), b = min(t, to)
                    if b > a { frozen += b - a }
                    lossAt = nil
                    until = t
                }
            }
            _ = until
            if let l = lossAt { frozen += max(0, to - max(l, from)) }
            return Double(frozen) / Double(to - from)
        }
        /// Dropped share of what was sent in [from, to) ms.
        func dropShare(from: Int, to: Int) -> Double {
            let sent = sentAt[to - 1] - sentAt[from], dropped = droppedAt[to - 1] - droppedAt[from]
            return sent == 0 ? 0 : Double(dropped) / Double(sent)
        }
        /// The longest run of ms with the asked rate above `factor` × capacity.
        func longestAbove(_ factor: Double) -> Int {
            var run = 0, best = 0
            for i in asked.indices {
                if Double(asked[i]) > factor * Double(capacity[i]) { run += 1; best = max(best, run) } else { run = 0 }
            }
            return best
        }
        /// The 95th percentile of `values`.
        static func p95(_ values: [Int]) -> Int {
            guard !values.isEmpty else { return 0 }
            let v = values.sorted()
            return v[min(v.count - 1, v.count * 95 / 100)]
        }
        /// Queue delays (ms) of frames completing in [from, to).
        func queueDelays(from: Int, to: Int) -> [Int] { frames.filter { $0.0 >= from && $0.0 < to }.map { $0.1 } }
    }

    private struct Frame {
        var sendMs: Int
        var firstPos: UInt64 = 0
        var lastPos: UInt64 = 0
        var sentBits: UInt64 = 0
        var acceptedBits: UInt64 = 0
        var firstAtMs: Int?
        var closed = false
    }

    static func run(_ s: Scenario) -> Result {
        var loop = RateLoop(configuration: s.configuration)
        var result = Result(loop: loop)
        var rng = SplitMix64(seed: s.seed)
        let offsetNs: UInt64 = 1_000_000_000  // client clock starts at 1 s
        let owdOffsetNs: Int64 = -7_654_321_000  // an unknown clock offset: only differences matter
        var sending = s.configuration.startKbps
        var hostChanges: [(atMs: Int, kbps: UInt32)] = []
        var queue: UInt64 = 0
        var accepted: UInt64 = 0  // cumulative accepted bits
        var served: UInt64 = 0  // cumulative served bits
        var frames: [Frame] = []
        var head = 0
        var frameIndex = -1
        // Window counters.
        var wBytes: UInt64 = 0, wPackets: UInt64 = 0, wRepaired: UInt64 = 0, wUnrecoverable: UInt32 = 0
        var wLongestGap = 0, gapRun = 0
        var nextWindowMs = 750
        var capIndex = 0
        var lastAsked = loop.askedKbps
        var lastCuts = 0
        let base = s.baseOWDMs

        func capacity(_ t: Int) -> UInt32 {
            while capIndex + 1 < s.capacity.count, s.capacity[capIndex + 1].0 <= t { capIndex += 1 }
            return s.capacity[capIndex].1
        }

        for t in 0..<s.durationMs {
            let client = t + base
            let now = offsetNs + UInt64(client) * 1_000_000
            let cap = capacity(t)
            // The host applies asks that reached it; their acks arrive one base delay later
            // (folded in: the ack is processed now at client time t + base).
            while let c = hostChanges.first, c.atMs <= t {
                hostChanges.removeFirst()
                sending = c.kbps
                loop.acknowledged(kbps: c.kbps, reason: .granted, now: now)
            }
            // Frame boundaries.
            let fi = t * s.fps / 1000
            if fi != frameIndex {
                if !frames.isEmpty { frames[frames.count - 1].closed = true }
                frameIndex = fi
                frames.append(Frame(sendMs: t))
            }
            // Enqueue drop-tail, then serve.
            let inBits = UInt64(sending)
            let qmax = UInt64(cap) * UInt64(s.queueMs)
            let take = min(inBits, qmax > queue ? qmax - queue : 0)
            result.sentBits += inBits
            result.droppedBits += inBits - take
            var f = frames[frames.count - 1]
            f.sentBits += inBits
            if take > 0 {
                if f.acceptedBits == 0 { f.firstPos = accepted + 1 }
                accepted += take
                f.lastPos = accepted
                f.acceptedBits += take
            }
            frames[frames.count - 1] = f
            queue += take
            var outage = false
            if let every = s.outageEveryMs, t >= s.outageFirstMs, (t - s.outageFirstMs) % every < s.outageLenMs {
                outage = true
            }
            let out = outage ? 0 : min(queue, UInt64(cap))
            queue -= out
            served += out
            if out == 0 { gapRun += 1; wLongestGap = max(wLongestGap, gapRun) } else { gapRun = 0 }
            // First shards served this ms.
            var j = head
            while j < frames.count {
                let fr = frames[j]
                if fr.acceptedBits == 0 { if fr.closed { j += 1; continue } else { break } }
                if fr.firstPos > served { break }
                if fr.firstAtMs == nil { frames[j].firstAtMs = client }
                j += 1
            }
            // Completed frames.
            while head < frames.count {
                let fr = frames[head]
                if fr.acceptedBits == 0 {
                    if !fr.closed { break }
                    // Lost whole in the queue.
                    wUnrecoverable += 1
                    result.frames.append((client, 0, true))
                    head += 1
                    continue
                }
                guard fr.closed, served >= fr.lastPos, let first = fr.firstAtMs else { break }
                let packets = max(1, (fr.sentBits + UInt64(s.packetBytes * 8) - 1) / UInt64(s.packetBytes * 8))
                let got = (fr.acceptedBits + UInt64(s.packetBytes * 8) - 1) / UInt64(s.packetBytes * 8)
                var lostRandom: UInt64 = 0
                if s.randomLossPPM > 0 {
                    for _ in 0..<got where rng.next() % 1_000_000 < s.randomLossPPM { lostRandom += 1 }
                }
                let missing = packets - min(got, packets) + lostRandom
                let parity = (packets * UInt64(s.fecPercent) + 99) / 100
                let lost = missing > parity
                if lost { wUnrecoverable += 1 } else { wRepaired += missing }
                wPackets += packets
                let bytes = (got - lostRandom) * UInt64(s.packetBytes)
                wBytes += bytes
                let owd = Int64(first - fr.sendMs) * 1_000_000 + owdOffsetNs
                loop.frameArrived(firstShardOWDNs: owd, wireBytes: UInt32(bytes), now: now)
                result.frames.append((client, first - fr.sendMs - base, lost))
                head += 1
            }
            if head > 256 { frames.removeFirst(head); head = 0 }
            // Window.
            if client >= nextWindowMs {
                nextWindowMs += 750
                let ppm = wPackets > 0 ? UInt32(min(wRepaired * 1_000_000 / wPackets, 1_000_000)) : 0
                var w = RateWindow(lossPPM: ppm, unrecoverableFrames: wUnrecoverable, wireBytes: wBytes,
                                   durationNs: RateLoop.windowNs,
                                   longestArrivalGapNs: UInt64(wLongestGap) * 1_000_000)
                if s.headLossPerWindow > 0 { w.head = s.headLossPerWindow }
                loop.windowClosed(w, now: now)
                _ = loop.logLine(now: now)
                result.windows.append(.init(tMs: client, asked: loop.askedKbps, granted: loop.grantedKbps,
                                            sending: sending, capacity: cap, shape: loop.shape,
                                            decision: loop.lastDecision))
                wBytes = 0; wPackets = 0; wRepaired = 0; wUnrecoverable = 0; wLongestGap = 0
            }
            // Asks.
            if let k = loop.takeAsk(now: now) {
                hostChanges.append((t + 2 * base, k))
            }
            if loop.cuts != lastCuts {
                lastCuts = loop.cuts
                result.cutTimes.append(client)
            }
            if loop.askedKbps != lastAsked {
                if loop.askedKbps < lastAsked { result.decreaseTimes.append(client) }
                result.askedChanges.append((client, loop.askedKbps))
                lastAsked = loop.askedKbps
            }
            result.asked.append(loop.askedKbps)
            result.capacity.append(cap)
            result.sentAt.append(result.sentBits)
            result.droppedAt.append(result.droppedBits)
        }
        result.loop = loop
        return result
    }
}
