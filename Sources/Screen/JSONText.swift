import PunktfunkWire

/// JSON string quoting for the reports the kiosk prints (probe, start-up, check, the hello plan).
public enum JSON {
    public static func string(_ s: String) -> String { JSONString.quoted(s) }
}
