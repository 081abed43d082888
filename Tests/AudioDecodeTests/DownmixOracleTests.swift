import Audio
import FFmpegOracle
import Foundation
import Testing

/// `ChannelDownmix` against libswresample's automatic rematrix (`ffmpeg … aformat=channel_layouts=…`,
/// internal float, 16-bit output — the case where swresample scales its matrix by the largest row
/// sum, as ours always does) on the same 16-bit multichannel signal: every output sample within
/// 1 LSB (the two roundings of a float to 16 bits).
@Suite(.enabled(if: FFmpeg.path != nil, "ffmpeg is not installed"))
struct DownmixOracleTests {
    /// ffmpeg's names for the wire order's first `n` positions (FL FR FC LFE RL RR SL SR; ALSA's
    /// RL/RR are ffmpeg's BL/BR).
    static func layout(_ n: Int) -> String { ["FL", "FR", "FC", "LFE", "BL", "BR", "SL", "SR"].prefix(n).joined(separator: "+") }

    /// 0.1 s of a different tone per channel plus noise (a fixed LCG), at 0.6 of full scale.
    static func signal(channels: Int, frames: Int = 4_800) -> [Int16] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var out = [Int16](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            for c in 0..<channels {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Double(Int64(bitPattern: state) >> 40) / Double(1 << 23)
                let tone = sin(2 * Double.pi * Double(300 + 170 * c) * Double(f) / 48_000)
                out[f * channels + c] = Int16((0.45 * tone + 0.15 * noise) * 32_767)
            }
        }
        return out
    }

    @Test(arguments: [(6, 2), (8, 2), (8, 6)])
    func matchesLibswresample(_ pair: (Int, Int)) throws {
        let (n, d) = pair
        let mix = try #require(ChannelDownmix(from: n, to: d))
        let input = Self.signal(channels: n)
        let frames = input.count / n
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("downmix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inURL = dir.appendingPathComponent("in.raw"), outURL = dir.appendingPathComponent("out.raw")
        try input.withUnsafeBytes { Data($0) }.write(to: inURL)
        let run = try FFmpeg.run(["-v", "error", "-f", "s16le", "-ar", "48000", "-ch_layout", Self.layout(n), "-i", inURL.path,
                                  "-af", "aresample=internal_sample_fmt=fltp,aformat=sample_fmts=s16:channel_layouts=\(Self.layout(d))",
                                  "-f", "s16le", "-y", outURL.path])
        #expect(run.status == 0, "\(run.stderr)")
        let theirs = try Data(contentsOf: outURL).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(theirs.count == frames * d)

        let floats = input.map { Float($0) / 32_768 }
        var ours = [Float](repeating: 0, count: frames * d)
        floats.withUnsafeBufferPointer { i in ours.withUnsafeMutableBufferPointer { mix.mix(i, into: $0, frames: frames) } }
        var worst = 0
        for i in 0..<min(theirs.count, ours.count) {
            worst = max(worst, abs(Int((ours[i] * 32_768).rounded()) - Int(theirs[i])))
        }
        #expect(worst <= 1, "\(n) → \(d): largest difference \(worst) LSB")
        // Not silence: the fold carries signal on every output channel (LFE included on 8 → 6).
        for c in 0..<d {
            let peak = stride(from: c, to: theirs.count, by: d).map { abs(Int(theirs[$0])) }.max() ?? 0
            #expect(peak > 3_000, "output channel \(c) peak \(peak)")
        }
    }
}
