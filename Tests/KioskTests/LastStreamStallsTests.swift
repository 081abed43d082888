import Foundation
import PunktfunkSession
import PunktfunkWire
import Testing
@testable import Kiosk

/// The last stream's ledger as `check` reads it back from the profile directory, and the stream's
/// stall line and overlay lines.
@Suite struct LastStreamStallsTests {
    let ms: UInt64 = 1_000_000

    /// Three scans 6 s apart, each stalling the stream 100 ms, and one stall with nothing near it.
    func ledger() -> StallLedger {
        var l = StallLedger()
        var t: UInt64 = 0
        func frames(to end: UInt64) { while t < end { l.frameArrived(frame: UInt32(t / (16 * ms)), ptsNs: Int64(t) - 5_000_000, now: t); t += 16 * ms } }
        for at: UInt64 in [2_000, 8_000, 14_000] {
            frames(to: at * ms)
            l.scanStarted(at: at * ms)
            l.frameArrived(frame: UInt32(at / 16), ptsNs: Int64(at * ms) - 5_000_000, now: at * ms + 100 * ms)
            t = at * ms + 116 * ms
            l.scanEnded(at: at * ms + 300 * ms)
        }
        frames(to: 17_500 * ms)
        l.frameLost(now: 17_500 * ms)   // 3.5 s after the last scan: no step of their period
        frames(to: 21_000 * ms)
        l.settle(now: 21_000 * ms)
        return l
    }

    @Test func itRoundTripsThroughTheProfileDirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-stalls-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(LastStreamStalls.read(in: dir) == nil)
        let l = ledger()
        let kept = LastStreamStalls(ledger: l, nowUnixSeconds: 1_765_000_000)
        #expect(kept.total == 4 && kept.wifiCaused == 3)
        #expect(kept.summary == "stalls 4: scan 3, none seen 1, every 6.0 s")
        #expect(kept.periodAdvice?.hasPrefix("stalls every 6.0 s follow background scans.") == true)
        try kept.write(in: dir)
        try kept.write(in: dir)   // rewritten in place
        #expect(LastStreamStalls.read(in: dir) == kept)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("stalls.json.new").path))
    }

    @Test func theStallLineIsWallClockJSON() throws {
        let l = ledger()
        let s = try #require(l.settled.first)
        let line = KioskRunner.stallLine(s, realtimeMinusMonotonicNs: 1_765_000_000_000_000_000)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let stall = try #require(o["stall"] as? [String: Any])
        #expect(stall["cause"] as? String == "scan")
        #expect(stall["start_unix_ms"] as? Int == 1_765_000_000_000 + Int(s.startNs / ms))
        #expect(stall["symptoms"] as? [String] == ["frozen", "delay"])
        #expect(stall["cause_offset_ms"] as? Int == Int(s.causeOffsetNs! / Int64(ms)))
    }

    @Test func theOverlaysWiFiLine() {
        let w = WiFiLink(interface: "wlan0", frequencyMHz: 2437, signalDBm: -67, txKbps: 54_000)
        #expect(LiveStats.wifiLine(w) == "wi-fi   ch 6 (2.4 GHz) -67 dBm tx 54 Mb/s")
        #expect(LiveStats.wifiLine(WiFiLink(interface: "wlan0")) == "wi-fi   wlan0")
    }
}
