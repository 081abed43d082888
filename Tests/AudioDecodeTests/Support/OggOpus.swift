/// A minimal Ogg Opus reader for the oracle tests: the packets of the first logical stream of
/// an Ogg file (RFC 3533 pages, RFC 7845 OpusHead), enough to feed ffmpeg's libopus packets to
/// `AudioDecoder`. No CRC check, no chained streams, no seeking.
struct OggOpus {
    /// RFC 7845 §5.1 identification header.
    struct Head: Equatable {
        var channels: Int
        /// Frames the decoder's output starts with that the stream does not play (the encoder's
        /// look-ahead); ffmpeg drops them.
        var preSkip: Int
        var mappingFamily: Int
        var streams: Int
        var coupledStreams: Int
        /// Vorbis channel order (family 1).
        var mapping: [UInt8]
    }

    struct Malformed: Error, CustomStringConvertible { var description: String }

    var head: Head
    /// Audio packets, in order (OpusHead and OpusTags removed).
    var packets: [[UInt8]]

    init(_ bytes: [UInt8]) throws {
        var all: [[UInt8]] = []
        var partial: [UInt8] = []
        var serial: UInt32?
        var at = 0
        func le32(_ o: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[o + $1]) << (8 * $1) } }
        while at < bytes.count {
            guard at + 27 <= bytes.count, bytes[at..<at + 4].elementsEqual("OggS".utf8) else {
                throw Malformed(description: "no Ogg page at \(at)")
            }
            let pageSerial = le32(at + 14)
            let segments = Int(bytes[at + 26])
            guard at + 27 + segments <= bytes.count else { throw Malformed(description: "short segment table at \(at)") }
            let table = bytes[(at + 27)..<(at + 27 + segments)]
            var body = at + 27 + segments
            let mine = serial == nil || serial == pageSerial
            if serial == nil { serial = pageSerial }
            for lacing in table {
                let n = Int(lacing)
                guard body + n <= bytes.count else { throw Malformed(description: "short page body at \(at)") }
                if mine {
                    partial += bytes[body..<body + n]
                    // A lacing value below 255 ends a packet (RFC 3533 §5).
                    if n < 255 { all.append(partial); partial = [] }
                }
                body += n
            }
            at = body
        }
        guard all.count >= 2, all[0].starts(with: "OpusHead".utf8), all[1].starts(with: "OpusTags".utf8) else {
            throw Malformed(description: "no OpusHead/OpusTags")
        }
        let h = all[0]
        guard h.count >= 19 else { throw Malformed(description: "short OpusHead") }
        let channels = Int(h[9]), family = Int(h[18])
        var head = Head(channels: channels, preSkip: Int(h[10]) | Int(h[11]) << 8, mappingFamily: family,
                        streams: 1, coupledStreams: channels == 2 ? 1 : 0, mapping: channels == 2 ? [0, 1] : [0])
        if family != 0 {
            guard h.count >= 21 + channels else { throw Malformed(description: "short channel mapping table") }
            head.streams = Int(h[19])
            head.coupledStreams = Int(h[20])
            head.mapping = Array(h[21..<21 + channels])
        }
        self.head = head
        packets = Array(all.dropFirst(2))
    }
}
