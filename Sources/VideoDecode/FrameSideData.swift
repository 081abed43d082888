internal import CAVCodec
import VideoFrames

/// Static HDR metadata from a libavcodec frame's side data: `AV_FRAME_DATA_MASTERING_DISPLAY_METADATA`
/// (H.265 mastering display colour volume SEI) and `AV_FRAME_DATA_CONTENT_LIGHT_LEVEL` (content
/// light level SEI), converted to the HDMI descriptor's units of `HDRStaticMetadata`.
///
/// libavcodec gives both as rationals: primaries and white point over 50000, luminance in cd/m²
/// over 10000 (the SEI's own units), MaxCLL/MaxFALL in cd/m². Each field is rounded to the
/// nearest descriptor unit; a zero or negative denominator reads as 0 ("unknown").
enum FrameSideData {
    /// nil when the frame carries neither side data.
    static func hdrMetadata(_ frame: UnsafePointer<AVFrame>) -> HDRStaticMetadata? {
        let mastering = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)
        let light = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)
        guard mastering != nil || light != nil else { return nil }
        var m = HDRStaticMetadata.unknown
        if let sd = mastering, let data = sd.pointee.data,
           Int(sd.pointee.size) >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            let md = UnsafeRawPointer(data).loadUnaligned(as: AVMasteringDisplayMetadata.self)
            if md.has_primaries != 0 {
                let p = md.display_primaries
                m.red = chromaticity(p.0.0, p.0.1)
                m.green = chromaticity(p.1.0, p.1.1)
                m.blue = chromaticity(p.2.0, p.2.1)
                m.whitePoint = chromaticity(md.white_point.0, md.white_point.1)
            }
            if md.has_luminance != 0 {
                m.maxMasteringLuminance = scaled(md.max_luminance, by: 1)
                m.minMasteringLuminance = scaled(md.min_luminance, by: 10_000)
            }
        }
        if let sd = light, let data = sd.pointee.data, Int(sd.pointee.size) >= MemoryLayout<AVContentLightMetadata>.size {
            let cl = UnsafeRawPointer(data).loadUnaligned(as: AVContentLightMetadata.self)
            m.maxCLL = UInt16(min(cl.MaxCLL, 65_535))
            m.maxFALL = UInt16(min(cl.MaxFALL, 65_535))
        }
        return m
    }

    private static func chromaticity(_ x: AVRational, _ y: AVRational) -> HDRStaticMetadata.Chromaticity {
        .init(x: scaled(x, by: 50_000), y: scaled(y, by: 50_000))
    }

    /// round(value · unit), clamped to 0…65535.
    private static func scaled(_ r: AVRational, by unit: Int64) -> UInt16 {
        guard r.den > 0, r.num > 0 else { return 0 }
        let v = (Int64(r.num) * unit * 2 + Int64(r.den)) / (Int64(r.den) * 2)
        return UInt16(min(v, 65_535))
    }
}
