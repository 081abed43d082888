import Testing
@testable import PunktfunkSession

/// `DatagramBatch` drains a real loopback socket with recvmmsg: contents, order, sender and the
/// truncation flag survive the batching.
@Suite struct QuicDatagramBatchTests {
    @Test func drainsQueuedDatagramsInOrderAndFlagsOversizedOnes() throws {
        let receiver = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        let sender = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        var sent: [[UInt8]] = []
        for i in 0..<70 {
            let size = i == 33 ? 9300 : 1 + (i * 97) % 1500
            let d = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }
            #expect(try sender.send(d, to: receiver.localAddress))
            sent.append(d)
        }
        let batch = DatagramBatch(count: 32)
        var got: [(bytes: [UInt8], truncated: Bool)] = []
        for _ in 0..<50 where got.count < sent.count {
            let n = try batch.receive(from: receiver)
            #expect(n <= 32)
            for i in 0..<n {
                let d = batch[i]
                #expect(d.from == sender.localAddress)
                got.append((Array(d.bytes), d.truncated))
            }
        }
        #expect(got.count == sent.count)
        for (i, g) in got.enumerated() {
            if i == 33 {
                #expect(g.truncated)
                #expect(g.bytes.count == DatagramBatch.defaultSlotBytes)
            } else {
                #expect(!g.truncated)
                #expect(g.bytes == sent[i])
            }
        }
        #expect(try batch.receive(from: receiver) == 0)
    }
}
