import PunktfunkWire

/// A relay direction: client → host or host → client.
public enum Direction: String, Sendable, CaseIterable {
    case c2h
    case h2c
}

/// Which datagrams the relay may impair (loss, hold-back, duplication), and its queue bound.
public struct RelayPolicy: Sendable, Equatable {
    /// Directions impaired (`--lossy`); the others get delay and jitter only.
    public var impairedDirections: Set<Direction>
    /// Impair only media datagrams (first byte & 0xC0 == 0); QUIC passes with delay and jitter.
    public var mediaOnly: Bool
    /// Impair only from this long after the first client datagram, ns (the handshake gets through).
    public var startAfterNs: UInt64
    /// Most datagrams (both directions, copies included) held in the delay queue at once.
    public var queueLimit: Int
    /// Keep a `DropRecord` for every dropped media datagram (drained with `takeDrops()`).
    public var recordDrops: Bool
    /// A capacity bottleneck (`Bottleneck`) on `bottleneckDirections`, for every datagram of
    /// those directions (QUIC too), after the loss draw and before the one-way delay and jitter.
    /// Its schedule's origin is the first client datagram. nil = no bottleneck.
    public var bottleneck: BottleneckConfig?
    public var bottleneckDirections: Set<Direction>
    /// Bytes the bottleneck counts per datagram beyond its UDP payload (IPv4 20 + UDP 8).
    public var bottleneckOverheadBytes: Int
    /// Produce queue-log lines (`takeQueueLog(upTo:)`) every this many ns of the bottleneck's
    /// time; 0 = none.
    public var queueLogIntervalNs: UInt64
    /// A dozing receiver (`--doze`): host → client media that comes after ≥ `dozeAfterNs` without
    /// any loses its first `dozeLoss` datagrams — a radio in power save wakes on the burst and
    /// misses its head. From `startAfterNs` on; 0 = off.
    public var dozeAfterNs: UInt64 = 0
    public var dozeLoss = 0

    public init(impairedDirections: Set<Direction> = [.c2h, .h2c], mediaOnly: Bool = false, startAfterNs: UInt64 = 0,
                queueLimit: Int = 65_536, recordDrops: Bool = false, bottleneck: BottleneckConfig? = nil,
                bottleneckDirections: Set<Direction> = [.h2c], bottleneckOverheadBytes: Int = 28,
                queueLogIntervalNs: UInt64 = 0) {
        self.impairedDirections = impairedDirections; self.mediaOnly = mediaOnly; self.startAfterNs = startAfterNs
        self.queueLimit = queueLimit; self.recordDrops = recordDrops
        self.bottleneck = bottleneck; self.bottleneckDirections = bottleneckDirections
        self.bottleneckOverheadBytes = bottleneckOverheadBytes; self.queueLogIntervalNs = queueLogIntervalNs
    }
}

/// Per-direction counts, in datagrams. At any moment:
/// received + duplicated = forwarded + sendErrors + droppedLoss + droppedQueue + droppedBottleneck
/// + (held in the queue).
public struct DirectionCounters: Sendable, Equatable {
    public var received = 0
    /// Sent to the far side (copies included).
    public var forwarded = 0
    public var droppedLoss = 0
    /// Refused by the full delay queue (copies included).
    public var droppedQueue = 0
    /// Dropped by the bottleneck's drop-tail queue (copies included).
    public var droppedBottleneck = 0
    /// Copies made (each is one extra datagram to forward).
    public var duplicated = 0
    /// Held back by the reorder delay.
    public var reordered = 0
    /// Received media datagrams (first byte & 0xC0 == 0) and the rest (QUIC).
    public var media = 0
    public var quic = 0
    /// Released but the send failed (no client yet, ICMP refusal, full socket buffer).
    public var sendErrors = 0
    public init() {}
}

/// One dropped media datagram: its clear 32-bit packet number (bytes 1..<5 little-endian, nil if
/// shorter) and when it was dropped (CLOCK_MONOTONIC ns).
public struct DropRecord: Sendable, Equatable {
    public var direction: Direction
    public var seqLow: UInt32?
    public var monoNs: UInt64

    /// One JSON line without the newline: {"dir":"h2c","seq_low":N,"mono_ns":T}.
    public var json: String {
        "{\"dir\":\"\(direction.rawValue)\",\"seq_low\":\(seqLow.map(String.init) ?? "null"),\"mono_ns\":\(monoNs)}"
    }
}

/// A datagram the delay queue released, to send in `direction`.
public struct Release: Sendable {
    public var direction: Direction
    public var bytes: [UInt8]
}

/// The relay's logic without sockets or clock: classify, impair, queue, count.
///
/// Drive it with `handle(_:from:now:)` per received datagram, then `pollRelease(now:)` until nil,
/// sending each and reporting the outcome with `noteSent(_:ok:)`; sleep until `nextDeadline`.
/// `now` is CLOCK_MONOTONIC ns and never goes backwards.
public struct RelayCore: Sendable {
    public let policy: RelayPolicy
    public private(set) var c2h = DirectionCounters()
    public private(set) var h2c = DirectionCounters()
    /// When the first client datagram arrived (the start-after anchor), ns.
    public private(set) var firstClientNs: UInt64?
    /// The last host → client media datagram, and how many more the dozing receiver misses.
    private var lastH2CMediaNs: UInt64?
    private var dozeLeft = 0
    private var links: [LinkImpairment]  // indexed c2h = 0, h2c = 1
    private var queue: DelayQueue<Release>
    private var drops: [DropRecord] = []
    private var held = [0, 0]
    /// Each direction's bottleneck (indexed as `links`), nil where there is none.
    public private(set) var bottlenecks: [Bottleneck?]
    /// The next queue-log line's index (its time = origin + k·interval), and each direction's
    /// departed bytes and drops at the previous line.
    private var nextLogIndex: UInt64 = 1
    private var lastLogged: [(bytes: UInt64, drops: Int)] = [(0, 0), (0, 0)]
    private var queueLogLines: [String] = []

    /// Each direction gets its own sub-seed drawn from `seed`.
    public init(c2h: ImpairmentConfig, h2c: ImpairmentConfig, policy: RelayPolicy, seed: UInt64) {
        self.policy = policy
        var seeds = SplitMix64(seed: seed)
        links = [LinkImpairment(c2h, seed: seeds.next()), LinkImpairment(h2c, seed: seeds.next())]
        queue = DelayQueue(capacity: policy.queueLimit)
        bottlenecks = [Direction.c2h, .h2c].map { d in
            policy.bottleneck.flatMap { policy.bottleneckDirections.contains(d) ? Bottleneck($0) : nil }
        }
    }

    public func bottleneck(_ direction: Direction) -> Bottleneck? { bottlenecks[index(direction)] }

    /// Moves the bottlenecks' departed counts up to `now` (before reading final figures).
    public mutating func advanceBottlenecks(to now: UInt64) {
        for i in bottlenecks.indices { bottlenecks[i]?.advance(to: now) }
    }

    /// The next queue-log line's time, when lines are wanted and the origin is known.
    public var nextLogDeadline: UInt64? {
        guard policy.queueLogIntervalNs > 0, let origin = firstClientNs, bottlenecks.contains(where: { $0 != nil }) else { return nil }
        return origin &+ nextLogIndex &* policy.queueLogIntervalNs
    }

    /// Queue-log lines (JSON, no newline) for every interval boundary ≤ `now` not yet logged, one
    /// per bottlenecked direction: {"t_ms","dir","capacity_kbps","outage","queue_ms","queue_bytes",
    /// "sent_kbps","drops","mono_ns"} — t_ms from the first client datagram (mono_ns: that instant
    /// on CLOCK_MONOTONIC); queue_ms = until the queue has drained; sent_kbps = bytes (payload + the
    /// overhead) that left the bottleneck in the interval; drops in the interval.
    /// (`handle` logs the boundaries before its own time first, so each line sees the state at
    /// its own instant.)
    public mutating func takeQueueLog(upTo now: UInt64) -> [String] {
        logQueue(upTo: now)
        defer { queueLogLines.removeAll(keepingCapacity: true) }
        return queueLogLines
    }

    private mutating func logQueue(upTo now: UInt64) {
        while let due = nextLogDeadline, due <= now {
            let interval = policy.queueLogIntervalNs
            for i in 0..<2 {
                guard var b = bottlenecks[i] else { continue }
                let s = b.snapshot(at: due)
                bottlenecks[i] = b
                let sentKbps = Double(s.departedBytes - lastLogged[i].bytes) * 8 / (Double(interval) / 1e6)
                queueLogLines.append("{\"t_ms\":\(nextLogIndex * interval / 1_000_000),\"dir\":\"\(i == 0 ? "c2h" : "h2c")\","
                    + "\"capacity_kbps\":\(s.capacityKbps),\"outage\":\(s.inOutage),"
                    + "\"queue_ms\":\(Self.ms(s.queueNs)),\"queue_bytes\":\(s.queueBytes),"
                    + "\"sent_kbps\":\((sentKbps * 10).rounded() / 10),\"drops\":\(s.drops - lastLogged[i].drops),\"mono_ns\":\(due)}")
                lastLogged[i] = (s.departedBytes, s.drops)
            }
            nextLogIndex += 1
        }
    }

    /// ns as ms with three decimals.
    static func ms(_ ns: UInt64) -> Double { (Double(ns) / 1000).rounded() / 1000 }

    public func counters(_ direction: Direction) -> DirectionCounters { direction == .c2h ? c2h : h2c }
    /// Datagrams of `direction` waiting in the delay queue.
    public func inFlight(_ direction: Direction) -> Int { held[index(direction)] }
    /// The earliest release time queued, ns.
    public var nextDeadline: UInt64? { [queue.nextDeadline, nextLogDeadline].compactMap { $0 }.min() }

    /// Media datagram of punktfunk/2: first byte & 0xC0 == 0 (QUIC long and short headers set 0x40).
    public static func isMedia(_ bytes: [UInt8]) -> Bool { bytes.first.map { $0 & 0xC0 == 0 } ?? false }

    /// The clear 32-bit packet number of a media datagram: bytes 1..<5, little-endian.
    public static func seqLow(_ bytes: [UInt8]) -> UInt32? {
        guard bytes.count >= 5 else { return nil }
        return UInt32(bytes[1]) | UInt32(bytes[2]) << 8 | UInt32(bytes[3]) << 16 | UInt32(bytes[4]) << 24
    }

    /// One received datagram.
    public mutating func handle(_ bytes: [UInt8], from direction: Direction, now: UInt64) {
        if direction == .c2h, firstClientNs == nil {
            firstClientNs = now
            for i in bottlenecks.indices { bottlenecks[i]?.start(originNs: now) }
        }
        logQueue(upTo: now)
        let media = Self.isMedia(bytes)
        update(direction) {
            $0.received += 1
            if media { $0.media += 1 } else { $0.quic += 1 }
        }
        let started = firstClientNs.map { now >= $0 &+ policy.startAfterNs } ?? false
        let impair = started && policy.impairedDirections.contains(direction) && (!policy.mediaOnly || media)
        if media, direction == .h2c, policy.dozeLoss > 0 {
            if let last = lastH2CMediaNs, now &- last >= policy.dozeAfterNs, started { dozeLeft = policy.dozeLoss }
            lastH2CMediaNs = now
            if dozeLeft > 0 {
                dozeLeft -= 1
                update(direction) { $0.droppedLoss += 1 }
                noteDrop(bytes, direction, media: media, now: now)
                return
            }
        }
        switch links[index(direction)].decide(now: now, impair: impair) {
        case .drop:
            update(direction) { $0.droppedLoss += 1 }
            noteDrop(bytes, direction, media: media, now: now)
        case .deliver(let at, let copy, let heldBack):
            if heldBack { update(direction) { $0.reordered += 1 } }
            enqueue(bytes, direction, at: at, media: media, now: now)
            if copy {
                update(direction) { $0.duplicated += 1 }
                enqueue(bytes, direction, at: at, media: media, now: now)
            }
        }
    }

    /// The next datagram due at `now`, if any. The caller sends it and calls `noteSent`.
    public mutating func pollRelease(now: UInt64) -> Release? {
        guard let release = queue.popDue(now: now) else { return nil }
        held[index(release.direction)] -= 1
        return release
    }

    public mutating func noteSent(_ direction: Direction, ok: Bool) {
        update(direction) { if ok { $0.forwarded += 1 } else { $0.sendErrors += 1 } }
    }

    /// The drop records kept since the last call (empty unless `policy.recordDrops`).
    public mutating func takeDrops() -> [DropRecord] {
        defer { drops.removeAll(keepingCapacity: true) }
        return drops
    }

    private mutating func enqueue(_ bytes: [UInt8], _ direction: Direction, at: UInt64, media: Bool, now: UInt64) {
        var at = at
        if var b = bottlenecks[index(direction)] {
            let verdict = b.offer(bytes: bytes.count + policy.bottleneckOverheadBytes, now: now)
            bottlenecks[index(direction)] = b
            switch verdict {
            case .drop:
                update(direction) { $0.droppedBottleneck += 1 }
                noteDrop(bytes, direction, media: media, now: now)
                return
            case .depart(let departs):
                at = departs &+ (at &- now)  // the path's delay and jitter after the queue
            }
        }
        if queue.push(Release(direction: direction, bytes: bytes), atNs: at) {
            held[index(direction)] += 1
        } else {
            update(direction) { $0.droppedQueue += 1 }
            noteDrop(bytes, direction, media: media, now: now)
        }
    }

    private mutating func noteDrop(_ bytes: [UInt8], _ direction: Direction, media: Bool, now: UInt64) {
        guard policy.recordDrops, media else { return }
        drops.append(DropRecord(direction: direction, seqLow: Self.seqLow(bytes), monoNs: now))
    }

    private func index(_ direction: Direction) -> Int { direction == .c2h ? 0 : 1 }

    private mutating func update(_ direction: Direction, _ change: (inout DirectionCounters) -> Void) {
        switch direction {
        case .c2h: change(&c2h)
        case .h2c: change(&h2c)
        }
    }
}
