/// Drops or repeats a few frames of one period of interleaved PCM with a short linear
/// cross-fade, and applies period-long fades: the PCM side of `Playout.stretchFrames` and
/// `Playout.fade`. Pure, in place, no allocation.
///
/// Splice (n frames in, `d` = |stretch| frames, cross-fade of `L` frames starting at frame `s`,
/// weight `w_j = (j + 1) / (L + 1)` rising from the old stream to the new):
/// - drop: `y = x[0..<s] ‖ xfade(x[s+j], x[s+d+j]) for j < L ‖ x[s+d+L..<n]` — n − d frames;
/// - repeat: `y = x[0..<s] ‖ xfade(x[s+j], x[s−d+j]) for j < L ‖ x[s−d+L..<n]` — n + d frames.
/// The splice sits in the middle of the period; `L` = `crossFadeFrames`, shortened to fit.
public enum FrameStretch {
    /// Cross-fade length, frames: 64 = 1.3 ms at 48 kHz.
    public static let crossFadeFrames = 64

    /// Applies `stretch` frames (> 0 repeat, < 0 drop) to the first `frames` frames of
    /// `samples` (interleaved, `channels` per frame).
    /// - Precondition: `samples.count ≥ (frames + max(0, stretch)) × channels`, `channels > 0`,
    ///   and `frames ≥ 2 × |stretch| + 2`.
    /// - Returns: the period's frame count afterwards, `frames + stretch`.
    public static func apply(_ stretch: Int, to samples: UnsafeMutableBufferPointer<Int16>, frames: Int, channels: Int) -> Int {
        splice(stretch, samples, frames, channels) { a, b, w, scale in
            let sum = Int32(a) * Int32(scale - w) + Int32(b) * Int32(w)  // |sum| ≤ 32768 × scale
            let half = Int32(scale / 2)
            return Int16(truncatingIfNeeded: (sum + (sum < 0 ? -half : half)) / Int32(scale))  // rounded half away from 0
        }
    }

    /// `apply` for Float samples.
    public static func apply(_ stretch: Int, to samples: UnsafeMutableBufferPointer<Float>, frames: Int, channels: Int) -> Int {
        splice(stretch, samples, frames, channels) { a, b, w, scale in
            let t = Float(w) / Float(scale)
            return a * (1 - t) + b * t
        }
    }

    /// Ramps the gain of the first `frames` frames linearly: `.in` from 0 to 1, `.out` from 1 to 0.
    public static func fade(_ fade: PlayoutFade, _ samples: UnsafeMutableBufferPointer<Int16>, frames: Int, channels: Int) {
        ramp(fade == .in, fade == .none, samples, frames, channels) { x, g in Int16(truncatingIfNeeded: Int32((Float(x) * g).rounded())) }
    }

    /// `fade` for Float samples.
    public static func fade(_ fade: PlayoutFade, _ samples: UnsafeMutableBufferPointer<Float>, frames: Int, channels: Int) {
        ramp(fade == .in, fade == .none, samples, frames, channels) { x, g in x * g }
    }

    private static func ramp<T>(_ rising: Bool, _ skip: Bool, _ x: UnsafeMutableBufferPointer<T>, _ frames: Int, _ channels: Int,
                                _ scale: (T, Float) -> T) {
        guard !skip, frames > 0 else { return }
        precondition(x.count >= frames * channels)
        for f in 0..<frames {
            let t = Float(f + 1) / Float(frames)
            let g = rising ? t : 1 - t
            for c in 0..<channels { x[f * channels + c] = scale(x[f * channels + c], g) }
        }
    }

    /// The splice shared by both sample types; `mix(a, b, w, scale)` = a·(scale−w)/scale + b·w/scale.
    private static func splice<T>(_ stretch: Int, _ x: UnsafeMutableBufferPointer<T>, _ n: Int, _ channels: Int,
                                  _ mix: (T, T, Int, Int) -> T) -> Int {
        guard stretch != 0 else { return n }
        let d = abs(stretch)
        precondition(channels > 0 && n >= 2 * d + 2 && x.count >= (n + max(0, stretch)) * channels,
                     "FrameStretch: buffer too small for the stretch")
        // Room: drop needs s + d + L ≤ n; repeat needs s ≥ d and s + L ≤ n.
        let fadeLength = min(crossFadeFrames, n - 2 * d)
        let s = max(d, (n - d - fadeLength) / 2)
        let scale = fadeLength + 1
        let base = x.baseAddress!
        if stretch < 0 {
            for j in 0..<fadeLength {               // forward: reads s+j (own) and s+d+j (ahead)
                for c in 0..<channels {
                    let k = (s + j) * channels + c
                    x[k] = mix(x[k], x[k + d * channels], j + 1, scale)
                }
            }
            let from = (s + d + fadeLength) * channels
            (base + (s + fadeLength) * channels).update(from: base + from, count: (n - s - d - fadeLength) * channels)
            return n - d
        }
        let tail = (n - (s - d + fadeLength)) * channels
        (base + (s + fadeLength) * channels).update(from: base + (s - d + fadeLength) * channels, count: tail)  // memmove
        for j in stride(from: fadeLength - 1, through: 0, by: -1) {  // backward: s−d+j not yet written
            for c in 0..<channels {
                let k = (s + j) * channels + c
                x[k] = mix(x[k], x[k - d * channels], j + 1, scale)
            }
        }
        return n + d
    }
}
