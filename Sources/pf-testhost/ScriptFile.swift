import ArgumentParser
import Foundation
import PunktfunkSession
import PunktfunkWire
import Audio
import PunktfunkTestHost

/// `--script FILE`: one JSON object per line, `{"frame":N,"datagram":"HEX"}` (an encoded host
/// datagram: rumble, HID output, cursor, …) or `{"frame":N,"control":"HEX"}` (an encoded control
/// frame: StreamConfig, Reconfigured, BitrateChanged, …). Empty lines and lines starting with `#`
/// are skipped; anything else that does not decode is an error naming the line.
enum ScriptFile {
    static func events(path: String) throws -> [ScriptedEvent] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var events: [ScriptedEvent] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            func bad(_ why: String) -> ValidationError { ValidationError("\(path):\(number + 1): \(why)") }
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any],
                  let frame = object["frame"] as? Int, frame >= 0 else { throw bad("expected {\"frame\":N, …}") }
            if let hex = object["datagram"] as? String {
                guard let bytes = bytes(hex), let datagram = try? HostDatagram(decoding: bytes) else { throw bad("not a host datagram") }
                events.append(ScriptedEvent(frame: frame, action: .datagram(datagram)))
            } else if let hex = object["control"] as? String {
                guard let bytes = bytes(hex), let frameBytes = try? ControlFrame.decode(bytes),
                      let message = try? ControlMessage(frame: frameBytes) else { throw bad("not a control frame") }
                events.append(ScriptedEvent(frame: frame, action: .control(message)))
            } else {
                throw bad("needs \"datagram\" or \"control\"")
            }
        }
        return events
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8).filter { $0 != UInt8(ascii: " ") }
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
            i += 2
        }
        return out
    }
}

/// The Opus tone behind `--audio`, shared with the host thread's audio callback: replayed from
/// one encoded period (`OpusToneLoop`) where the tone has one, else encoded packet by packet.
final class TestToneFeed: @unchecked Sendable {
    private let lock = NSLock()
    private let loop: OpusToneLoop?
    private let source: OpusToneSource?
    init(_ make: () throws(AudioError) -> OpusToneSource) throws(AudioError) {
        loop = try OpusToneLoop(try make())
        source = loop == nil ? try make() : nil
    }
    /// "replayed (N-packet period)" or "encoded live", for the host's start-up line.
    var how: String { loop.map { "replayed (\($0.period)-packet period)" } ?? "encoded live" }
    func next() -> [UInt8]? { lock.withLock { loop?.nextPacket() ?? (try? source?.nextPacket()) ?? nil } }
}

/// `OpusSurroundTone` behind `--audio-channels 6|8`, shared with the host thread's audio callback.
final class SurroundToneFeed: @unchecked Sendable {
    private let lock = NSLock()
    private let tone: OpusSurroundTone
    init(_ tone: OpusSurroundTone) { self.tone = tone }
    func next() -> [UInt8]? { lock.withLock { tone.nextPacket() } }
}
