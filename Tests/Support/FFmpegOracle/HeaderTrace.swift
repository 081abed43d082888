/// The log of `ffmpeg -bsf:v trace_headers` as one list of syntax elements per NAL unit, in
/// stream order (units printed under "Extradata" dropped: they repeat the first packet's
/// parameter sets), so the result lines up with the NAL units of the file.
///
public enum HeaderTrace {
    public struct Element: Equatable, Sendable, CustomStringConvertible {
        /// Bit position in the unit's RBSP (emulation prevention removed), header included.
        public var position: Int
        public var name: String
        /// Coded width in bits.
        public var bits: Int
        public var value: Int64
        public var description: String { "\(position) \(name) = \(value)" }
    }

    public struct Unit: Sendable {
        /// The trace's heading line before the unit (e.g. "Slice Segment Header"), for messages.
        public var title: String
        public var elements: [Element]
        public var nalUnitType: Int { Int(self["nal_unit_type"] ?? -1) }
        /// The first element called `name` (array elements carry their index: "x[0]").
        public subscript(name: String) -> Int64? { elements.first { $0.name == name }?.value }
        public func element(_ name: String) -> Element? { elements.first { $0.name == name } }
    }

    public static func parse(_ log: String) -> [Unit] {
        var units: [Unit] = []
        var inExtradata = false
        var title = ""
        var current: Unit?
        func flush() {
            if let c = current, !inExtradata { units.append(c) }
            current = nil
        }
        for raw in log.split(separator: "\n", omittingEmptySubsequences: true) {
            var body = Substring(raw)
            if let open = body.range(of: "[trace_headers") {
                guard let close = body[open.upperBound...].range(of: "] ") else { continue }
                body = body[close.upperBound...]
            } else if body.hasPrefix("[") || body.hasPrefix(" ") {
                continue
            }
            if body.hasPrefix("Extradata") { flush(); inExtradata = true; continue }
            if body.hasPrefix("Packet:") { flush(); inExtradata = false; continue }
            let fields = body.split(separator: " ", omittingEmptySubsequences: true)
            // "<pos> <name> <bits> = <value>"
            if fields.count == 5, let pos = Int(fields[0]), fields[3] == "=", let value = Int64(fields[4]) {
                let name = String(fields[1])
                if pos == 0 && name == "forbidden_zero_bit" {
                    flush()
                    current = Unit(title: title, elements: [])
                }
                current?.elements.append(Element(position: pos, name: name, bits: fields[2].count, value: value))
            } else {
                title = String(body)
            }
        }
        flush()
        return units
    }
}
