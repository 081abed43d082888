/// What the user lets the box ask a host for (config keys `hdr`, `ten-bit`, `audio-channels`,
/// `audio-redundancy`, `streamed-frames`, `device-name`; the shell's settings write the same keys).
/// Each setting can only narrow what the box can do (`BoxAbilities`): `hdr = on` on a TV without HDR
/// still sends no HDR. Defaults: everything the box can do.
public struct HelloSettings: Sendable, Equatable {
    /// How many sound channels to ask for.
    public enum Channels: Sendable, Equatable, CustomStringConvertible {
        /// What the sound device can play (its ELD or channel range).
        case auto
        /// Exactly 2, 6 or 8 (the device gets a downmix when it has fewer).
        case fixed(UInt8)

        /// `auto`, `2`, `6` or `8`; nil otherwise.
        public init?(_ text: String) {
            switch text.lowercased() {
            case "auto": self = .auto
            case "2", "stereo": self = .fixed(2)
            case "6", "5.1": self = .fixed(6)
            case "8", "7.1": self = .fixed(8)
            default: return nil
            }
        }

        public var description: String {
            switch self {
            case .auto: "auto"
            case .fixed(let n): "\(n)"
            }
        }
    }

    /// HDR10 when the TV and the decoder can show it (`hdr`, default on).
    public var hdr = true
    /// 10-bit video when the decoder takes Main10 (`ten-bit`, default on); off also turns HDR off.
    public var tenBit = true
    public var audioChannels: Channels = .auto
    /// Ask for 0xD2 redundant audio (`audio-redundancy`, default on).
    public var audioRedundancy = true
    /// Accept AUs the host starts sending before its encoder finished them (`streamed-frames`,
    /// default on).
    public var streamedFrames = true
    /// The name hosts list this box under (`device-name`; default: the machine's host name).
    public var deviceName: String?

    public init() {}
}
