/// Which valuators carry a pointing device's x and y, and in which mode (XIQueryDevice's
/// valuator classes, XI2proto.txt §"XIValuatorClass": `mode` 0 Relative, 1 Absolute). Pure.
///
/// The choice is SDL's (moonlight-qt's input layer): x is the valuator labelled "Rel X", else
/// the one labelled "Abs X", else valuator 0; y likewise ("Rel Y", "Abs Y", valuator 1). A mouse
/// has relative x/y; a tablet, a touchscreen, a VM's tablet (and Xwayland's own pointer, "Abs X"
/// 0…65535) have absolute ones.
struct PointerValuators: Equatable {
    struct Axis: Equatable {
        /// The valuator's number (its bit in a RawMotion's mask).
        var number: Int
        var absolute: Bool
        /// The range an absolute valuator reports in (device units; max ≤ min: none given).
        var minimum: Double
        var maximum: Double
    }

    /// One valuator class as the server describes it.
    struct Valuator: Equatable {
        var number: Int
        /// The label atom's name ("Rel X", "Abs Y", …), nil when it has none.
        var label: String?
        var absolute: Bool
        var minimum: Double
        var maximum: Double

        init(number: Int, label: String?, absolute: Bool, minimum: Double = 0, maximum: Double = 0) {
            self.number = number; self.label = label; self.absolute = absolute
            self.minimum = minimum; self.maximum = maximum
        }
    }

    var x: Axis?
    var y: Axis?

    init(x: Axis?, y: Axis?) { self.x = x; self.y = y }

    init(valuators: [Valuator]) {
        func pick(_ relative: String, _ absolute: String, _ number: Int) -> Axis? {
            let v = valuators.first { $0.label == relative } ?? valuators.first { $0.label == absolute }
                ?? valuators.first { $0.number == number }
            return v.map { Axis(number: $0.number, absolute: $0.absolute, minimum: $0.minimum, maximum: $0.maximum) }
        }
        x = pick("Rel X", "Abs X", 0)
        y = pick("Rel Y", "Abs Y", 1)
    }

    /// A device whose valuators the server did not describe: 0 and 1, relative (the X server's
    /// mice, and what the seat assumed before it asked).
    static let relative = PointerValuators(x: Axis(number: 0, absolute: false, minimum: 0, maximum: 0),
                                           y: Axis(number: 1, absolute: false, minimum: 0, maximum: 0))
}

/// RawMotion events → pointer motion in counts, per source device. A relative valuator's raw
/// (unaccelerated) value is the motion. An absolute valuator's value is a place: the motion is
/// the change since the same device's previous value — nothing on its first event, so a tablet
/// coming into use does not throw the pointer — and its range spans the screen (`screenWidth` ×
/// `screenHeight` pixels; a valuator without a range counts its units as pixels). Absolute
/// values are read from the event's transformed values (device units, also when the server was
/// given screen coordinates, as Xwayland's pointer is), relative ones from its raw values.
/// Pure; the seat owns one.
struct RawMotionReader {
    private var previous: [UInt16: (x: Double?, y: Double?)] = [:]

    /// Forgets every device's previous place (a new grab: the pointer may have moved since).
    mutating func reset() { previous.removeAll() }

    /// One RawMotion of device `source`: `mask` (valuators_len CARD32s, bit n of word n div 32 set
    /// when valuator n is present), `values` and `rawValues` (one per set bit, ascending valuator
    /// number — the event's axisvalues and axisvalues_raw lists).
    /// - Returns: the motion, nil when neither axis moved (a scroll-only event, an absolute
    ///   device's first event) or the lists disagree with the mask.
    mutating func motion(source: UInt16, axes: PointerValuators, mask: some Collection<UInt32>,
                         values: [Double], rawValues: [Double],
                         screenWidth: Int, screenHeight: Int) -> (dx: Double, dy: Double)? {
        let present = mask.reduce(0) { $0 + $1.nonzeroBitCount }
        guard present <= values.count, present <= rawValues.count else { return nil }
        var index: [Int: Int] = [:]
        var next = 0
        for (w, word) in mask.enumerated() where word != 0 {
            for bit in 0..<32 where word & (1 << UInt32(bit)) != 0 {
                index[w * 32 + bit] = next
                next += 1
            }
        }
        var last = previous[source] ?? (nil, nil)
        func read(_ axis: PointerValuators.Axis?, _ pixels: Int, _ before: inout Double?) -> Double? {
            guard let axis, let i = index[axis.number] else { return nil }
            guard axis.absolute else { return rawValues[i] }
            let v = values[i]
            defer { before = v }
            guard let b = before else { return nil }
            let span = axis.maximum - axis.minimum
            return span > 0 && pixels > 0 ? (v - b) * Double(pixels) / span : v - b
        }
        let dx = read(axes.x, screenWidth, &last.x), dy = read(axes.y, screenHeight, &last.y)
        if axes.x?.absolute == true || axes.y?.absolute == true { previous[source] = last }
        guard dx != nil || dy != nil else { return nil }
        return (dx ?? 0, dy ?? 0)
    }
}
