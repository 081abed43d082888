import SelfCheck
import Testing

/// The Wi-Fi section's judging: a box without Wi-Fi, a weak or 2.4 GHz link, power save with and
/// without CAP_NET_ADMIN, scans heard while `check` ran, and the last stream's stalls.
@Suite("check: Wi-Fi judging")
struct WiFiJudgeTests {
    func finding(_ s: Section, _ subject: String) -> Finding? { s.findings.first { $0.subject == subject } }

    @Test func noWiFiIsNotAvailableAndInformational() {
        let s = WiFiJudge.judge(WiFiObservation(links: [], canSetPowerSave: false))
        #expect(s.id == .wifi)
        #expect(s.findings.count == 1)
        #expect(s.findings[0].verdict == .notAvailable && s.findings[0].informational)
        #expect(s.findings[0].why.contains("cable"))
    }

    @Test func aStrongFiveGHzLinkWithPowerSaveTheKioskCanTurnOff() {
        let link = WiFiObservation.Link(interface: "wlan0", frequencyMHz: 5180, channel: 36, bandGHz: 5, signalDBm: -52,
                                        txKbps: 866_700, powerSave: true)
        let s = WiFiJudge.judge(WiFiObservation(links: [link], canSetPowerSave: true, listenedSeconds: 3))
        #expect(s.verdict == .ok)
        #expect(finding(s, "wlan0")?.why == "5 GHz channel 36, signal -52 dBm, tx 866 Mbit/s.")
        #expect(finding(s, "wlan0 power save")?.verdict == .ok)
        #expect(finding(s, "events")?.why == "no scan, roam, channel switch or beacon loss in 3 s.")
    }

    @Test func weakOr2_4GHzLinksAreDegradedWithAdvice() {
        let weak = WiFiJudge.judge(WiFiObservation(links: [.init(interface: "wlan0", frequencyMHz: 5180, channel: 36, bandGHz: 5, signalDBm: -68)],
                                                   canSetPowerSave: true))
        #expect(finding(weak, "wlan0")?.verdict == .degraded)
        #expect(finding(weak, "wlan0")?.action?.contains("nearer") == true)
        let atEdge = WiFiJudge.judge(WiFiObservation(links: [.init(interface: "wlan0", frequencyMHz: 5180, channel: 36, bandGHz: 5, signalDBm: -67)],
                                                     canSetPowerSave: true))
        #expect(finding(atEdge, "wlan0")?.verdict == .ok)
        let slow = WiFiJudge.judge(WiFiObservation(links: [.init(interface: "wlan0", frequencyMHz: 2437, channel: 6, bandGHz: 2.4, signalDBm: -40)],
                                                   canSetPowerSave: true))
        #expect(finding(slow, "wlan0")?.verdict == .degraded)
        #expect(finding(slow, "wlan0")?.action?.contains("5 GHz") == true)
    }

    @Test func powerSaveWithoutThePrivilegeNamesIt() {
        let s = WiFiJudge.judge(WiFiObservation(links: [.init(interface: "wlp2s0", frequencyMHz: 5180, channel: 36, bandGHz: 5, signalDBm: -50, powerSave: true)],
                                                canSetPowerSave: false))
        let f = finding(s, "wlp2s0 power save")
        #expect(f?.verdict == .degraded)
        #expect(f?.why.contains("CAP_NET_ADMIN") == true)
        #expect(f?.action?.contains("iw dev wlp2s0 set power_save off") == true)
    }

    @Test func scansHeardAreDegradedWithTheNetworkManagerAdvice() {
        let s = WiFiJudge.judge(WiFiObservation(links: [.init(interface: "wlan0", frequencyMHz: 5180, channel: 36, bandGHz: 5, signalDBm: -50, powerSave: false)],
                                                canSetPowerSave: true, eventsHeard: ["scan": 2, "roam": 0], listenedSeconds: 3))
        let f = finding(s, "events")
        #expect(f?.verdict == .degraded)
        #expect(f?.why.hasPrefix("2 scans in 3 s") == true)
        #expect(f?.action?.contains("NetworkManager background-scans every 300 s") == true)
    }

    @Test func theLastStreamsPeriodIsItsAdvice() {
        let last = WiFiObservation.LastStream(endedUnixSeconds: 1_765_000_000, summary: "stalls 4: scan 3, none seen 1, every 300 s",
                                              wifiCaused: 3, total: 4, periodAdvice: "stalls every 300 s follow background scans: NetworkManager …")
        let s = WiFiJudge.judge(WiFiObservation(links: [], canSetPowerSave: true, lastStream: last))
        let f = finding(s, "last stream")
        #expect(f?.verdict == .degraded)
        #expect(f?.why == "stalls 4: scan 3, none seen 1, every 300 s: stalls every 300 s follow background scans: NetworkManager …")
        let calm = WiFiJudge.judge(WiFiObservation(links: [], canSetPowerSave: true,
                                                   lastStream: .init(endedUnixSeconds: 1, summary: "stalls 1: none seen 1", wifiCaused: 0, total: 1, periodAdvice: nil)))
        #expect(finding(calm, "last stream")?.verdict == .ok)
    }
}
