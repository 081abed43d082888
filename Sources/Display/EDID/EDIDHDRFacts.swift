import Foundation
import VideoFrames

/// What a sink's EDID says about HDR: the base block's chromaticity and, from every CTA-861
/// extension, the first HDR Static Metadata Data Block and the first Colorimetry Data Block.
///
/// Tolerant by construction: a blob without the base block's 8-byte header is no EDID (nil);
/// anything else yields what it holds — a short base block no chromaticity, a truncated
/// extension the data blocks that fit. Checksums are not judged (the kernel has read the blob
/// already and exposes it as it is). Extensions are taken from the blob's bytes, not from base
/// byte 126: an HF-EEODB EDID carries more blocks than that count says.
public struct EDIDHDRFacts: Sendable, Equatable {
    public static let header: [UInt8] = [0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]
    public static let blockBytes = 128

    /// Bytes 25–34 of the base block (nil when it is shorter than that).
    public var chromaticity: EDIDChromaticity?
    /// The first HDR Static Metadata Data Block of any CTA extension.
    public var hdrStaticMetadata: CTAHDRStaticMetadataBlock?
    /// The first Colorimetry Data Block of any CTA extension.
    public var colorimetry: CTAColorimetryBlock?
    /// CTA-861 extension blocks seen (whole or truncated).
    public var ctaExtensions: Int

    public init(chromaticity: EDIDChromaticity?, hdrStaticMetadata: CTAHDRStaticMetadataBlock?,
                colorimetry: CTAColorimetryBlock?, ctaExtensions: Int) {
        self.chromaticity = chromaticity; self.hdrStaticMetadata = hdrStaticMetadata
        self.colorimetry = colorimetry; self.ctaExtensions = ctaExtensions
    }

    /// nil unless `edid` starts with the EDID header.
    public init?(edid: [UInt8]) {
        guard edid.count >= Self.header.count, Array(edid[0..<Self.header.count]) == Self.header else { return nil }
        chromaticity = EDIDChromaticity(baseBlock: edid.prefix(Self.blockBytes))
        hdrStaticMetadata = nil
        colorimetry = nil
        ctaExtensions = 0
        var start = Self.blockBytes
        while start + 4 <= edid.count {
            let block = edid[start..<min(start + Self.blockBytes, edid.count)]
            start += Self.blockBytes
            guard block.first == CTAExtension.tag else { continue }
            ctaExtensions += 1
            for (tag, payload) in CTAExtension.extendedBlocks(block) {
                if tag == CTAExtension.hdrStaticMetadataExtendedTag, hdrStaticMetadata == nil {
                    hdrStaticMetadata = CTAHDRStaticMetadataBlock(payload: payload)
                } else if tag == CTAExtension.colorimetryExtendedTag, colorimetry == nil {
                    colorimetry = CTAColorimetryBlock(payload: payload)
                }
            }
        }
    }

    /// Whether the sink accepts SMPTE ST 2084 (PQ) signals.
    public var supportsPQ: Bool { hdrStaticMetadata?.eotfs.contains(.pq) ?? false }

    /// The panel's facts as static metadata (what ClientHello tag 13 carries): primaries and
    /// white from the base block in 1/50000 (rounded; 0 when the EDID gives no chromaticity);
    /// peak = desired content max luminance rounded to cd/m², also MaxCLL; MaxFALL = desired
    /// max frame-average luminance; black = desired min luminance in 0.0001 cd/m² (rounded). A
    /// value the HDR block does not state is 0 ("unknown"); all clamp at 65535.
    public var panelMetadata: HDRStaticMetadata {
        func chroma(_ p: EDIDChromaticity.Point?) -> HDRStaticMetadata.Chromaticity {
            guard let p else { return .init(x: 0, y: 0) }
            let f = p.fiftyThousandths
            return .init(x: f.x, y: f.y)
        }
        func clamp(_ v: Double?) -> UInt16 { v.map { UInt16(min(max($0.rounded(), 0), 65_535)) } ?? 0 }
        let c = chromaticity
        let peak = clamp(hdrStaticMetadata?.maxLuminance)
        return HDRStaticMetadata(red: chroma(c?.red), green: chroma(c?.green), blue: chroma(c?.blue), whitePoint: chroma(c?.white),
                                 maxMasteringLuminance: peak,
                                 minMasteringLuminance: clamp(hdrStaticMetadata?.minLuminance.map { $0 * 10_000 }),
                                 maxCLL: peak, maxFALL: clamp(hdrStaticMetadata?.maxFrameAverageLuminance))
    }

    /// One JSON object for `probe`: `{"cta_extensions":N,"chromaticity":{"red":[x,y],…}|null (10-bit
    /// codes),"hdr_static_metadata":{"eotfs":[…],"descriptor_types":N,"max_luminance_code":N|null,
    /// "max_frame_average_code":N|null,"min_luminance_code":N|null,"max_cd_m2":F|null,
    /// "max_frame_average_cd_m2":F|null,"min_cd_m2":F|null}|null,"colorimetry":[names]|null}`.
    public var json: String {
        func opt<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "null" }
        func num(_ v: Double?) -> String { v.map { String(format: "%.4f", $0) } ?? "null" }
        let chroma = chromaticity.map { c in
            "{" + [("red", c.red), ("green", c.green), ("blue", c.blue), ("white", c.white)]
                .map { "\"\($0.0)\":[\($0.1.x),\($0.1.y)]" }.joined(separator: ",") + "}"
        } ?? "null"
        let hdr = hdrStaticMetadata.map { h in
            "{\"eotfs\":[\(h.eotfs.names.map { "\"\($0)\"" }.joined(separator: ","))],\"descriptor_types\":\(h.descriptorTypes),"
                + "\"max_luminance_code\":\(opt(h.maxLuminanceCode)),\"max_frame_average_code\":\(opt(h.maxFrameAverageLuminanceCode)),"
                + "\"min_luminance_code\":\(opt(h.minLuminanceCode)),\"max_cd_m2\":\(num(h.maxLuminance)),"
                + "\"max_frame_average_cd_m2\":\(num(h.maxFrameAverageLuminance)),\"min_cd_m2\":\(num(h.minLuminance))}"
        } ?? "null"
        let colour = colorimetry.map { "[" + $0.names.map { "\"\($0)\"" }.joined(separator: ",") + "]" } ?? "null"
        return "{\"cta_extensions\":\(ctaExtensions),\"chromaticity\":\(chroma),\"hdr_static_metadata\":\(hdr),\"colorimetry\":\(colour)}"
    }
}
