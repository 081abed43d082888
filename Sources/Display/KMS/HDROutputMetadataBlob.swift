import VideoFrames

/// The bytes of the kernel's `struct hdr_output_metadata` (drm_mode.h), the value of a
/// connector's `HDR_OUTPUT_METADATA` blob: HDMI static metadata type 1 (CTA-861-G).
///
/// Layout (32 bytes, native byte order, which is little-endian on every target we build for):
///
///     0  u32 metadata_type               0 = HDMI_STATIC_METADATA_TYPE1
///     4  u8  eotf                        2 = SMPTE ST 2084 (PQ)
///     5  u8  metadata_type               0 = static metadata descriptor type 1
///     6  u16 x, y  display_primaries[0]  red     (0.00002 units)
///    10  u16 x, y  display_primaries[1]  green
///    14  u16 x, y  display_primaries[2]  blue
///    18  u16 x, y  white_point
///    22  u16 max_display_mastering_luminance   1 cd/m²
///    24  u16 min_display_mastering_luminance   0.0001 cd/m²
///    26  u16 max_cll, 28 u16 max_fall          1 cd/m²
///    30  2 bytes of tail padding (zero)
///
/// The kernel copies the infoframe fields in index order and refuses a blob of any other size.
/// Primaries go red, green, blue, the order the kernel's own users (IGT kms_hdr, Chromium, Android's
/// HWC) write; H.265 SEI and the punktfunk wire list them green, blue, red.
public enum HDROutputMetadataBlob {
    public static let size = 32
    /// EOTF code points of CTA-861-G table 3.
    public static let eotfTraditionalSDR: UInt8 = 0
    public static let eotfST2084: UInt8 = 2
    public static let eotfHLG: UInt8 = 3

    public static func encode(_ m: HDRStaticMetadata, eotf: UInt8 = eotfST2084) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        func put(_ v: UInt16, at offset: Int) {
            withUnsafeBytes(of: v) { for (i, b) in $0.enumerated() { out[offset + i] = b } }
        }
        // bytes 0…3: metadata_type 0 (type 1 is code 0); byte 5: descriptor id 0
        out[4] = eotf
        var o = 6
        for c in [m.red, m.green, m.blue, m.whitePoint] { put(c.x, at: o); put(c.y, at: o + 2); o += 4 }
        put(m.maxMasteringLuminance, at: 22)
        put(m.minMasteringLuminance, at: 24)
        put(m.maxCLL, at: 26)
        put(m.maxFALL, at: 28)
        return out
    }

    /// The EOTF and metadata of a blob; nil unless it is 32 bytes of static metadata type 1.
    public static func decode(_ bytes: [UInt8]) -> (eotf: UInt8, metadata: HDRStaticMetadata)? {
        guard bytes.count == size, bytes[0..<4].allSatisfy({ $0 == 0 }), bytes[5] == 0 else { return nil }
        func u16(_ o: Int) -> UInt16 {
            var v: UInt16 = 0
            withUnsafeMutableBytes(of: &v) { $0[0] = bytes[o]; $0[1] = bytes[o + 1] }
            return v
        }
        func chroma(_ o: Int) -> HDRStaticMetadata.Chromaticity { .init(x: u16(o), y: u16(o + 2)) }
        let m = HDRStaticMetadata(red: chroma(6), green: chroma(10), blue: chroma(14), whitePoint: chroma(18),
                                  maxMasteringLuminance: u16(22), minMasteringLuminance: u16(24),
                                  maxCLL: u16(26), maxFALL: u16(28))
        return (bytes[4], m)
    }
}
