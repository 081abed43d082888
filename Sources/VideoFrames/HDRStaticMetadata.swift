/// Static HDR metadata of a stream (SMPTE ST 2086 mastering display colour volume + CTA-861.3
/// content light levels), in the units of the HDMI static metadata descriptor type 1 that the
/// display is sent (CTA-861-G; the kernel's `struct hdr_metadata_infoframe`).
///
/// Units: chromaticities in 0.00002 (50000 = 1.0); `maxMasteringLuminance`, `maxCLL` and
/// `maxFALL` in 1 cd/m²; `minMasteringLuminance` in 0.0001 cd/m². A value of 0 means "unknown"
/// (CTA-861.3), so a stream with only one of the two SEI messages leaves the other fields 0.
public struct HDRStaticMetadata: Sendable, Equatable, Hashable {
    /// One CIE 1931 xy chromaticity, each coordinate in 0.00002 units.
    public struct Chromaticity: Sendable, Equatable, Hashable {
        public var x: UInt16
        public var y: UInt16
        public init(x: UInt16, y: UInt16) { self.x = x; self.y = y }
    }

    public var red: Chromaticity
    public var green: Chromaticity
    public var blue: Chromaticity
    public var whitePoint: Chromaticity
    /// Mastering display peak, 1 cd/m².
    public var maxMasteringLuminance: UInt16
    /// Mastering display black level, 0.0001 cd/m².
    public var minMasteringLuminance: UInt16
    /// Maximum content light level, 1 cd/m².
    public var maxCLL: UInt16
    /// Maximum frame-average light level, 1 cd/m².
    public var maxFALL: UInt16

    public init(red: Chromaticity, green: Chromaticity, blue: Chromaticity, whitePoint: Chromaticity,
                maxMasteringLuminance: UInt16, minMasteringLuminance: UInt16, maxCLL: UInt16, maxFALL: UInt16) {
        self.red = red; self.green = green; self.blue = blue; self.whitePoint = whitePoint
        self.maxMasteringLuminance = maxMasteringLuminance; self.minMasteringLuminance = minMasteringLuminance
        self.maxCLL = maxCLL; self.maxFALL = maxFALL
    }

    /// All fields 0 ("unknown"): what an HDR10 signal carries when the stream gave no metadata.
    public static let unknown = HDRStaticMetadata(
        red: .init(x: 0, y: 0), green: .init(x: 0, y: 0), blue: .init(x: 0, y: 0), whitePoint: .init(x: 0, y: 0),
        maxMasteringLuminance: 0, minMasteringLuminance: 0, maxCLL: 0, maxFALL: 0)

    /// Mastering luminance as H.265 SEI / ST 2086 code it (both in 0.0001 cd/m², 32 bits) to the
    /// descriptor's units: the peak rounds to whole cd/m²; both clamp at 65535.
    public static func descriptorLuminance(max: UInt32, min: UInt32) -> (max: UInt16, min: UInt16) {
        let peak = (UInt64(max) + 5_000) / 10_000
        return (UInt16(Swift.min(peak, 65_535)), UInt16(Swift.min(min, 65_535)))
    }
}

extension HDRStaticMetadata: CustomStringConvertible {
    /// libx265's notation in these units, e.g. `R(35400,14600) G(8500,39850) B(6550,2300)
    /// WP(15635,16450) L(1000 cd/m², 50) MaxCLL 1000 MaxFALL 400`.
    public var description: String {
        func c(_ p: Chromaticity) -> String { "(\(p.x),\(p.y))" }
        return "R\(c(red)) G\(c(green)) B\(c(blue)) WP\(c(whitePoint)) "
            + "L(\(maxMasteringLuminance) cd/m², \(minMasteringLuminance)) MaxCLL \(maxCLL) MaxFALL \(maxFALL)"
    }
}
