import Glibc
import HEVC
import PunktfunkWire
import SystemClock

/// How the test host sends one video AU when it simulates an encoder that finishes the picture
/// slice by slice (`sliceEncodeNs` per slice): whole (the baseline — every slice encoded, then
/// the AU packetized) or streamed (data-plane.md §2.3 — each slice's whole shards leave as soon
/// as it is encoded, sentinel blocks first, the final block last). Both spend the same simulated
/// encode time, so only the overlap of encode and send differs. Session thread; blocks for the
/// encode time.
enum SlicedSend {
    /// Where the time of one AU went on the host, CLOCK_MONOTONIC ns.
    struct Times {
        var encodeStartNs: UInt64
        /// The last slice "encoded".
        var encodedNs: UInt64
        /// First and last datagram handed to the socket.
        var firstSentNs: UInt64
        var lastSentNs: UInt64
        /// Datagrams sent before the last slice was encoded (sentinel blocks; 0 when whole).
        var sentEarly = 0
    }

    /// Byte offsets where each slice's piece ends (the last is `au.count`): a piece is every NAL
    /// unit up to and including one VCL NAL unit (type < 32); parameter sets and SEI go with the
    /// slice after them, anything after the last slice with the last piece. An AU without a VCL NAL
    /// unit (synthetic bytes) is one piece.
    static func sliceEnds(_ au: [UInt8]) -> [Int] {
        var ends: [Int] = []
        for r in AnnexB.nalUnitRanges(in: au) where (au[r.lowerBound] >> 1) & 0x3F < 32 { ends.append(r.upperBound) }
        if ends.isEmpty { return [au.count] }
        ends[ends.count - 1] = au.count
        return ends
    }

    /// Sends `au` (`streamed` nil: whole). `emit` gets each sealed datagram. `paceBitsPerSecond`
    /// > 0 paces the datagrams at that link rate (as a host's pacer does), across slices too.
    static func send(_ au: [UInt8], sender: MediaSender, frame: UInt32, epoch: UInt8, userFlags: UInt32,
                     ptsMicros: UInt32, streamed: Packetizer.StreamedMode?, sliceEncodeNs: UInt64,
                     paceBitsPerSecond: UInt64 = 0, emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Times {
        try withoutActuallyEscaping(emit) { emit in
            try sendTimed(au, sender: sender, frame: frame, epoch: epoch, userFlags: userFlags, ptsMicros: ptsMicros,
                          streamed: streamed, sliceEncodeNs: sliceEncodeNs, pace: paceBitsPerSecond, emit: emit)
        }
    }

    private static func sendTimed(_ au: [UInt8], sender: MediaSender, frame: UInt32, epoch: UInt8, userFlags: UInt32,
                                  ptsMicros: UInt32, streamed: Packetizer.StreamedMode?, sliceEncodeNs: UInt64,
                                  pace: UInt64, emit: @escaping (UnsafeRawBufferPointer) throws -> Void) throws -> Times {
        let start = MonotonicClock.nowNs()
        var times = Times(encodeStartNs: start, encodedNs: start, firstSentNs: 0, lastSentNs: 0)
        /// When the link is free again (pacing), CLOCK_MONOTONIC ns.
        var linkFreeNs: UInt64 = 0
        let counted: (UnsafeRawBufferPointer) throws -> Void = { d in
            if pace > 0 {
                // Bursts of up to `paceBurstNs` of link time: a sleep per datagram would oversleep
                // (timer slack) and pace below the rate.
                if linkFreeNs > paceBurstNs { sleep(until: linkFreeNs - paceBurstNs) }
                linkFreeNs = max(linkFreeNs, MonotonicClock.nowNs()) &+ UInt64(d.count) * 8 * 1_000_000_000 / pace
            }
            if times.firstSentNs == 0 { times.firstSentNs = MonotonicClock.nowNs() }
            try emit(d)
        }
        let ends = sliceEnds(au)
        if let mode = streamed {
            sender.beginStreamed(frame: frame, epoch: epoch, userFlags: userFlags, ptsMicros: ptsMicros, mode: mode)
            var at = 0
            var sent = 0
            let countedEarly: (UnsafeRawBufferPointer) throws -> Void = { d in
                sent += 1
                try counted(d)
            }
            for (i, end) in ends.enumerated() {
                if i == ends.count - 1 { times.sentEarly = sent }
                sleep(until: start &+ UInt64(i + 1) &* sliceEncodeNs)
                times.encodedNs = MonotonicClock.nowNs()
                try au[at..<end].withUnsafeBytes { try sender.appendStreamed($0, final: i == ends.count - 1, emit: countedEarly) }
                at = end
            }
        } else {
            sleep(until: start &+ UInt64(ends.count) &* sliceEncodeNs)
            times.encodedNs = MonotonicClock.nowNs()
            try au.withUnsafeBytes {
                try sender.send($0, frame: frame, epoch: epoch, userFlags: userFlags, ptsMicros: ptsMicros, emit: counted)
            }
        }
        times.lastSentNs = MonotonicClock.nowNs()
        if times.firstSentNs == 0 { times.firstSentNs = times.lastSentNs }
        return times
    }

    /// Link time the pacer lets go in one burst, ns.
    static let paceBurstNs: UInt64 = 500_000

    private static func sleep(until t: UInt64) {
        while true {
            let now = MonotonicClock.nowNs()
            guard now < t else { return }
            usleep(UInt32(min((t - now) / 1000, 1_000_000)))
        }
    }
}
