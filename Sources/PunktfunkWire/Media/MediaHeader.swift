/// The 30-byte punktfunk/2 media header (data-plane.md §8.3), all fields little-endian.
///
/// ```
/// off  0 tag u8      00rr ssss: top two bits 0 (never a QUIC packet), rr = 0, ssss = stream
///      1 seq_low u32 low 32 bits of the packet number            ─┐ clear prefix = AAD
///      5 epoch u8                                                  ─┘ sealed from here on
///      6 flags u16   user_flags & 0x7FFF, 0x8000 = last block of the AU
///      8 frame u32   AU counter (video and probe count separately)
///     12 pts_us u32  µs since the session clock origin, wrapping
///     16 block u16   block index within the AU
///     18 base u32    AU shard position of this block's first data shard
///     22 shard u16   0..<k data, k..<k+m parity
///     24 k u16, 26 m u16
///     28 pad u16     zero bytes at the end of the AU's last data shard (last block only)
/// ```
public struct MediaHeader: Equatable, Sendable {
    public static let length = 30
    /// Bytes in clear before the ciphertext: tag ‖ seq_low. They are the AEAD's AAD.
    public static let clearPrefixLength = 5
    public static let lastBlockFlag: UInt16 = 0x8000

    public var stream: MediaStream
    public var seqLow: UInt32
    public var epoch: UInt8
    public var flags: UInt16
    public var frame: UInt32
    public var ptsMicros: UInt32
    public var block: UInt16
    public var base: UInt32
    public var shard: UInt16
    public var k: UInt16
    public var m: UInt16
    public var pad: UInt16

    public init(stream: MediaStream = .video, seqLow: UInt32 = 0, epoch: UInt8 = 0, flags: UInt16 = 0,
                frame: UInt32 = 0, ptsMicros: UInt32 = 0, block: UInt16 = 0, base: UInt32 = 0,
                shard: UInt16 = 0, k: UInt16 = 0, m: UInt16 = 0, pad: UInt16 = 0) {
        self.stream = stream
        self.seqLow = seqLow
        self.epoch = epoch
        self.flags = flags
        self.frame = frame
        self.ptsMicros = ptsMicros
        self.block = block
        self.base = base
        self.shard = shard
        self.k = k
        self.m = m
        self.pad = pad
    }

    public var isLastBlock: Bool { flags & Self.lastBlockFlag != 0 }
    /// The AU-level `user_flags` bits carried in `flags` (data-plane.md §1.5).
    public var userFlags: UInt32 { UInt32(flags & 0x7FFF) }

    /// Whether a datagram starting with `byte` is media rather than QUIC (RFC 9443 demux).
    @inline(__always)
    public static func isMedia(firstByte byte: UInt8) -> Bool { byte & 0xC0 == 0 }

    /// Writes the 30 bytes at `p`. - Precondition: 30 writable bytes.
    public func write(to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: stream.rawValue, as: UInt8.self)
        p.storeLE(seqLow, at: 1)
        p.storeBytes(of: epoch, toByteOffset: 5, as: UInt8.self)
        p.storeLE(flags, at: 6)
        p.storeLE(frame, at: 8)
        p.storeLE(ptsMicros, at: 12)
        p.storeLE(block, at: 16)
        p.storeLE(base, at: 18)
        p.storeLE(shard, at: 22)
        p.storeLE(k, at: 24)
        p.storeLE(m, at: 26)
        p.storeLE(pad, at: 28)
    }

    public var encoded: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.length)
        out.withUnsafeMutableBytes { write(to: $0.baseAddress!) }
        return out
    }

    /// Reads a header from 30 bytes at `p`. Throws on a tag with reserved bits or a stream
    /// other than video/probe (receivers refuse tag > 1, §8.3).
    public init(reading p: UnsafeRawPointer) throws(MediaError) {
        let tag = p.load(as: UInt8.self)
        guard let s = MediaStream(rawValue: tag) else { throw .badTag(tag) }
        stream = s
        seqLow = p.loadLE(at: 1)
        epoch = p.load(fromByteOffset: 5, as: UInt8.self)
        flags = p.loadLE(at: 6)
        frame = p.loadLE(at: 8)
        ptsMicros = p.loadLE(at: 12)
        block = p.loadLE(at: 16)
        base = p.loadLE(at: 18)
        shard = p.loadLE(at: 22)
        k = p.loadLE(at: 24)
        m = p.loadLE(at: 26)
        pad = p.loadLE(at: 28)
    }

    public init(decoding bytes: [UInt8]) throws(MediaError) {
        guard bytes.count >= Self.length else { throw .tooShort(bytes.count) }
        var result: Result<MediaHeader, MediaError> = .failure(.tooShort(0))
        bytes.withUnsafeBytes { raw in
            do throws(MediaError) { result = .success(try MediaHeader(reading: raw.baseAddress!)) } catch { result = .failure(error) }
        }
        self = try result.get()
    }
}

/// The `ssss` stream nibble of the media tag byte.
public enum MediaStream: UInt8, Sendable {
    case video = 0
    /// Bandwidth-probe filler: never decodable video, its own frame-index space.
    case probe = 1
}

extension UnsafeMutableRawPointer {
    @inline(__always)
    func storeLE<T: FixedWidthInteger>(_ v: T, at offset: Int) {
        storeBytes(of: v.littleEndian, toByteOffset: offset, as: T.self)
    }
}

extension UnsafeRawPointer {
    @inline(__always)
    func loadLE<T: FixedWidthInteger>(at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
