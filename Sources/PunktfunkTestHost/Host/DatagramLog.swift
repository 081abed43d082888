import Foundation
import PunktfunkWire

/// One JSON line per client datagram, as pf-testhost logs them.
public enum DatagramLog {
    public static func json(_ result: Result<ClientDatagram, WireError>, monotonicNs: UInt64) -> String {
        switch result {
        case .failure(let error):
            return "{\"t_ns\":\(monotonicNs),\"kind\":\"undecodable\",\"error\":\(quote("\(error)"))}"
        case .success(let datagram):
            let kind: String
            switch datagram {
            case .input: kind = "input"
            case .richInput: kind = "rich_input"
            case .feedback(let f):
                var s = "{\"t_ns\":\(monotonicNs),\"kind\":\"feedback\""
                if let w = f.window {
                    s += ",\"window\":\(w.number),\"loss_ppm\":\(w.lossPPM),\"packets\":\(w.packetsReceived)"
                }
                if let a = f.ask {
                    s += ",\"ask\":\(a.number),\"keyframe\":\(a.keyframe)"
                    if let r = a.invalidate { s += ",\"first\":\(r.first),\"last\":\(r.last)" }
                    if let n = a.nack { s += ",\"nack\":\(n.frame),\"shards\":\(n.shards)" }
                }
                if let ack = f.ack { s += ",\"acked\":\(ack.lastFrame),\"ack_mask\":\(ack.mask)" }
                return s + "}"
            case .mic: kind = "mic"
            case .clockProbe: kind = "clock_probe"
            case .unknown(let k, _): kind = "unknown_\(k)"
            }
            return "{\"t_ns\":\(monotonicNs),\"kind\":\"\(kind)\",\"detail\":\(quote("\(datagram)"))}"
        }
    }

    /// One input item as an input log line: `via` "datagram" or "control" (a key edge), the
    /// 0xC8 fields, or a rich-input item's bytes in hex.
    public static func inputJSON(_ event: InputEvent, via: String, monotonicNs: UInt64) -> String {
        "{\"t_ns\":\(monotonicNs),\"via\":\"\(via)\",\"kind\":\(event.kind.rawValue),\"code\":\(event.code),\"x\":\(event.x),\"y\":\(event.y),\"flags\":\(event.flags)}"
    }

    public static func richJSON(_ rich: RichInput, monotonicNs: UInt64) -> String {
        var w = WireWriter()
        rich.encode(into: &w)
        return "{\"t_ns\":\(monotonicNs),\"via\":\"datagram\",\"rich\":\"\(w.bytes.map { String(format: "%02x", $0) }.joined())\"}"
    }

    static func quote(_ s: String) -> String { JSONString.quoted(s) }
}
