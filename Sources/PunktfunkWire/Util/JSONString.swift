/// A string as a JSON string literal (RFC 8259 §7): quotes and backslashes escaped, a newline as
/// `\n`, other control characters as `\u00XX`, everything else as it is. For the one-line JSON
/// logs, stats and reports of every layer.
public enum JSONString {
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if c.value < 0x20 { out += "\\u00" + (c.value < 0x10 ? "0" : "") + String(c.value, radix: 16) } else { out.unicodeScalars.append(c) }
            }
        }
        return out + "\""
    }
}
