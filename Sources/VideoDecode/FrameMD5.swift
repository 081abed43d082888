internal import CAVCodec
import HEVC
import VideoFrames

/// MD5 as `ffmpeg -f framemd5` computes it for a decoded picture.
public enum FrameMD5 {
    /// Lower-case hex MD5 of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeBufferPointer { b in
            digest.withUnsafeMutableBufferPointer { d in
                let empty: [UInt8] = [0]
                if b.isEmpty {
                    empty.withUnsafeBufferPointer { av_md5_sum(d.baseAddress, $0.baseAddress, 0) }
                } else {
                    av_md5_sum(d.baseAddress, b.baseAddress, b.count)
                }
            }
        }
        return digest.map { String(format2: $0) }.joined()
    }

    /// The bytes ffmpeg hashes for this picture: the visible window in the decoder's native
    /// planar format (yuv420p / yuv420p10le), planes packed without padding.
    public static func nativeBytes(of frame: DecodedFrame) -> [UInt8] { frame.planar(cropped: true).packedBytes }

    /// One framemd5 line: `0, dts, pts, duration, size, md5` with ffmpeg's column widths.
    public static func line(index: Int64, frame: DecodedFrame) -> String {
        let bytes = nativeBytes(of: frame)
        return "0, \(pad(index, 10)), \(pad(index, 10)), \(pad(1, 8)), \(pad(Int64(bytes.count), 8)), \(hex(bytes))"
    }

    /// ffmpeg's header lines for one video stream of `width`×`height` with time base `tb`.
    public static func header(width: Int, height: Int, timeBase: (num: Int, den: Int)) -> [String] {
        ["#format: frame checksums", "#version: 2", "#hash: MD5",
         "#tb 0: \(timeBase.num)/\(timeBase.den)", "#media_type 0: video", "#codec_id 0: rawvideo",
         "#dimensions 0: \(width)x\(height)", "#sar 0: 1/1",
         "#stream#, dts,        pts, duration,     size, hash"]
    }

    /// ffmpeg's output time base for a raw HEVC stream: 1/frame rate from the SPS VUI timing
    /// (num_units_in_tick / time_scale, reduced), else 1/25 (the raw demuxer's default rate).
    public static func timeBase(of sps: SequenceParameterSet) -> (num: Int, den: Int) {
        let vui = sps.vui
        guard sps.vuiParametersPresentFlag, vui.vuiTimingInfoPresentFlag, vui.vuiNumUnitsInTick > 0,
              vui.vuiTimeScale > 0 else { return (1, 25) }
        var a = Int(vui.vuiNumUnitsInTick), b = Int(vui.vuiTimeScale)
        var x = a, y = b
        while y != 0 { (x, y) = (y, x % y) }
        a /= x; b /= x
        return (a, b)
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: " ", count: max(0, width - s.count)) + s
    }
}

private extension String {
    init(format2 byte: UInt8) {
        let digits: [Character] = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
