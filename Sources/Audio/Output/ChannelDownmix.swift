/// Folds the stream's channels onto a device that has fewer (issue 34 item 3): 7.1 → 5.1,
/// 5.1 → stereo, 7.1 → stereo. Input and output are interleaved Float in the wire order
/// FL FR FC LFE RL RR SL SR (data-plane.md §5.1), the output being its first 6 or 2 positions;
/// `ChannelRouting` then places those on the device. Pure; `mix` allocates nothing.
///
/// Coefficients, before scaling (k = 1/√2, −3 dB):
/// - to stereo, ITU-R BS.775 (3/2 → 2/0): L = FL + k·FC + k·RL, R = FR + k·FC + k·RR; the 7.1
///   side pair joins its side the same way (+ k·SL, + k·SR). The LFE is left out, as BS.775 and
///   libswresample's default (`lfe_mix_level` 0) leave it.
/// - 7.1 → 5.1: FL FR FC LFE as they are; RL = RL + k·SL, RR = RR + k·SR.
///
/// No clipping: every coefficient is divided by the largest row sum of coefficient magnitudes
/// (1 + 2k for 5.1 → 2, 1 + 3k for 7.1 → 2, 1 + k for 7.1 → 5.1), so |out| ≤ max |in| for any
/// input — the normalisation libswresample applies to an integer output (`swr_rematrix`'s
/// `maxval` 1.0). The balance between channels is kept; the fold is that much quieter.
public struct ChannelDownmix: Equatable, Sendable {
    public let inputChannels: Int
    public let outputChannels: Int
    /// Row-major: output channel `o` takes `coefficients[o · inputChannels + i]` of input `i`.
    public let coefficients: [Float]

    /// The channel count a device of `deviceChannels` plays a stream of `streamChannels` with: the
    /// stream's when the device has as many, else the largest of 6 and 2 that fits (a stream is
    /// 2, 6 or 8 channels).
    public static func outputChannels(stream streamChannels: Int, device deviceChannels: Int) -> Int {
        if deviceChannels >= streamChannels { return streamChannels }
        return deviceChannels >= 6 && streamChannels == 8 ? 6 : 2
    }

    /// - Returns: nil unless `input → output` is 8 → 6, 8 → 2 or 6 → 2.
    public init?(from input: Int, to output: Int) {
        let k = 0.5.squareRoot()
        var m = [[Double]](repeating: [Double](repeating: 0, count: input), count: output)
        switch (input, output) {
        case (6, 2), (8, 2):
            // FL FR FC LFE RL RR [SL SR] → L R
            m[0][0] = 1; m[0][2] = k; m[0][4] = k
            m[1][1] = 1; m[1][2] = k; m[1][5] = k
            if input == 8 { m[0][6] = k; m[1][7] = k }
        case (8, 6):
            for c in 0..<6 { m[c][c] = 1 }
            m[4][6] = k; m[5][7] = k
        default:
            return nil
        }
        let scale = m.map { $0.reduce(0) { $0 + abs($1) } }.max()!
        inputChannels = input
        outputChannels = output
        coefficients = m.flatMap { $0 }.map { Float($0 / scale) }
    }

    /// Mixes `frames` interleaved input frames into `out` (`frames · outputChannels` samples).
    public func mix(_ input: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>, frames: Int) {
        precondition(input.count >= frames * inputChannels && out.count >= frames * outputChannels)
        let n = inputChannels, d = outputChannels
        coefficients.withUnsafeBufferPointer { c in
            for f in 0..<frames {
                let src = f * n, dst = f * d
                for o in 0..<d {
                    var acc: Float = 0
                    let row = o * n
                    for i in 0..<n { acc += c[row + i] * input[src + i] }
                    out[dst + o] = acc
                }
            }
        }
    }
}
