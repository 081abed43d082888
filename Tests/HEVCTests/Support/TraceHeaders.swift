/// Parses the log of `ffmpeg -bsf:v trace_headers` into one list of syntax elements per NAL unit,
/// in stream order. Units printed under "Extradata" are dropped (they repeat the first packet's
/// parameter sets), so the result lines up with the NAL units of the file.
enum TraceHeaders {
    struct Element: Equatable, CustomStringConvertible {
        var position: Int
        var name: String
        var value: Int64
        var description: String { "\(position) \(name) = \(value)" }
    }

    struct Unit {
        var title: String
        var elements: [Element]
    }

    static func parse(_ log: String) -> [Unit] {
        var units: [Unit] = []
        var inExtradata = false
        var title = ""
        var current: Unit?
        func flush() {
            if let c = current, !inExtradata { units.append(c) }
            current = nil
        }
        for raw in log.split(separator: "\n", omittingEmptySubsequences: true) {
            // Strip "[trace_headers @ 0x…] " when present (committed traces have it removed);
            // lines from other loggers are ignored.
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
                current?.elements.append(Element(position: pos, name: name, value: value))
            } else {
                title = String(body)
            }
        }
        flush()
        return units
    }
}
