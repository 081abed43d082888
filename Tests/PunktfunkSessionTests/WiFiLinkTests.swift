import Glibc
import Testing
import PunktfunkWire
@testable import PunktfunkSession

/// WiFiLink's arithmetic: channels from frequencies as the kernel's
/// ieee80211_freq_khz_to_channel numbers them (2.4 GHz 1–14, 5 GHz 36…165, 6 GHz from 5955),
/// and nl80211's rate units (100 kbit/s) and width codes.
@Suite struct WiFiLinkTests {
    @Test func channelsAndBandsFromFrequencies() {
        func link(_ f: Int) -> WiFiLink { WiFiLink(interface: "wlan0", frequencyMHz: f) }
        #expect(link(2412).channel == 1 && link(2437).channel == 6 && link(2472).channel == 13 && link(2484).channel == 14)
        #expect(link(5180).channel == 36 && link(5825).channel == 165 && link(5955).channel == 1 && link(6415).channel == 93)
        #expect(link(2437).bandGHz == 2.4 && link(5180).bandGHz == 5 && link(5955).bandGHz == 6)
    }

    @Test func ratesAndWidthsInTheKernelsUnits() {
        // NL80211_RATE_INFO_BITRATE32 (5) = 5850 → 585.0 Mbit/s; the 16-bit BITRATE (1) alone = 540 → 54 Mbit/s.
        let r32 = NetlinkCodec.Attributes(NetlinkCodec.attribute(5, NetlinkCodec.le32(5850))[...])
        let r16 = NetlinkCodec.Attributes(NetlinkCodec.attribute(1, [0x1C, 0x02])[...])
        #expect(NL80211.kbps(r32) == 585_000 && NL80211.kbps(r16) == 54_000)
        // NL80211_CHAN_WIDTH_20_NOHT 0, _20 1, _40 2, _80 3, _80P80 4, _160 5, _5 6, _10 7.
        #expect([0, 1, 2, 3, 4, 5, 6, 7, 99].map { NL80211.widthMHz(UInt32($0)) } == [20, 20, 40, 80, 80, 160, 5, 10, nil])
    }

    @Test func oneSentenceAndOneJSONObject() {
        var l = WiFiLink(interface: "wlan1", ssid: "pf-wifi", frequencyMHz: 2437, widthMHz: 20, signalDBm: -30, signalAverageDBm: -31,
                         txKbps: 54_000, powerSave: false)
        #expect(l.sentence == "wlan1 is Wi-Fi on \"pf-wifi\": 2.4 GHz channel 6 (20 MHz), signal -30 dBm (average -31), tx 54 Mbit/s, power save off")
        l.ssid = "a\"b"
        #expect(l.json.hasPrefix("{\"interface\":\"wlan1\",\"ssid\":\"a\\\"b\",\"frequency_mhz\":2437,\"band_ghz\":2.4,\"channel\":6,"))
    }
}

/// nl80211 event messages as the kernel multicasts them (command and attribute numbers from
/// linux/nl80211.h: TRIGGER_SCAN 33, NEW_SCAN_RESULTS 34, SCAN_ABORTED 35, CONNECT 46, ROAM 47,
/// DISCONNECT 48, NOTIFY_CQM 64, CH_SWITCH_NOTIFY 88, CH_SWITCH_STARTED_NOTIFY 110; ATTR_IFINDEX 3,
/// ATTR_CQM 94, CQM_BEACON_LOSS_EVENT 8 — a flag) turned into the ledger's events.
@Suite struct WiFiEventTests {
    func attributes(ifindex: UInt32?, _ more: [UInt8] = []) -> NetlinkCodec.Attributes {
        let bytes = (ifindex.map { NetlinkCodec.attribute(3, NetlinkCodec.le32($0)) } ?? []) + more
        return NetlinkCodec.Attributes(bytes[...])
    }

    @Test func scansRoamsAndSwitchesOfOurInterface() {
        let ours = attributes(ifindex: 7)
        #expect(WiFiEvent.kind(command: 33, attributes: ours, interface: 7) == .scanStarted)
        #expect(WiFiEvent.kind(command: 34, attributes: ours, interface: 7) == .scanEnded)
        #expect(WiFiEvent.kind(command: 35, attributes: ours, interface: 7) == .scanEnded)
        #expect(WiFiEvent.kind(command: 46, attributes: ours, interface: 7) == .roam)
        #expect(WiFiEvent.kind(command: 47, attributes: ours, interface: 7) == .roam)
        #expect(WiFiEvent.kind(command: 48, attributes: ours, interface: 7) == .roam)
        #expect(WiFiEvent.kind(command: 88, attributes: ours, interface: 7) == .channelSwitch)
        #expect(WiFiEvent.kind(command: 110, attributes: ours, interface: 7) == .channelSwitch)
    }

    @Test func anotherInterfacesEventsAreNotOurs() {
        #expect(WiFiEvent.kind(command: 33, attributes: attributes(ifindex: 8), interface: 7) == nil)
        #expect(WiFiEvent.kind(command: 33, attributes: attributes(ifindex: nil), interface: 7) == .scanStarted,
                "a wiphy-wide event names no interface")
    }

    @Test func cqmIsBeaconLossOnlyWithItsFlag() {
        let loss = attributes(ifindex: 7, NetlinkCodec.attribute(94, NetlinkCodec.attribute(8, [])))
        #expect(WiFiEvent.kind(command: 64, attributes: loss, interface: 7) == .beaconLoss)
        // a signal threshold crossing (CQM_RSSI_THRESHOLD_EVENT, 2) is no stall cause
        let rssi = attributes(ifindex: 7, NetlinkCodec.attribute(94, NetlinkCodec.attribute(2, NetlinkCodec.le32(0))))
        #expect(WiFiEvent.kind(command: 64, attributes: rssi, interface: 7) == nil)
        #expect(WiFiEvent.kind(command: 19, attributes: attributes(ifindex: 7), interface: 7) == nil, "NEW_STATION is not a stall cause")
    }

    @Test func aMissingInterfaceIsAClearError() {
        #expect(throws: GenericNetlink.Failure.self) { _ = try WiFiEventWatch(interface: "pf-absent0") }
        do { _ = try WiFiEventWatch(interface: "pf-absent0") } catch {
            #expect(error.errno == ENODEV && "\(error)".contains("no interface pf-absent0"))
        }
    }

    @Test func eventsFeedTheLedger() {
        var l = StallLedger()
        WiFiEvent(kind: .scanStarted, atNs: 1_000_000_000).feed(&l)
        l.frameLost(now: 1_100_000_000)
        let told = l.takeOutageNews()
        #expect(told)
        WiFiEvent(kind: .scanEnded, atNs: 1_300_000_000).feed(&l)
        l.settle(now: 3_000_000_000)
        #expect(l.last?.cause == .scan)
    }
}

/// The SSID from 802.11 information elements (IEEE 802.11 §9.4.2.2: element id 0, then length).
@Suite struct WiFiSSIDTests {
    @Test func theSSIDElementAmongOthers() {
        // DS parameter set (3, channel 6), then SSID "pf-wifi", then supported rates (1)
        let ies: [UInt8] = [3, 1, 6] + [0, 7] + Array("pf-wifi".utf8) + [1, 2, 0x82, 0x84]
        #expect(WiFiElements.ssid(ies[...]) == "pf-wifi")
    }

    @Test func hiddenTruncatedOrAbsentIsNil() {
        #expect(WiFiElements.ssid([0, 0, 1, 1, 0x82][...]) == nil, "a hidden network's empty SSID")
        #expect(WiFiElements.ssid([0, 9, 0x70, 0x66][...]) == nil, "a length past the end")
        #expect(WiFiElements.ssid([1, 1, 0x82][...]) == nil)
        #expect(WiFiElements.ssid([][...]) == nil)
    }
}
