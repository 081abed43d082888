import FFmpegOracle
import Foundation
import Testing

/// ffmpeg with libopus as the oracle: it makes Ogg Opus streams (5 ms frames, RESTRICTED_LOWDELAY,
/// as the host encodes, data-plane.md §5.1) and decodes them with its libopus wrapper
/// (`libopusdec.c`, the same libopus multistream decoder, float output).
enum OpusOracle {
    static let skipReason: Comment = "needs ffmpeg with the libopus encoder and decoder (the decode oracle)"

    static let isAvailable: Bool = {
        guard FFmpeg.path != nil,
              let encoders = try? FFmpeg.run(["-hide_banner", "-encoders"]),
              let decoders = try? FFmpeg.run(["-hide_banner", "-decoders"]) else { return false }
        return encoders.stdout.contains(" libopus ") && decoders.stdout.contains(" libopus ")
    }()

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A tone of its own per channel (300 Hz + 150 Hz × channel), `seconds` long, encoded into
    /// `dir/name.ogg`. `layout` is ffmpeg's channel layout name (stereo, 5.1, 7.1).
    static func encodeTones(name: String, layout: String, channels: Int, seconds: Double, in dir: URL) throws -> [UInt8] {
        let exprs = (0..<channels).map { "0.3*sin(2*PI*\(300 + 150 * $0)*t)" }.joined(separator: "|")
        let path = dir.appendingPathComponent("\(name).ogg").path
        let out = try FFmpeg.run(["-hide_banner", "-v", "error", "-y",
                                  "-f", "lavfi", "-i", "aevalsrc=\(exprs):s=48000:c=\(layout):d=\(seconds)",
                                  "-c:a", "libopus", "-b:a", "\(64 * channels)k",
                                  "-frame_duration", "5", "-application", "lowdelay", path])
        guard out.status == 0, let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "ffmpeg encode failed: \(out.stderr)")
        }
        return [UInt8](data)
    }

    /// ffmpeg's libopus decode of `ogg` in ffmpeg's channel order, pre-skip and end padding
    /// removed, as libopusdec's float output (`-request_sample_fmt flt`:
    /// `opus_multistream_decode_float`).
    static func decodeFloat(_ ogg: [UInt8], name: String, in dir: URL) throws -> [Float] {
        try decode(ogg, name: name, in: dir, options: ["-request_sample_fmt", "flt"], format: "f32le").map {
            Float(bitPattern: $0)
        }
    }

    /// The same as libopusdec's default 16-bit output (`opus_multistream_decode`, which in a
    /// float build of libopus soft-clips and rounds the float decode).
    static func decodeInt16(_ ogg: [UInt8], name: String, in dir: URL) throws -> [Int16] {
        try decode(ogg, name: name, in: dir, options: [], format: "s16le").map { Int16(bitPattern: UInt16($0)) }
    }

    /// Raw little-endian words of ffmpeg's decode (32-bit words for f32le, 16-bit for s16le).
    private static func decode(_ ogg: [UInt8], name: String, in dir: URL, options: [String], format: String) throws -> [UInt32] {
        let input = dir.appendingPathComponent("\(name)-in.ogg"), output = dir.appendingPathComponent("\(name).\(format)")
        try Data(ogg).write(to: input)
        let out = try FFmpeg.run(["-hide_banner", "-v", "error", "-y"] + options + ["-c:a", "libopus", "-i", input.path,
                                  "-f", format, output.path])
        guard out.status == 0, let data = FileManager.default.contents(atPath: output.path) else {
            throw Failure(description: "ffmpeg decode failed: \(out.stderr)")
        }
        let width = format == "f32le" ? 4 : 2
        return data.withUnsafeBytes { raw in
            (0..<raw.count / width).map {
                width == 4 ? UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))
                           : UInt32(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)))
            }
        }
    }

    /// ffmpeg's `ff_vorbis_channel_layout_offsets`: ffmpeg channel `i` is Vorbis channel
    /// `offsets[i]`. libopusdec permutes the OpusHead mapping with it so libopus writes ffmpeg's
    /// order directly.
    static let vorbisOffsets: [Int: [Int]] = [
        1: [0], 2: [0, 1], 3: [0, 2, 1], 4: [0, 1, 2, 3], 5: [0, 2, 1, 3, 4],
        6: [0, 2, 1, 5, 3, 4], 7: [0, 2, 1, 6, 5, 3, 4], 8: [0, 2, 1, 7, 5, 6, 3, 4],
    ]
}
