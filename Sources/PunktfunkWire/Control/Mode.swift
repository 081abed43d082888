/// A display mode: the 12-byte value `width u32 ‖ height u32 ‖ refresh_hz u32`
/// (control-plane.md §2.1).
public struct Mode: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: UInt32
    public var height: UInt32
    public var refreshHz: UInt32

    public static let encodedLength = 12
    public static let zero = Mode(width: 0, height: 0, refreshHz: 0)

    public init(width: UInt32, height: UInt32, refreshHz: UInt32) {
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
    }

    public var encoded: [UInt8] {
        var w = WireWriter(capacity: 12)
        w.writeLE(width)
        w.writeLE(height)
        w.writeLE(refreshHz)
        return w.bytes
    }

    public init<C: Collection>(decoding bytes: C) throws(WireError) where C.Element == UInt8 {
        guard bytes.count == Self.encodedLength else {
            throw .wrongLength(what: "mode", expected: Self.encodedLength, found: bytes.count)
        }
        var r = WireReader(Array(bytes))
        width = try r.readLE()
        height = try r.readLE()
        refreshHz = try r.readLE()
    }

    public var description: String { "\(width)x\(height)@\(refreshHz)" }
}

/// Colour as CICP `[primaries, transfer, matrix, full_range]` (control-plane.md §3.3 tag 15).
public struct ColorInfo: Equatable, Hashable, Sendable {
    public var primaries: UInt8
    public var transfer: UInt8
    public var matrix: UInt8
    public var fullRange: Bool

    public static let sdrBT709 = ColorInfo(primaries: 1, transfer: 1, matrix: 1, fullRange: false)
    public static let hdr10 = ColorInfo(primaries: 9, transfer: 16, matrix: 9, fullRange: false)

    public init(primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    public var encoded: [UInt8] { [primaries, transfer, matrix, fullRange ? 1 : 0] }

    public init<C: Collection>(decoding bytes: C) throws(WireError) where C.Element == UInt8 {
        guard bytes.count == 4 else { throw .wrongLength(what: "color", expected: 4, found: bytes.count) }
        let b = Array(bytes)
        self.init(primaries: b[0], transfer: b[1], matrix: b[2], fullRange: b[3] != 0)
    }
}

/// SMPTE ST 2086 + CTA-861.3 static HDR metadata, the 28-byte body of ClientHello tag 13 and of
/// the 0xCE datagram (control-plane.md §3.7). Primaries and white point in 1/50000 units, in the
/// wire order G, B, R; mastering luminance in 0.0001 cd/m²; MaxCLL/MaxFALL in cd/m².
public struct HDRMetadata: Equatable, Hashable, Sendable {
    public struct Chromaticity: Equatable, Hashable, Sendable {
        public var x: UInt16
        public var y: UInt16
        public init(x: UInt16, y: UInt16) { self.x = x; self.y = y }
    }

    public var green: Chromaticity
    public var blue: Chromaticity
    public var red: Chromaticity
    public var whitePoint: Chromaticity
    public var maxMasteringLuminance: UInt32
    public var minMasteringLuminance: UInt32
    public var maxCLL: UInt16
    public var maxFALL: UInt16

    public static let encodedLength = 28

    public init(green: Chromaticity, blue: Chromaticity, red: Chromaticity, whitePoint: Chromaticity,
                maxMasteringLuminance: UInt32, minMasteringLuminance: UInt32, maxCLL: UInt16, maxFALL: UInt16) {
        self.green = green
        self.blue = blue
        self.red = red
        self.whitePoint = whitePoint
        self.maxMasteringLuminance = maxMasteringLuminance
        self.minMasteringLuminance = minMasteringLuminance
        self.maxCLL = maxCLL
        self.maxFALL = maxFALL
    }

    public var encoded: [UInt8] {
        var w = WireWriter(capacity: Self.encodedLength)
        for c in [green, blue, red, whitePoint] {
            w.writeLE(c.x)
            w.writeLE(c.y)
        }
        w.writeLE(maxMasteringLuminance)
        w.writeLE(minMasteringLuminance)
        w.writeLE(maxCLL)
        w.writeLE(maxFALL)
        return w.bytes
    }

    public init<C: Collection>(decoding bytes: C) throws(WireError) where C.Element == UInt8 {
        guard bytes.count == Self.encodedLength else {
            throw .wrongLength(what: "HDR metadata", expected: Self.encodedLength, found: bytes.count)
        }
        var r = WireReader(Array(bytes))
        func chroma(_ r: inout WireReader) throws(WireError) -> Chromaticity {
            Chromaticity(x: try r.readLE(), y: try r.readLE())
        }
        green = try chroma(&r)
        blue = try chroma(&r)
        red = try chroma(&r)
        whitePoint = try chroma(&r)
        maxMasteringLuminance = try r.readLE()
        minMasteringLuminance = try r.readLE()
        maxCLL = try r.readLE()
        maxFALL = try r.readLE()
    }
}
