/// The Wi-Fi section: each Wi-Fi interface's link (band, channel, signal, power save), whether
/// this process may turn power save off, the scans, roams, channel switches and beacon losses heard
/// while `check` ran, and the last stream's stalls with their causes and period.
public struct WiFiObservation: Sendable {
    public struct Link: Sendable {
        public var interface: String
        /// nil when nl80211 could not read it (`error` says why).
        public var frequencyMHz: Int?, channel: Int?, bandGHz: Double?
        /// The access point's signal, dBm (nil: not associated).
        public var signalDBm: Int?
        public var txKbps: Int?
        public var powerSave: Bool?
        public var error: String?

        public init(interface: String, frequencyMHz: Int? = nil, channel: Int? = nil, bandGHz: Double? = nil, signalDBm: Int? = nil,
                    txKbps: Int? = nil, powerSave: Bool? = nil, error: String? = nil) {
            self.interface = interface; self.frequencyMHz = frequencyMHz; self.channel = channel; self.bandGHz = bandGHz
            self.signalDBm = signalDBm; self.txKbps = txKbps; self.powerSave = powerSave; self.error = error
        }
    }

    /// The last stream's ledger as the kiosk kept it (`stalls.json` in the profile directory).
    public struct LastStream: Sendable {
        public var endedUnixSeconds: Int
        /// `StallLedger.summary` ("stalls 4: scan 3, none seen 1, every 6.1 s").
        public var summary: String
        /// Stalls with a Wi-Fi cause (scan, roam, channel switch, beacon loss) and all stalls.
        public var wifiCaused: Int, total: Int
        /// The period's advice, nil when no period was named.
        public var periodAdvice: String?

        public init(endedUnixSeconds: Int, summary: String, wifiCaused: Int, total: Int, periodAdvice: String?) {
            self.endedUnixSeconds = endedUnixSeconds; self.summary = summary; self.wifiCaused = wifiCaused
            self.total = total; self.periodAdvice = periodAdvice
        }
    }

    public var links: [Link]
    /// nl80211 is missing (no cfg80211), with the reason; nil when it answered.
    public var nl80211Error: String?
    /// CAP_NET_ADMIN in this process's effective set (root has it).
    public var canSetPowerSave: Bool
    /// Events heard on the Wi-Fi interfaces while `check` ran, by kind ("scan", "roam", …).
    public var eventsHeard: [String: Int]
    public var listenedSeconds: Double
    public var lastStream: LastStream?

    public init(links: [Link], nl80211Error: String? = nil, canSetPowerSave: Bool, eventsHeard: [String: Int] = [:],
                listenedSeconds: Double = 0, lastStream: LastStream? = nil) {
        self.links = links; self.nl80211Error = nl80211Error; self.canSetPowerSave = canSetPowerSave
        self.eventsHeard = eventsHeard; self.listenedSeconds = listenedSeconds; self.lastStream = lastStream
    }
}

public enum WiFiJudge {
    /// Under this signal (dBm) a stream at high rates drops to slower modulations and retries.
    public static let weakSignalDBm = -67

    public static func judge(_ o: WiFiObservation) -> Section {
        var findings: [Finding] = []
        if o.links.isEmpty {
            findings.append(Finding("Wi-Fi", .notAvailable,
                                    o.nl80211Error.map { "no nl80211 (\($0)): the box has no Wi-Fi the kernel knows." }
                                        ?? "no Wi-Fi interface: the box streams over its cable.",
                                    informational: true))
        }
        for l in o.links { findings += link(l, canSetPowerSave: o.canSetPowerSave) }
        if !o.links.isEmpty {
            let seconds = "\(Int(o.listenedSeconds.rounded())) s"
            let heard = o.eventsHeard.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            if heard.isEmpty {
                findings.append(Finding("events", .ok, "no scan, roam, channel switch or beacon loss in \(seconds)."))
            } else {
                let words = heard.map { "\($0.value) \($0.key)\($0.value == 1 ? "" : "s")" }.joined(separator: ", ")
                findings.append(Finding("events", .degraded, "\(words) in \(seconds) while nothing streamed: each scan takes the radio off its channel for tens of milliseconds per channel.",
                                        action: "Find what asks for scans: NetworkManager background-scans every 300 s when it sees two access points for the network (every 30 s under −65 dBm); lock the connection to one access point's BSSID.",
                                        facts: heard.map { Fact($0.key, String($0.value)) }))
            }
        }
        if let last = o.lastStream {
            let facts = [Fact("stalls", String(last.total)), Fact("Wi-Fi caused", String(last.wifiCaused)), Fact("ended", String(last.endedUnixSeconds))]
            if let advice = last.periodAdvice {
                findings.append(Finding("last stream", .degraded, "\(last.summary): \(advice)", facts: facts))
            } else if last.wifiCaused > 0 {
                findings.append(Finding("last stream", .degraded, "\(last.summary): \(last.wifiCaused) followed Wi-Fi events (scans, roams, channel switches, beacon loss).",
                                        action: "Lock the connection to one access point, or use a cable.", facts: facts))
            } else {
                findings.append(Finding("last stream", .ok, last.total == 0 ? "no stalls." : "\(last.summary).", facts: facts))
            }
        }
        return Section(.wifi, findings)
    }

    static func link(_ l: WiFiObservation.Link, canSetPowerSave: Bool) -> [Finding] {
        if let e = l.error { return [Finding(l.interface, .failed, "nl80211 cannot read it: \(e).")] }
        guard let signal = l.signalDBm else {
            return [Finding(l.interface, .notAvailable, "not associated with an access point.", informational: true)]
        }
        let band = l.bandGHz.map { $0 == 2.4 ? "2.4" : String(Int($0)) }
        let place = [band.map { "\($0) GHz" }, l.channel.map { "channel \($0)" }].compactMap { $0 }.joined(separator: " ")
        let tx = l.txKbps.map { ", tx \($0 / 1000) Mbit/s" } ?? ""
        var facts = [Fact("signal", "\(signal) dBm")]
        if let f = l.frequencyMHz { facts.append(Fact("frequency", "\(f) MHz")) }
        var findings: [Finding]
        if signal < weakSignalDBm {
            findings = [Finding(l.interface, .degraded, "\(place), signal \(signal) dBm\(tx): weak (under \(weakSignalDBm) dBm), so high rates stall.",
                                action: "Move the box or the access point nearer, or use a cable.", facts: facts)]
        } else if l.bandGHz == 2.4 {
            findings = [Finding(l.interface, .degraded, "\(place), signal \(signal) dBm\(tx): 2.4 GHz is crowded and slow for a stream.",
                                action: "Use the access point's 5 GHz band (or 6 GHz), or a cable.", facts: facts)]
        } else {
            findings = [Finding(l.interface, .ok, "\(place), signal \(signal) dBm\(tx).", facts: facts)]
        }
        switch (l.powerSave, canSetPowerSave) {
        case (true?, true):
            findings.append(Finding("\(l.interface) power save", .ok, "on; the kiosk turns it off while it streams and back on after."))
        case (true?, false):
            findings.append(Finding("\(l.interface) power save", .degraded, "on, and this process cannot turn it off (no CAP_NET_ADMIN): a dozing radio delays the first packets of each frame.",
                                    action: "Run the kiosk from the package's unit (AmbientCapabilities=CAP_NET_ADMIN), or `iw dev \(l.interface) set power_save off`."))
        case (false?, _):
            findings.append(Finding("\(l.interface) power save", .ok, "off."))
        case (nil, _):
            findings.append(Finding("\(l.interface) power save", .notAvailable, "the driver does not say.", informational: true))
        }
        return findings
    }
}
