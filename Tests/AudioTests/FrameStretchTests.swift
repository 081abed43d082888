import Testing
import Audio

@Suite struct FrameStretchTests {
    /// Interleaved stereo: left = `f(i)`, right = −`f(i)`.
    private func stereo(_ frames: Int, extra: Int = 4, _ f: (Int) -> Double) -> [Float] {
        var x = [Float](repeating: 0, count: (frames + extra) * 2)
        for i in 0..<frames {
            x[2 * i] = Float(f(i))
            x[2 * i + 1] = -Float(f(i))
        }
        return x
    }

    @Test(arguments: [-2, -1, 1, 2])
    func stretchChangesTheLengthAndKeepsChannelsApart(stretch: Int) {
        var x = stereo(240) { Double($0) * 10 }
        let n = x.withUnsafeMutableBufferPointer { FrameStretch.apply(stretch, to: $0, frames: 240, channels: 2) }
        #expect(n == 240 + stretch)
        for i in 0..<n { #expect(x[2 * i + 1] == -x[2 * i]) }
        // A ramp of slope 10 stays monotonic; the splice adds at most one step's worth per frame.
        var worst: Float = 0
        for i in 1..<n {
            let step = x[2 * i] - x[2 * (i - 1)]
            #expect(step >= 0)
            worst = max(worst, step)
        }
        #expect(worst <= 10 + 10 * Float(abs(stretch)) / 64 + 0.01)
        // Start and end untouched: the first and the last frame are the original's.
        #expect(x[0] == 0)
        #expect(x[2 * (n - 1)] == 2390)
    }

    @Test func int16ConstantSignalIsUnchangedBySplicing() {
        for value: Int16 in [-12_345, -1, 0, 7, 32_767] {
            for stretch in [-2, 2] {
                var x = [Int16](repeating: value, count: 244 * 6)
                let n = x.withUnsafeMutableBufferPointer { FrameStretch.apply(stretch, to: $0, frames: 240, channels: 6) }
                #expect(n == 240 + stretch)
                #expect(x[0..<(n * 6)].allSatisfy { $0 == value })
            }
        }
    }

    @Test func sineStaysSmoothAcrossTheSplice() {
        // 1 kHz at 48 kHz: the largest natural step is 2π·1000/48000 ≈ 0.131 of the amplitude.
        let amplitude = 20_000.0
        for stretch in [-2, -1, 1, 2] {
            var x = [Int16](repeating: 0, count: 244)
            for i in 0..<240 { x[i] = Int16((amplitude * Self.sine(Double(i) / 48)).rounded()) }
            let n = x.withUnsafeMutableBufferPointer { FrameStretch.apply(stretch, to: $0, frames: 240, channels: 1) }
            var worst = 0
            for i in 1..<n { worst = max(worst, abs(Int(x[i]) - Int(x[i - 1]))) }
            #expect(Double(worst) <= amplitude * 0.131 * 1.1)
        }
    }

    @Test func zeroStretchIsANoOp() {
        var x = stereo(240) { Double($0) }
        let before = x
        let n = x.withUnsafeMutableBufferPointer { FrameStretch.apply(0, to: $0, frames: 240, channels: 2) }
        #expect(n == 240 && x == before)
    }

    @Test func fadesRampTheWholePeriod() {
        var up = [Float](repeating: 1, count: 480)
        up.withUnsafeMutableBufferPointer { FrameStretch.fade(.in, $0, frames: 240, channels: 2) }
        #expect(up[0] > 0 && up[0] < 0.01 && up[478] == 1 && up[479] == 1)
        var down = [Int16](repeating: 10_000, count: 480)
        down.withUnsafeMutableBufferPointer { FrameStretch.fade(.out, $0, frames: 240, channels: 2) }
        #expect(down[0] > 9_900 && down[478] == 0 && down[479] == 0)
        for i in 1..<240 { #expect(down[2 * i] <= down[2 * (i - 1)]) }
    }

    /// sin(2π·t) for t in cycles (t = ms at 1 kHz), by its Taylor series: no Foundation here.
    private static func sine(_ t: Double) -> Double {
        var x = (t - (t / 1).rounded(.down)) * 2 * Double.pi
        if x > Double.pi { x -= 2 * Double.pi }
        var term = x, sum = 0.0
        for k in stride(from: 1, through: 31, by: 2) {
            sum += term
            term *= -x * x / Double((k + 1) * (k + 2))
        }
        return sum
    }
}
