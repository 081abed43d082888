/// The panel's colour primaries and white point as the EDID base block states them (VESA
/// E-EDID 1.3/1.4, bytes 25–34): each CIE 1931 coordinate is a 10-bit binary fraction, code/1024.
/// Byte 25 holds the two low bits of red x, red y, green x, green y (bits 7–6, 5–4, 3–2, 1–0),
/// byte 26 those of blue x, blue y, white x, white y; bytes 27–34 the eight high bits of red x,
/// red y, green x, green y, blue x, blue y, white x, white y.
public struct EDIDChromaticity: Sendable, Equatable {
    /// One coordinate pair, 10-bit codes (0…1023; value = code / 1024).
    public struct Point: Sendable, Equatable {
        public var x: UInt16
        public var y: UInt16
        public init(x: UInt16, y: UInt16) { self.x = x; self.y = y }

        /// The same point in 0.00002 units (HDR metadata's 1/50000), rounded to nearest.
        public var fiftyThousandths: (x: UInt16, y: UInt16) { (Self.toFiftyThousandths(x), Self.toFiftyThousandths(y)) }

        /// code/1024 in 1/50000: ⌊code × 50000 / 1024 + ½⌋ (at most 49951, for code 1023).
        public static func toFiftyThousandths(_ code: UInt16) -> UInt16 {
            UInt16((UInt32(code) * 50_000 + 512) / 1024)
        }
    }

    public var red: Point
    public var green: Point
    public var blue: Point
    public var white: Point

    public init(red: Point, green: Point, blue: Point, white: Point) {
        self.red = red; self.green = green; self.blue = blue; self.white = white
    }

    /// Reads bytes 25–34 of a base block. nil when fewer than 35 bytes are given; all-zero codes
    /// (an EDID that states nothing) read as zeros, which `isStated` tells apart.
    public init?<C: RandomAccessCollection>(baseBlock b: C) where C.Element == UInt8, C.Index == Int {
        guard b.count >= 35 else { return nil }
        let s = b.startIndex
        let lowRG = UInt16(b[s + 25]), lowBW = UInt16(b[s + 26])
        func code(_ high: Int, _ low: UInt16, _ shift: UInt16) -> UInt16 { UInt16(b[s + high]) << 2 | (low >> shift) & 0x3 }
        red = Point(x: code(27, lowRG, 6), y: code(28, lowRG, 4))
        green = Point(x: code(29, lowRG, 2), y: code(30, lowRG, 0))
        blue = Point(x: code(31, lowBW, 6), y: code(32, lowBW, 4))
        white = Point(x: code(33, lowBW, 2), y: code(34, lowBW, 0))
    }

    /// Whether the EDID states a chromaticity at all (some code is non-zero).
    public var isStated: Bool {
        [red, green, blue, white].contains { $0.x != 0 || $0.y != 0 }
    }
}
