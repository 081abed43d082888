internal import CPunktfunkLinux
import Foundation
import Glibc
import PunktfunkWire

/// A Wi-Fi link as nl80211 reports it (issue 41): the interface (NL80211_CMD_GET_INTERFACE: its
/// frequency, channel width, SSID), the access point it is associated with (GET_STATION: signal
/// and its average, tx/rx bitrate, retries, failures, expected throughput, beacon losses) and power
/// save (GET_POWER_SAVE). Reading needs no privilege; setting power save needs CAP_NET_ADMIN.
public struct WiFiLink: Sendable, Equatable {
    public var interface: String
    public var ssid: String?
    public var frequencyMHz: Int?
    /// The channel's width (NL80211_CHAN_WIDTH_*'s MHz: 20, 40, 80, 160, …), nil when unknown.
    public var widthMHz: Int?
    /// The station's (the access point's) signal, dBm, and its average.
    public var signalDBm: Int?, signalAverageDBm: Int?
    /// Bitrates, kbit/s (the kernel's 100 kbit/s units).
    public var txKbps: Int?, rxKbps: Int?
    public var txRetries: Int?, txFailed: Int?
    /// The driver's estimate of the throughput the link carries, kbit/s.
    public var expectedThroughputKbps: Int?
    public var beaconLoss: Int?
    /// nil: the driver does not say.
    public var powerSave: Bool?

    public init(interface: String, ssid: String? = nil, frequencyMHz: Int? = nil, widthMHz: Int? = nil, signalDBm: Int? = nil,
                signalAverageDBm: Int? = nil, txKbps: Int? = nil, rxKbps: Int? = nil, txRetries: Int? = nil, txFailed: Int? = nil,
                expectedThroughputKbps: Int? = nil, beaconLoss: Int? = nil, powerSave: Bool? = nil) {
        self.interface = interface; self.ssid = ssid; self.frequencyMHz = frequencyMHz; self.widthMHz = widthMHz
        self.signalDBm = signalDBm; self.signalAverageDBm = signalAverageDBm; self.txKbps = txKbps; self.rxKbps = rxKbps
        self.txRetries = txRetries; self.txFailed = txFailed; self.expectedThroughputKbps = expectedThroughputKbps
        self.beaconLoss = beaconLoss; self.powerSave = powerSave
    }

    /// 2.4, 5 or 6 (GHz), from the frequency (802.11: 2.4 GHz below 2500 MHz, 6 GHz from 5925).
    public var bandGHz: Double? {
        guard let f = frequencyMHz else { return nil }
        return f < 2500 ? 2.4 : f < 5925 ? 5 : 6
    }

    /// The band as said ("2.4", "5", "6").
    public var bandName: String? { bandGHz.map { $0 == 2.4 ? "2.4" : String(Int($0)) } }

    /// The channel number of the frequency (ieee80211_frequency_to_channel's arithmetic).
    public var channel: Int? {
        guard let f = frequencyMHz else { return nil }
        if f == 2484 { return 14 }
        if f < 2484 { return (f - 2407) / 5 }
        if f >= 5955 && f <= 7115 { return (f - 5950) / 5 }
        if f >= 4910 && f <= 4980 { return (f - 4000) / 5 }
        if f < 5925 { return (f - 5000) / 5 }
        return nil
    }

    /// One JSON object (probe, the stats).
    public var json: String {
        func n(_ v: Int?) -> String { v.map(String.init) ?? "null" }
        return "{\"interface\":\(JSONString.quoted(interface)),\"ssid\":\(ssid.map(JSONString.quoted) ?? "null"),\"frequency_mhz\":\(n(frequencyMHz)),"
            + "\"band_ghz\":\(bandName ?? "null"),\"channel\":\(n(channel)),"
            + "\"width_mhz\":\(n(widthMHz)),\"signal_dbm\":\(n(signalDBm)),\"signal_avg_dbm\":\(n(signalAverageDBm)),"
            + "\"tx_kbps\":\(n(txKbps)),\"rx_kbps\":\(n(rxKbps)),\"tx_retries\":\(n(txRetries)),\"tx_failed\":\(n(txFailed)),"
            + "\"expected_throughput_kbps\":\(n(expectedThroughputKbps)),\"beacon_loss\":\(n(beaconLoss)),"
            + "\"power_save\":\(powerSave.map { $0 ? "true" : "false" } ?? "null")}"
    }

    /// One sentence for the start-up lines.
    public var sentence: String {
        var parts: [String] = []
        if let b = bandName, let c = channel { parts.append("\(b) GHz channel \(c)\(widthMHz.map { " (\($0) MHz)" } ?? "")") }
        if let s = signalDBm { parts.append("signal \(s) dBm\(signalAverageDBm.map { " (average \($0))" } ?? "")") }
        if let t = txKbps { parts.append("tx \(t / 1000) Mbit/s") }
        if let p = powerSave { parts.append("power save \(p ? "on" : "off")") }
        return "\(interface) is Wi-Fi\(ssid.map { " on \"\($0)\"" } ?? "")" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }
}

extension WiFiLink {
    /// `probe`'s member: each Wi-Fi interface's link (`{"interface":…,"error":"…"}` when nl80211
    /// cannot read it), `[]` when the box has none (or no nl80211: no cfg80211 in the kernel).
    public static func probeJSON() -> String {
        guard let nl = try? NL80211(), let names = try? nl.interfaces(), !names.isEmpty else { return "[]" }
        return "[" + names.map { name -> String in
            do throws(GenericNetlink.Failure) {
                return try nl.link(name).json
            } catch {
                return "{\"interface\":\(JSONString.quoted(name)),\"error\":\(JSONString.quoted("\(error)"))}"
            }
        }.joined(separator: ",") + "]"
    }
}

/// nl80211 through one generic netlink socket.
public final class NL80211 {
    public let netlink: GenericNetlink
    public let family: UInt16
    public let groups: [String: UInt32]

    /// - Throws: when generic netlink is unavailable or the kernel has no nl80211 (no cfg80211).
    public init() throws(GenericNetlink.Failure) {
        netlink = try GenericNetlink()
        (family, groups) = try netlink.family(NL80211_GENL_NAME)
    }

    /// The Wi-Fi interfaces of this network namespace (a GET_INTERFACE dump), by name.
    public func interfaces() throws(GenericNetlink.Failure) -> [String] {
        try netlink.request(family: family, command: UInt8(NL80211_CMD_GET_INTERFACE.rawValue), dump: true, attributes: [])
            .compactMap { $0.string(UInt16(NL80211_ATTR_IFNAME.rawValue)) }.sorted()
    }

    /// Whether nl80211 knows interface index `index` (it is a wireless interface).
    public func isWireless(_ index: UInt32) -> Bool {
        (try? netlink.request(family: family, command: UInt8(NL80211_CMD_GET_INTERFACE.rawValue), dump: false,
                              attributes: [(UInt16(NL80211_ATTR_IFINDEX.rawValue), NetlinkCodec.le32(index))]).first) != nil
    }

    /// The link of interface `name` (its index from if_nametoindex): what the interface and its
    /// station say, and power save.
    public func link(_ name: String) throws(GenericNetlink.Failure) -> WiFiLink {
        let index = if_nametoindex(name)
        guard index > 0 else { throw GenericNetlink.Failure(what: "no interface \(name)", errno: ENODEV) }
        let ifAttr = [(UInt16(NL80211_ATTR_IFINDEX.rawValue), NetlinkCodec.le32(index))]
        var link = WiFiLink(interface: name)
        if let i = try netlink.request(family: family, command: UInt8(NL80211_CMD_GET_INTERFACE.rawValue), dump: false,
                                       attributes: ifAttr).first {
            link.ssid = i.string(UInt16(NL80211_ATTR_SSID.rawValue))
            link.frequencyMHz = i.u32(UInt16(NL80211_ATTR_WIPHY_FREQ.rawValue)).map(Int.init)
            link.widthMHz = i.u32(UInt16(NL80211_ATTR_CHANNEL_WIDTH.rawValue)).flatMap(Self.widthMHz)
        }
        // The station of a managed interface is its access point: the first one of the dump.
        if let station = try netlink.request(family: family, command: UInt8(NL80211_CMD_GET_STATION.rawValue), dump: true,
                                             attributes: ifAttr).first,
           let info = station.nested(UInt16(NL80211_ATTR_STA_INFO.rawValue)) {
            link.signalDBm = info.s8(UInt16(NL80211_STA_INFO_SIGNAL.rawValue)).map(Int.init)
            link.signalAverageDBm = info.s8(UInt16(NL80211_STA_INFO_SIGNAL_AVG.rawValue)).map(Int.init)
            link.txKbps = info.nested(UInt16(NL80211_STA_INFO_TX_BITRATE.rawValue)).flatMap(Self.kbps)
            link.rxKbps = info.nested(UInt16(NL80211_STA_INFO_RX_BITRATE.rawValue)).flatMap(Self.kbps)
            link.txRetries = info.u32(UInt16(NL80211_STA_INFO_TX_RETRIES.rawValue)).map(Int.init)
            link.txFailed = info.u32(UInt16(NL80211_STA_INFO_TX_FAILED.rawValue)).map(Int.init)
            link.expectedThroughputKbps = info.u32(UInt16(NL80211_STA_INFO_EXPECTED_THROUGHPUT.rawValue)).map(Int.init)
            link.beaconLoss = info.u32(UInt16(NL80211_STA_INFO_BEACON_LOSS.rawValue)).map(Int.init)
        }
        // A station's GET_INTERFACE names no SSID before Linux 6.3: the associated BSS's does.
        if link.ssid == nil { link.ssid = try? associatedSSID(index) }
        link.powerSave = try? powerSave(index)
        return link
    }

    /// The SSID of the BSS `index` is associated with, from the scan cache (a GET_SCAN dump; the
    /// kernel keeps the current BSS in it): its SSID element (element id 0) from the probe
    /// response's or the beacon's elements.
    public func associatedSSID(_ index: UInt32) throws(GenericNetlink.Failure) -> String? {
        let dump = try netlink.request(family: family, command: UInt8(NL80211_CMD_GET_SCAN.rawValue), dump: true,
                                       attributes: [(UInt16(NL80211_ATTR_IFINDEX.rawValue), NetlinkCodec.le32(index))])
        for entry in dump {
            guard let bss = entry.nested(UInt16(NL80211_ATTR_BSS.rawValue)),
                  bss.u32(UInt16(NL80211_BSS_STATUS.rawValue)) == NL80211_BSS_STATUS_ASSOCIATED.rawValue else { continue }
            for key in [NL80211_BSS_INFORMATION_ELEMENTS, NL80211_BSS_BEACON_IES] {
                if let elements = bss[UInt16(key.rawValue)], let ssid = WiFiElements.ssid(elements) { return ssid }
            }
        }
        return nil
    }

    /// Power save on `index` (GET_POWER_SAVE: NL80211_ATTR_PS_STATE).
    public func powerSave(_ index: UInt32) throws(GenericNetlink.Failure) -> Bool? {
        let r = try netlink.request(family: family, command: UInt8(NL80211_CMD_GET_POWER_SAVE.rawValue), dump: false,
                                    attributes: [(UInt16(NL80211_ATTR_IFINDEX.rawValue), NetlinkCodec.le32(index))])
        return r.first?.u32(UInt16(NL80211_ATTR_PS_STATE.rawValue)).map { $0 == NL80211_PS_ENABLED.rawValue }
    }

    /// Sets power save on `index` (SET_POWER_SAVE). - Throws: EPERM without CAP_NET_ADMIN.
    public func setPowerSave(_ index: UInt32, on: Bool) throws(GenericNetlink.Failure) {
        _ = try netlink.request(family: family, command: UInt8(NL80211_CMD_SET_POWER_SAVE.rawValue), dump: false,
                                attributes: [(UInt16(NL80211_ATTR_IFINDEX.rawValue), NetlinkCodec.le32(index)),
                                             (UInt16(NL80211_ATTR_PS_STATE.rawValue),
                                              NetlinkCodec.le32(on ? NL80211_PS_ENABLED.rawValue : NL80211_PS_DISABLED.rawValue))])
    }

    /// NL80211_RATE_INFO_BITRATE32 (else the 16-bit BITRATE), 100 kbit/s units → kbit/s.
    static func kbps(_ rate: NetlinkCodec.Attributes) -> Int? {
        if let r = rate.u32(UInt16(NL80211_RATE_INFO_BITRATE32.rawValue)) { return Int(r) * 100 }
        return rate.u16(UInt16(NL80211_RATE_INFO_BITRATE.rawValue)).map { Int($0) * 100 }
    }

    /// NL80211_CHAN_WIDTH_* → MHz (20_NOHT and 20 are 20).
    static func widthMHz(_ w: UInt32) -> Int? {
        switch w {
        case NL80211_CHAN_WIDTH_20_NOHT.rawValue, NL80211_CHAN_WIDTH_20.rawValue: 20
        case NL80211_CHAN_WIDTH_40.rawValue: 40
        case NL80211_CHAN_WIDTH_80.rawValue, NL80211_CHAN_WIDTH_80P80.rawValue: 80
        case NL80211_CHAN_WIDTH_160.rawValue: 160
        case NL80211_CHAN_WIDTH_5.rawValue: 5
        case NL80211_CHAN_WIDTH_10.rawValue: 10
        default: nil
        }
    }
}
