import Testing
import Audio
import Foundation

@Suite struct AudioInboxTests {
    @Test func packetsComeOutInOrderWithTheirBytes() {
        let inbox = AudioInbox(capacity: 4, slotBytes: 16)
        let primary: [UInt8] = [1, 2, 3]
        let previous: [UInt8] = [9, 8]
        primary.withUnsafeBytes { p in previous.withUnsafeBytes { q in
            #expect(inbox.push(seq: 7, ptsNs: 70, arrivalNs: 700, primary: p, previous: q))
            #expect(inbox.push(seq: 8, ptsNs: 80, arrivalNs: 800, primary: p))
        } }
        var got: [(UInt32, [UInt8], Int)] = []
        #expect(inbox.drain { e, bytes in got.append((e.seq, Array(bytes), e.primaryLength)) } == 2)
        #expect(got.map(\.0) == [7, 8])
        #expect(got[0].1 == [1, 2, 3, 9, 8] && got[0].2 == 3)
        #expect(got[1].1 == [1, 2, 3])
        #expect(inbox.drain { _, _ in } == 0)
    }

    @Test func aFullRingOrOversizePacketIsDroppedAndCounted() {
        let inbox = AudioInbox(capacity: 4, slotBytes: 8)
        let small = [UInt8](repeating: 1, count: 8), big = [UInt8](repeating: 1, count: 9)
        small.withUnsafeBytes { p in
            for seq in 0..<6 { inbox.push(seq: UInt32(seq), ptsNs: 0, arrivalNs: 0, primary: p) }
        }
        big.withUnsafeBytes { #expect(!inbox.push(seq: 9, ptsNs: 0, arrivalNs: 0, primary: $0)) }
        #expect(inbox.droppedFull == 2)
        #expect(inbox.droppedOversize == 1)
        var seqs: [UInt32] = []
        inbox.drain { e, _ in seqs.append(e.seq) }
        #expect(seqs == [0, 1, 2, 3])
    }

    @Test func oneProducerThreadAndOneConsumerThreadLoseNothingWhileThereIsRoom() async {
        let inbox = AudioInbox(capacity: 64, slotBytes: 8)
        let total = 20_000
        let producer = Thread {
            var seq: UInt32 = 0
            var bytes = [UInt8](repeating: 0, count: 8)
            while Int(seq) < total {
                bytes[0] = UInt8(truncatingIfNeeded: seq)
                let ok = bytes.withUnsafeBytes { inbox.push(seq: seq, ptsNs: UInt64(seq), arrivalNs: 0, primary: $0) }
                if ok { seq += 1 }
            }
        }
        producer.start()
        var next: UInt32 = 0
        var mismatches = 0
        while Int(next) < total {
            inbox.drain { e, bytes in
                if e.seq != next || bytes[0] != UInt8(truncatingIfNeeded: next) || e.ptsNs != UInt64(next) { mismatches += 1 }
                next += 1
            }
        }
        #expect(mismatches == 0)
        #expect(Int(next) == total)
    }
}
