import PunktfunkWire

/// Deterministic AU payloads for test hosts and tests.
public enum SyntheticAccessUnits {
    /// `count` AUs; AU i has `bytes + i * 37` bytes of SplitMix64(seed) content (so sizes differ and
    /// are rarely shard multiples). Not valid HEVC.
    public static func make(count: Int, bytes: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            var au = [UInt8](repeating: 0, count: bytes + i * 37)
            for j in au.indices { au[j] = UInt8(truncatingIfNeeded: rng.next() >> 56) }
            return au
        }
    }
}

/// Splits an Annex-B HEVC byte stream into access units: a new AU starts at an AUD (type 35), or at
/// the first VPS/SPS/PPS/prefix-SEI (32…34, 39) or VCL NAL (0…31) with first_slice_segment_in_pic
/// set, once the current AU already holds a VCL NAL. Start codes stay with their NAL units.
public enum AnnexBSplitter {
    public static func accessUnits(_ data: [UInt8]) -> [[UInt8]] {
        // Offsets of start codes (the first 0 of 00 00 01 / 00 00 00 01).
        var starts: [Int] = []
        var i = 0
        while i + 3 <= data.count {
            if data[i] == 0, data[i + 1] == 0, data[i + 2] == 1 {
                starts.append(i > 0 && data[i - 1] == 0 ? i - 1 : i)
                i += 3
            } else {
                i += 1
            }
        }
        guard !starts.isEmpty else { return [] }
        var aus: [[UInt8]] = []
        var auStart = starts[0]
        var hasVCL = false
        for s in starts {
            let header = data[s + 2] == 1 ? s + 3 : s + 4
            guard header + 2 <= data.count else { continue }
            let type = (data[header] >> 1) & 0x3F
            let isVCL = type < 32
            let firstSlice = isVCL && header + 2 < data.count && data[header + 2] & 0x80 != 0
            let opens = type == 35 || (32...34).contains(type) || type == 39 || firstSlice
            if hasVCL && opens && s > auStart {
                aus.append(Array(data[auStart..<s]))
                auStart = s
                hasVCL = false
            }
            if isVCL { hasVCL = true }
        }
        if auStart < data.count { aus.append(Array(data[auStart...])) }
        return aus
    }

    /// Indices of the AUs holding an IRAP picture (NAL types 16…21: BLA, IDR, CRA).
    public static func keyframeIndices(_ aus: [[UInt8]]) -> [Int] {
        aus.indices.filter { index in
            let au = aus[index]
            var i = 0
            while i + 3 < au.count {
                if au[i] == 0, au[i + 1] == 0, au[i + 2] == 1 {
                    if (16...21).contains((au[i + 3] >> 1) & 0x3F) { return true }
                    i += 3
                } else {
                    i += 1
                }
            }
            return false
        }
    }
}

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
                if let a = f.ask { s += ",\"ask\":\(a.number),\"keyframe\":\(a.keyframe)" }
                return s + "}"
            case .mic: kind = "mic"
            case .clockProbe: kind = "clock_probe"
            case .unknown(let k, _): kind = "unknown_\(k)"
            }
            return "{\"t_ns\":\(monotonicNs),\"kind\":\"\(kind)\",\"detail\":\(quote("\(datagram)"))}"
        }
    }

    static func quote(_ s: String) -> String {
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
