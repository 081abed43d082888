/// The client's media receive path for one punktfunk/2 session (data-plane.md §8.4 "client
/// receive order"): length and tag checks → packet-number expansion → plausibility → AEAD open in
/// place → replay window → header → epoch check → pts unwrap → reassembly.
///
/// Runs on the network thread; not thread-safe. Each failure is counted and thrown as a
/// `MediaError`; nothing malformed reaches a reassembler, and nothing partial leaves one.
public final class MediaReceiver {
    public let video: Reassembler
    public let probe: Reassembler
    private let cipher: MediaCipher
    private var replay = ReplayWindow()
    private var local = MediaCounters()
    private var newestEpoch: UInt8?
    /// Newest unwrapped pts in µs since the clock origin; nil before the first packet.
    private var ptsReference: Int64?
    /// ServerHello tag 2: the Unix-ns instant media time 0 stands for.
    public let clockOriginNs: Int64

    /// Decrypted packet (clear prefix ‖ header ‖ shard) of the datagram being handled.
    private let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: MediaLimits.maxDatagramBytes, alignment: 64)

    /// - Parameter aead: the AEAD implementation (the session passes its system one).
    public init(exporter: [UInt8], suite: MediaSuite, limits: MediaLimits, clockOriginNs: Int64,
                aead: @escaping MediaAEADFactory = SwiftCryptoMediaAEAD.factory, fec: LeopardFEC = LeopardFEC()) {
        cipher = MediaCipher(exporter: exporter, direction: .hostToClient, suite: suite, aead: aead)
        video = Reassembler(stream: .video, limits: limits, fec: fec)
        probe = Reassembler(stream: .probe, limits: limits, fec: fec)
        self.clockOriginNs = clockOriginNs
    }

    deinit { plaintext.deallocate() }

    /// Authenticated probe-stream datagrams and their wire bytes (header and tag included), for the
    /// client's speed-test result (control-plane.md §5.3).
    public private(set) var probePackets: UInt64 = 0
    public private(set) var probeBytes: UInt64 = 0

    /// Receive-path counters plus both reassemblers'.
    public var counters: MediaCounters {
        var c = local
        for r in [video, probe] {
            let rc = r.counters
            c.badGeometry += rc.badGeometry
            c.shardSize += rc.shardSize
            c.duplicates += rc.duplicates
            c.late += rc.late
            c.redundant += rc.redundant
            c.overBudget += rc.overBudget
            c.shardsRecovered += rc.shardsRecovered
            c.lostHead += rc.lostHead
            c.lostMid += rc.lostMid
            c.lostTail += rc.lostTail
            c.blocksRecovered += rc.blocksRecovered
            c.framesDelivered += rc.framesDelivered
            c.framesLost += rc.framesLost
            c.probeFramesDelivered += rc.probeFramesDelivered
        }
        return c
    }

    /// Handles one media datagram (first byte `& 0xC0 == 0`). The datagram is not modified.
    /// `arrivalNs`: when it arrived (the pump: CLOCK_MONOTONIC ns; 0 = unknown), handed back in
    /// each AU's `firstArrivalNs`/`lastArrivalNs`.
    public func receive(_ datagram: UnsafeRawBufferPointer, arrivalNs: UInt64 = 0) throws(MediaError) {
        local.packetsReceived += 1
        local.bytesReceived += UInt64(datagram.count)
        do {
            try process(datagram, arrivalNs)
        } catch {
            switch error {
            // Reassembler errors are counted by the reassembler itself.
            case .badGeometry, .shardSize, .duplicateShard, .lateShard, .overBudget: break
            default: local.count(error)
            }
            throw error
        }
    }

    private func process(_ d: UnsafeRawBufferPointer, _ arrivalNs: UInt64) throws(MediaError) {
        let n = d.count
        guard n >= MediaLimits.v2Overhead else { throw .tooShort(n) }
        guard n <= MediaLimits.maxDatagramBytes else { throw .tooLong(n) }
        let tag = d[0]
        guard let stream = MediaStream(rawValue: tag) else { throw .badTag(tag) }
        let seq = ReplayWindow.expand(reference: replay.reference, low: d.baseAddress!.loadLE(at: 1))
        guard replay.plausible(seq) else { throw .implausibleSequence(seq) }
        guard replay.wouldAccept(seq) else { throw .replayed(seq) }
        try cipher.open(seq: seq, datagram: d, into: plaintext)
        guard replay.accept(seq) else { throw .replayed(seq) }

        let base = UnsafeRawPointer(plaintext.baseAddress!)
        let header = try MediaHeader(reading: base)
        try checkEpoch(header.epoch)
        let ptsNs = unwrapPts(header.ptsMicros)
        let shard = UnsafeRawBufferPointer(start: base + MediaHeader.length,
                                           count: n - MediaLimits.v2Overhead)
        if stream == .probe {
            probePackets &+= 1
            probeBytes &+= UInt64(n)
        }
        try (stream == .video ? video : probe).handle(header: header, shard: shard, ptsNs: ptsNs, arrivalNs: arrivalNs)
    }

    /// Drops frames of an epoch 1…128 behind the newest (§4.4); a newer epoch becomes newest.
    private func checkEpoch(_ e: UInt8) throws(MediaError) {
        guard let newest = newestEpoch else {
            newestEpoch = e
            return
        }
        let behind = newest &- e
        if (1...128).contains(behind) { throw .staleEpoch(e) }
        if behind != 0 { newestEpoch = e }
    }

    /// `ref + (int32)(pts_us − (uint32)ref)`, then `origin + µs × 1000`, saturating at ≥ 0 (§8.3).
    func unwrapPts(_ low: UInt32) -> Int64 {
        let us: Int64
        if let ref = ptsReference {
            us = ref + Int64(Int32(bitPattern: low &- UInt32(truncatingIfNeeded: ref)))
            if us > ref { ptsReference = us }
        } else {
            us = Int64(low)
            ptsReference = us
        }
        let (scaled, o1) = us.multipliedReportingOverflow(by: 1000)
        let (sum, o2) = clockOriginNs.addingReportingOverflow(scaled)
        if o1 || o2 { return us < 0 ? 0 : .max }
        return max(sum, 0)
    }
}
