import PunktfunkWire

/// An 8-bit 4:2:0 picture (planar Y′, Cb, Cr; rows top to bottom) and the deterministic test
/// pattern an IDR carries.
///
/// The pattern is textured in both directions and nowhere periodic (colour bars, gradients, a
/// grid of seeded coloured squares, and a per-sample hash on top), so a picture shifted by any
/// non-zero vector never equals itself; `seed` changes every part of it.
struct SyntheticPicture: Equatable {
    let width: Int
    let height: Int
    /// width × height luma samples.
    var luma: [UInt8]
    /// (width / 2) × (height / 2) samples each.
    var cb: [UInt8]
    var cr: [UInt8]

    /// The test pattern for `seed` (the stream seed mixed with the IDR's count).
    init(testPatternWidth width: Int, height: Int, seed: UInt64) {
        self.width = width
        self.height = height
        var rng = SplitMix64(seed: seed)
        // Eight bars (Y′, Cb, Cr) in a seeded order, and an 8x6 grid of seeded square colours.
        let bars: [(UInt8, UInt8, UInt8)] = [(235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
                                            (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128)]
        let barOrder = (0..<8).map { _ in Int(rng.next() % 8) }
        let squares = (0..<48).map { _ in
            (UInt8(truncatingIfNeeded: rng.next() % 200 + 28), UInt8(truncatingIfNeeded: rng.next() % 224 + 16),
             UInt8(truncatingIfNeeded: rng.next() % 224 + 16))
        }
        let salt = rng.next()
        let bandA = height / 3, bandB = 2 * height / 3
        func sample(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            if y < bandA {
                // Colour bars, darkening downwards.
                let bar = bars[barOrder[min(x * 8 / width, 7)] ^ (y * 4 / max(bandA, 1) & 1)]
                return (Int(bar.0) - y * 40 / max(bandA, 1), Int(bar.1), Int(bar.2))
            } else if y < bandB {
                // Crossed gradients with diagonal stripes.
                let stripe = ((x + 2 * y) / 6) & 1 == 0 ? 24 : 0
                return (32 + x * 160 / width + (y - bandA) * 40 / max(bandB - bandA, 1) + stripe,
                        64 + y * 128 / height, 192 - x * 128 / width)
            } else {
                // Seeded coloured squares on a darker grid.
                let cellW = max(width / 8, 1), cellH = max((height - bandB) / 6, 1)
                let cx = min(x / cellW, 7), cy = min((y - bandB) / cellH, 5)
                if x % cellW < 2 || (y - bandB) % cellH < 2 { return (24, 128, 128) }
                let c = squares[cy * 8 + cx]
                return (Int(c.0), Int(c.1), Int(c.2))
            }
        }
        func hash(_ x: Int, _ y: Int) -> Int {
            var z = UInt64(x) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(y) &* 0xC2B2_AE3D_27D4_EB4F ^ salt
            z = (z ^ z >> 29) &* 0xBF58_476D_1CE4_E5B9
            return Int(z >> 59)                                        // 0…31
        }
        func clip(_ v: Int) -> UInt8 { UInt8(min(max(v, 0), 255)) }
        luma = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width { luma[y * width + x] = clip(sample(x, y).0 + hash(x, y) - 16) }
        }
        let cw = width / 2, ch = height / 2
        cb = [UInt8](repeating: 0, count: cw * ch)
        cr = cb
        for y in 0..<ch {
            for x in 0..<cw {
                let s = sample(2 * x, 2 * y)
                cb[y * cw + x] = clip(s.1 + hash(x, y + height) / 4 - 4)
                cr[y * cw + x] = clip(s.2 + hash(x + width, y) / 4 - 4)
            }
        }
    }

    /// pcm_sample() (7.3.8.7) of the CU at CTB (`ctbColumn`, `ctbRow`) of `size` luma samples:
    /// the luma block in raster order, then the Cb block, then the Cr block.
    func pcmSamples(ctbColumn: Int, ctbRow: Int, size: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size * size * 3 / 2)
        let x0 = ctbColumn * size, y0 = ctbRow * size
        for y in y0..<y0 + size { out += luma[y * width + x0..<y * width + x0 + size] }
        let cw = width / 2, c = size / 2
        for plane in [cb, cr] {
            for y in y0 / 2..<y0 / 2 + c { out += plane[y * cw + x0 / 2..<y * cw + x0 / 2 + c] }
        }
        return out
    }
}
