internal import CNgtcp2

/// Bytes written to one stream, kept until the peer acknowledges them: ngtcp2 0.12 does not copy
/// stream data, it re-reads it for retransmission until `acked_stream_data_offset` reports it
/// (ngtcp2.h, `ngtcp2_conn_writev_stream`).
///
/// Invariant: chunks are contiguous and ordered; `ackedOffset ≤ sentOffset ≤ endOffset`; a chunk is
/// freed only once entirely below `ackedOffset` (or by `freeAll`). Owned by one `QuicConnection`.
final class StreamSendBuffer {
    private struct Chunk {
        let base: UnsafeMutableRawPointer  // owned, malloc'ed by `append`
        let count: Int
        let offset: UInt64  // stream offset of the first byte
    }

    private var chunks: [Chunk] = []
    private(set) var endOffset: UInt64 = 0
    private(set) var sentOffset: UInt64 = 0
    private var ackedOffset: UInt64 = 0
    var finQueued = false
    private(set) var finSent = false

    /// Bytes handed in but not yet given to ngtcp2.
    var unsentCount: Int { Int(endOffset - sentOffset) }
    /// True while there are bytes or a FIN still to send.
    var hasUnsent: Bool { unsentCount > 0 || (finQueued && !finSent) }
    /// Every byte written was acknowledged by the peer.
    var isAcknowledged: Bool { ackedOffset >= endOffset }

    func append(_ bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty else { return }
        let base = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
        _ = UnsafeMutableRawBufferPointer(start: base, count: bytes.count).initializeMemory(as: UInt8.self, from: bytes)
        chunks.append(Chunk(base: base, count: bytes.count, offset: endOffset))
        endOffset += UInt64(bytes.count)
    }

    /// Calls `body` with up to 16 vectors covering the unsent bytes (`isAll` when they cover all of
    /// them, so a FIN may ride along).
    func withUnsentVectors<R>(_ body: (UnsafePointer<ngtcp2_vec>?, Int, Bool) -> R) -> R {
        var vectors: [ngtcp2_vec] = []
        var covered = sentOffset
        for chunk in chunks where chunk.offset + UInt64(chunk.count) > sentOffset {
            if vectors.count == 16 { break }
            let skip = Int(sentOffset > chunk.offset ? sentOffset - chunk.offset : 0)
            vectors.append(ngtcp2_vec(base: chunk.base.assumingMemoryBound(to: UInt8.self) + skip,
                                      len: chunk.count - skip))
            covered = chunk.offset + UInt64(chunk.count)
        }
        let isAll = covered == endOffset
        if vectors.isEmpty { return body(nil, 0, isAll) }
        return vectors.withUnsafeBufferPointer { body($0.baseAddress, $0.count, isAll) }
    }

    /// Records that ngtcp2 took `count` more bytes (and the FIN, if `finSent`).
    func markSent(_ count: Int, finSent: Bool) {
        sentOffset += UInt64(count)
        if finSent { self.finSent = true }
    }

    /// Frees chunks that lie entirely below `offset`.
    func acknowledge(upTo offset: UInt64) {
        ackedOffset = max(ackedOffset, offset)
        while let first = chunks.first, first.offset + UInt64(first.count) <= ackedOffset {
            first.base.deallocate()
            chunks.removeFirst()
        }
    }

    func freeAll() {
        for chunk in chunks { chunk.base.deallocate() }
        chunks.removeAll()
    }

    deinit { freeAll() }
}
