import CCairo

/// An opaque colour, components 0...1.
struct Colour {
    var r: Double, g: Double, b: Double

    init(_ hex: UInt32) {
        r = Double((hex >> 16) & 0xFF) / 255
        g = Double((hex >> 8) & 0xFF) / 255
        b = Double(hex & 0xFF) / 255
    }

    func set(_ cr: OpaquePointer) { cairo_set_source_rgb(cr, r, g, b) }
}

/// The shell's colours: light text on a dark ground (a TV in a dim room), one accent for focus.
enum Palette {
    static let background = Colour(0x10141A)
    static let surface = Colour(0x1F2632)
    static let surfaceFocused = Colour(0x2B3A52)
    static let hintBar = Colour(0x0A0D11)
    static let text = Colour(0xF2F4F7)
    static let muted = Colour(0xA3ACB9)
    static let accent = Colour(0x4FA3FF)

    static let online = Colour(0x3CCB6C)
    static let asleep = Colour(0xE6B23C)
    static let needsPairing = Colour(0x8B96A6)
    static let paired = Colour(0x9D8CFF)

    // Controller face colours.
    static let xboxA = Colour(0x3CA335), xboxB = Colour(0xD8392B), xboxX = Colour(0x2C6FD6), xboxY = Colour(0xE7B416)
    static let psCross = Colour(0x7CA7E8), psCircle = Colour(0xE8676A), psSquare = Colour(0xD77FC5), psTriangle = Colour(0x3DBE9C)
}
