import Display
import Foundation

/// Bytes a TV (or anything on the HDMI/DP cable) puts in its EDID, as the kiosk reads them from
/// the connector's `EDID` blob. The input's first byte picks how much of the EDID header is
/// forced in front (so most inputs reach the block walk); then `EDIDHDRFacts(edid:)` must never
/// trap, and what it finds must keep the formats' own bounds: chromaticity codes are 10-bit
/// (≤ 49951 in 1/50000: code 1023), CTA-861.3 luminances lie in 50·2^(1/32)…50·2^(255/32) cd/m² with the
/// minimum at most the peak, the extensions counted fit the blob, and `json` is JSON.
enum EDIDFuzz {
    static func run(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let edid = (first & 1 == 0 ? EDIDHDRFacts.header : []) + bytes.dropFirst()
        guard let facts = EDIDHDRFacts(edid: edid) else { return }
        precondition(facts.ctaExtensions <= edid.count / EDIDHDRFacts.blockBytes, "\(facts.ctaExtensions) extensions in \(edid.count) bytes")
        if let c = facts.chromaticity {
            for p in [c.red, c.green, c.blue, c.white] {
                precondition(p.x < 1024 && p.y < 1024, "a chromaticity code past 10 bits: \(p)")
                let f = p.fiftyThousandths
                precondition(f.x <= 49_951 && f.y <= 49_951, "a chromaticity past code 1023: \(f)")
            }
        }
        if let h = facts.hdrStaticMetadata {
            for l in [h.maxLuminance, h.maxFrameAverageLuminance].compactMap({ $0 }) {
                precondition(l > 50 && l <= 50 * pow(2, 255.0 / 32), "luminance \(l) outside CTA-861.3's range")
            }
            if let min = h.minLuminance, let max = h.maxLuminance { precondition(min >= 0 && min <= max / 100, "black \(min) above peak/100 \(max)") }
        }
        let m = facts.panelMetadata
        precondition(m.maxCLL == m.maxMasteringLuminance, "MaxCLL is the peak")
        precondition((try? JSONSerialization.jsonObject(with: Data(facts.json.utf8))) != nil, "EDID json is not JSON: \(facts.json)")
    }
}
