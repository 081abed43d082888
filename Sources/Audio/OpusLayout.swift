import PunktfunkWire

/// One Opus (multi)stream layout: how many elementary streams a packet holds, how many of them
/// are coupled (stereo), and which decoded stream channel feeds each output channel.
///
/// Output channels are always in the wire order FL FR FC LFE RL RR SL SR, first `channels` of
/// them (data-plane.md §5.1); the layout only decides which slots share a stream. `mapping[i]`
/// is the libopus multistream mapping entry for output channel `i`: coupled streams come first
/// and take stream channels `2k` (left) and `2k + 1` (right), then one per mono stream.
///
/// Invariant: `channels == mapping.count`, `1 ≤ streams`, `coupledStreams ≤ streams`,
/// `streams + coupledStreams ≤ 255`, every entry `< streams + coupledStreams` or 255 (silent).
/// Pure: no libopus state.
public struct OpusLayout: Hashable, Sendable, CustomStringConvertible {
    public let channels: Int
    public let streams: Int
    public let coupledStreams: Int
    public let mapping: [UInt8]

    /// A layout built from explicit values (an OpusHead, a test), checked against the invariant.
    public init(channels: Int, streams: Int, coupledStreams: Int, mapping: [UInt8]) throws(AudioError) {
        let decoded = streams + coupledStreams
        guard (1...255).contains(channels), mapping.count == channels, streams >= 1, coupledStreams >= 0,
              coupledStreams <= streams, decoded <= 255,
              mapping.allSatisfy({ Int($0) < decoded || $0 == 255 })
        else {
            throw .invalidLayout(channels: channels, streams: streams, coupledStreams: coupledStreams, mapping: mapping)
        }
        self.init(unchecked: channels, streams, coupledStreams, mapping)
    }

    private init(unchecked channels: Int, _ streams: Int, _ coupled: Int, _ mapping: [UInt8]) {
        self.channels = channels
        self.streams = streams
        self.coupledStreams = coupled
        self.mapping = mapping
    }

    /// The layout a session encodes, from its `audio_channels` and `audio_layout`
    /// (ServerHello tags 17 and 26; data-plane.md §5.1 table, `layout_for` in the host's
    /// `audio/layout.rs`). Channel counts other than 6 and 8 are stereo, which every layout
    /// shares.
    /// - Throws: `.unknownLayout` for a wire id other than 0, 1, 2 — a newer host's coupling is
    ///   refused rather than guessed, whatever the channel count (as the reference client does).
    public init(channels: UInt8, layout: AudioLayout) throws(AudioError) {
        switch (channels, layout) {
        case (_, let l) where ![AudioLayout.legacy, .standard, .uncoupled].contains(l):
            throw .unknownLayout(l.rawValue)
        case (6, .legacy): self = .surround51Legacy
        case (6, .standard): self = .surround51Standard
        case (6, .uncoupled): self = .surround51Uncoupled
        case (8, .legacy): self = .surround71Legacy
        case (8, .standard): self = .surround71Standard
        case (8, .uncoupled): self = .surround71Uncoupled
        default: self = .stereo
        }
    }

    /// The layout of the session a ServerHello resolved.
    public init(serverHello: ServerHello) throws(AudioError) {
        try self.init(channels: serverHello.audioChannels, layout: serverHello.audioLayout)
    }

    // data-plane.md §5.1 multistream table, row by row.

    /// STEREO: one coupled stream (every layout id).
    public static let stereo = OpusLayout(unchecked: 2, 1, 1, [0, 1])
    /// 5.1 legacy: (FL,FR) + (FC,LFE) coupled, RL and RR mono.
    public static let surround51Legacy = OpusLayout(unchecked: 6, 4, 2, [0, 1, 2, 3, 4, 5])
    /// 5.1 standard (RFC 7845 family 1 coupling): (FL,FR) + (RL,RR) coupled, FC and LFE mono.
    public static let surround51Standard = OpusLayout(unchecked: 6, 4, 2, [0, 1, 4, 5, 2, 3])
    /// 5.1 HQ: one mono stream per channel.
    public static let surround51Uncoupled = OpusLayout(unchecked: 6, 6, 0, [0, 1, 2, 3, 4, 5])
    /// 7.1 legacy: (FL,FR) + (FC,LFE) + (RL,RR) coupled, SL and SR mono.
    public static let surround71Legacy = OpusLayout(unchecked: 8, 5, 3, [0, 1, 2, 3, 4, 5, 6, 7])
    /// 7.1 standard: (FL,FR) + (RL,RR) + (SL,SR) coupled, FC and LFE mono.
    public static let surround71Standard = OpusLayout(unchecked: 8, 5, 3, [0, 1, 6, 7, 2, 3, 4, 5])
    /// 7.1 HQ: one mono stream per channel.
    public static let surround71Uncoupled = OpusLayout(unchecked: 8, 8, 0, [0, 1, 2, 3, 4, 5, 6, 7])

    public var description: String {
        "\(channels) ch, \(streams) streams, \(coupledStreams) coupled, mapping \(mapping)"
    }
}
