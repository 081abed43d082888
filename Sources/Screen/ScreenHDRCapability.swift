import VideoFrames

/// Whether the screen can show an HDR10 picture (BT.2020 primaries, SMPTE ST 2084 PQ), and the
/// panel's own HDR metadata for the host (ClientHello tag 13, control-plane.md §3.2/§3.7).
///
/// `.hdr10` holds the panel's facts as static metadata: primaries and white point in 0.00002
/// (1/50000) units, `maxMasteringLuminance` = the panel's desired peak (1 cd/m²),
/// `minMasteringLuminance` = its desired black level (0.0001 cd/m²), `maxCLL` = the peak again and
/// `maxFALL` = its desired frame-average peak (1 cd/m²); a value the panel does not state is 0
/// ("unknown", as CTA-861.3 codes it). `.none` says in one short sentence why not.
public enum ScreenHDRCapability: Sendable, Equatable, CustomStringConvertible {
    case hdr10(HDRStaticMetadata)
    case none(reason: String)

    public var isHDR10: Bool { if case .hdr10 = self { true } else { false } }

    /// The panel metadata when HDR10 is possible.
    public var metadata: HDRStaticMetadata? { if case .hdr10(let m) = self { m } else { nil } }

    public var description: String {
        switch self {
        case .hdr10(let m):
            "HDR10 (peak \(m.maxMasteringLuminance) cd/m², frame average \(m.maxFALL) cd/m², black \(m.minMasteringLuminance) × 0.0001 cd/m²)"
        case .none(let reason): "no HDR: \(reason)"
        }
    }
}
