import Audio
import PunktfunkWire

/// What the test host grants a client's sound ask: how many channels it encodes (ServerHello tag
/// 17) in which layout (tag 26), and whether it sends 0xD2 redundant audio (HOST_CAP_AUDIO_RED,
/// control-plane.md §3.6; data-plane.md §5.2). Pure.
///
/// Channels: a fixed count when the host is told one, else the client's ask (tag 10: 6 or 8,
/// anything else 2); a host without a multichannel source always grants 2. Layout: the client's
/// (tag 17), legacy for an id this side does not know. Redundancy: only when the client set
/// CLIENT_CAP_AUDIO_RED and the host allows it (§5.2: both bits, or no 0xD2).
public struct HostAudioPlan: Equatable, Sendable {
    public var channels: UInt8
    public var layout: AudioLayout
    public var redundant: Bool

    public init(channels: UInt8, layout: AudioLayout, redundant: Bool) {
        self.channels = channels; self.layout = layout; self.redundant = redundant
    }

    /// - Parameters:
    ///   - fixedChannels: the host's own choice (2, 6, 8); nil follows the client.
    ///   - surround: the host has a source for 6 and 8 channels.
    ///   - redundancy: the host may send 0xD2.
    public init(client: ClientHello?, fixedChannels: UInt8?, surround: Bool, redundancy: Bool) {
        let asked = fixedChannels ?? client?.audioChannels ?? 2
        channels = surround && (asked == 6 || asked == 8) ? asked : 2
        let l = client?.audioLayout ?? .legacy
        layout = [AudioLayout.legacy, .standard, .uncoupled].contains(l) ? l : .legacy
        redundant = redundancy && client?.features.clientCaps.contains(.audioRed) == true
    }

    /// The Opus layout the host encodes with.
    public var opusLayout: OpusLayout { (try? OpusLayout(channels: channels, layout: layout)) ?? .stereo }

    /// Writes the grant into a ServerHello.
    public func apply(to hello: inout ServerHello) {
        hello.audioChannels = channels
        hello.audioLayout = layout
        if redundant { hello.features.hostCaps.insert(.audioRed) } else { hello.features.hostCaps.remove(.audioRed) }
    }
}
