import Foundation
import Glibc
import PunktfunkWire

/// The last stream's stall ledger, kept in the profile directory (`stalls.json`) for `check`'s
/// Wi-Fi section: rewritten whole (write, then rename) at each settled stall, so a stream that
/// ends any way leaves its newest figures.
public struct LastStreamStalls: Sendable, Equatable {
    public static let fileName = "stalls.json"

    public var endedUnixSeconds: Int
    public var summary: String
    public var total: Int
    /// Stalls with a Wi-Fi cause (scan, roam, channel switch, beacon loss).
    public var wifiCaused: Int
    public var periodAdvice: String?

    public init(ledger: StallLedger, nowUnixSeconds: Int) {
        self.init(endedUnixSeconds: nowUnixSeconds, summary: ledger.summary, total: ledger.total,
                  wifiCaused: StallLedger.Cause.allCases.filter(\.isOutage).reduce(0) { $0 + ledger.counts[$1.rawValue] },
                  periodAdvice: ledger.period?.advice)
    }

    init(endedUnixSeconds: Int, summary: String, total: Int, wifiCaused: Int, periodAdvice: String?) {
        self.endedUnixSeconds = endedUnixSeconds; self.summary = summary; self.total = total
        self.wifiCaused = wifiCaused; self.periodAdvice = periodAdvice
    }

    public var json: String {
        "{\"ended_unix\":\(endedUnixSeconds),\"summary\":\(JSONString.quoted(summary)),\"total\":\(total),"
            + "\"wifi_caused\":\(wifiCaused),\"period_advice\":\(periodAdvice.map(JSONString.quoted) ?? "null")}\n"
    }

    public func write(in directory: URL) throws {
        let url = directory.appendingPathComponent(Self.fileName)
        let temporary = directory.appendingPathComponent(Self.fileName + ".new")
        try Data(json.utf8).write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
    }

    /// nil when there is no file or it does not parse.
    public static func read(in directory: URL) -> LastStreamStalls? {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(fileName)),
              let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let ended = o["ended_unix"] as? Int, let summary = o["summary"] as? String,
              let total = o["total"] as? Int, let wifi = o["wifi_caused"] as? Int else { return nil }
        return LastStreamStalls(endedUnixSeconds: ended, summary: summary, total: total, wifiCaused: wifi,
                                periodAdvice: o["period_advice"] as? String)
    }
}
