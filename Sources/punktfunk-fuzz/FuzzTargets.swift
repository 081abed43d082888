import HEVC
import PunktfunkWire

/// Every decoder that sees network bytes, as a libFuzzer target. Each target must never trap;
/// where a decoder has an encoder, decoding what it encodes must give the same value back
/// (a failed round trip traps on purpose, so libFuzzer reports it).
enum FuzzTarget: String, CaseIterable {
    /// Control stream bytes → `FrameReader` → `ControlMessage`, with re-encode round trip.
    case controlStream = "control-stream"
    /// A QUIC datagram as the client receives it.
    case hostDatagram = "host-datagram"
    /// A QUIC datagram as the host receives it (the test host decodes these).
    case clientDatagram = "client-datagram"
    /// Raw and authentic-but-hostile media datagrams into a `MediaReceiver`.
    case mediaReceiver = "media-receiver"
    /// FEC: any erasure pattern within the parity budget rebuilds the exact data.
    case fecRoundTrip = "fec-round-trip"
    /// An Annex-B HEVC access unit through the bitstream planner (parameter sets persist
    /// within one input, so slices are parsed against the VPS/SPS/PPS that precede them).
    case hevcAnnexB = "hevc-annexb"
    /// Host audio datagrams (Opus, multistream, RED, PCM, DTX, concealment) through an
    /// `AudioDecoder` of a format the input picks (`AudioFuzz`).
    case audioDecode = "audio-decode"
    /// An mDNS packet from anyone on the link through the DNS message codec (`DNSFuzz`).
    case dns = "dns"
    /// Frames from the HDMI-CEC bus through the codec and the playback follower (`CECFuzz`).
    case cec = "cec"
    /// A Feedback datagram body (kind 0x03) through its codec, with round trip (`FeedbackFuzz`).
    case feedback = "feedback"
    /// A script of frame, loss, decode and config events through the loss-recovery state
    /// machines, with their invariants checked after every step (`RecoveryFuzz`).
    case recovery = "recovery"
    /// A sink's EDID through the HDR facts the hello's tag 13 comes from (`EDIDFuzz`).
    case edid = "edid"
    /// A sink's ELD through the channel decision the hello's tag 10 comes from (`ELDFuzz`).
    case eld = "eld"
    /// A netlink datagram from the kernel (nl80211's replies and events) through its codec,
    /// with round trip (`NetlinkFuzz`).
    case netlink = "netlink"

    func run(_ bytes: [UInt8]) {
        switch self {
        case .controlStream: Self.controlStream(bytes)
        case .hostDatagram: Self.hostDatagram(bytes)
        case .clientDatagram: Self.clientDatagram(bytes)
        case .mediaReceiver: MediaFuzz.shared.run(bytes)
        case .fecRoundTrip: Self.fecRoundTrip(bytes)
        case .hevcAnnexB:
            var parser = HEVCParser()
            _ = parser.parseAnnexB(bytes)
        case .audioDecode: AudioFuzz.run(bytes)
        case .dns: DNSFuzz.run(bytes)
        case .cec: CECFuzz.run(bytes)
        case .feedback: FeedbackFuzz.run(bytes)
        case .recovery: RecoveryFuzz.run(bytes)
        case .edid: EDIDFuzz.run(bytes)
        case .eld: ELDFuzz.run(bytes)
        case .netlink: NetlinkFuzz.run(bytes)
        }
    }

    static func controlStream(_ bytes: [UInt8]) {
        var reader = FrameReader()
        // Deliver in two pieces so partial-header and partial-body paths run too.
        let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        for piece in [bytes[..<cut], bytes[cut...]] {
            reader.append(piece)
            while true {
                let frame: ControlFrame?
                do { frame = try reader.next() } catch { return }
                guard let frame else { break }
                guard let message = try? ControlMessage(frame: frame) else { continue }
                let again = try? ControlMessage(frame: message.frame)
                precondition(again == message, "control message round trip differs: \(message)")
            }
        }
    }

    static func hostDatagram(_ bytes: [UInt8]) {
        guard let d = try? HostDatagram(decoding: bytes) else { return }
        precondition((try? HostDatagram(decoding: d.encoded)) == d, "host datagram round trip differs: \(d)")
    }

    static func clientDatagram(_ bytes: [UInt8]) {
        guard let d = try? ClientDatagram(decoding: bytes) else { return }
        precondition((try? ClientDatagram(decoding: d.encoded)) == d, "client datagram round trip differs: \(d)")
    }

    nonisolated(unsafe) static let fec = LeopardFEC()

    static func fecRoundTrip(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else { return }
        let k = Int(bytes[0]) % 48 + 1
        let m = Int(bytes[1]) % 16 + 1
        let p = (Int(bytes[2]) % 80 + 1) * 2
        var rng = SplitMix64(seed: UInt64(bytes[3]) | UInt64(bytes.count) << 8)
        let data = (0..<k).map { i in (0..<p).map { j in
            let n = 4 + i * p + j
            return n < bytes.count ? bytes[n] : UInt8(truncatingIfNeeded: rng.next())
        } }
        guard let parity = try? fec.encode(data, m: m) else { preconditionFailure("encode refused k \(k) m \(m) P \(p)") }
        var shards: [[UInt8]?] = data + parity
        var erased = 0
        for i in shards.indices where erased < m && rng.next() % 3 == 0 {
            shards[i] = nil
            erased += 1
        }
        guard let rebuilt = try? fec.reconstruct(k: k, m: m, shards: shards) else {
            preconditionFailure("reconstruct refused \(erased) erasures of k \(k) m \(m)")
        }
        precondition(rebuilt == data, "FEC rebuilt different bytes for k \(k) m \(m) P \(p)")
    }
}

/// Media receive-path fuzzing. Input = records `mode u8 ‖ length u16 LE ‖ bytes`:
/// mode bit 0 set ⇒ the bytes are a plaintext packet (30-byte header ‖ shard) that the harness
/// seals with the session key and a fresh packet number, so hostile *authentic* headers reach
/// the reassembler's firewall; clear ⇒ the bytes go in raw. A new receiver per input keeps
/// runs independent. Delivered AUs must have the length their header promised.
final class MediaFuzz {
    nonisolated(unsafe) static let shared = MediaFuzz()

    let exporter = [UInt8](repeating: 0x5A, count: 32)

    func run(_ bytes: [UInt8]) {
        let limits = MediaLimits(shardBytes: 64, maxDataPerBlock: 16, maxFrameBytes: 1 << 20)
        let receiver = MediaReceiver(exporter: exporter, suite: .aes128GCM, limits: limits, clockOriginNs: 0)
        let sealer = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .aes128GCM)
        var delivered = 0
        receiver.video.onAccessUnit = { au in
            precondition(au.data.count <= limits.maxFrameBytes)
            delivered += 1
        }
        var seq: UInt64 = 0
        var i = 0
        while i + 3 <= bytes.count {
            let mode = bytes[i]
            let length = min(Int(bytes[i + 1]) | Int(bytes[i + 2]) << 8, MediaLimits.maxDatagramBytes - MediaCipher.tagLength)
            i += 3
            var datagram = Array(bytes[i..<min(i + length, bytes.count)])
            i += datagram.count
            if mode & 1 == 1 && datagram.count >= MediaHeader.length {
                datagram[0] &= 0x0F
                let low = UInt32(truncatingIfNeeded: seq)
                for b in 0..<4 { datagram[1 + b] = UInt8(truncatingIfNeeded: low >> (8 * b)) }
                guard let sealed = try? sealer.seal(seq: seq, packet: datagram) else { continue }
                datagram = sealed
                seq += UInt64(mode >> 1) + 1
            }
            datagram.withUnsafeBytes { try? receiver.receive($0) }
        }
        let c = receiver.counters
        precondition(c.framesDelivered + c.probeFramesDelivered >= UInt64(delivered) || delivered == 0)
    }
}
