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
