import ArgumentParser
import Display
import Foundation
import PunktfunkSession
import Input
import SelfCheckGather
import VideoDecode
import X11Display

/// `punktfunk-kiosk probe`: prints one JSON object describing what this box offers for streaming
/// — `"kms"`: every DRM card's connectors, modes, CRTCs and planes with formats and modifiers;
/// `"vaapi"`: the render nodes, VA drivers and HEVC profiles (`VAAPIProbe`); `"v4l2"`: the V4L2
/// stateless HEVC decoders the media controller lists, their decode modes, start codes, controls
/// and CAPTURE formats (`V4L2Probe`); `"cec"`: every
/// HDMI-CEC adapter (`/dev/cecN`), its driver, connector and physical address; `"hello"`: the
/// ClientHello this box would send and why each capability is or is not asked for (`HelloPlan`);
/// `"x11"`, when `DISPLAY` is set: the X server's extensions, CRTCs, window manager, gamescope
/// and the picture path (`X11Probe`)
/// — so a user can paste it into a bug report. Read-only; works beside a running compositor.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Print the display (KMS planes, formats, modifiers) and VA-API and V4L2 decode capabilities as JSON.")

    func run() throws {
        let kms = KMSProbe.describeAll()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let sync = ProfileConfig.load().decodeSync.flatMap(DecodeSyncSetting.init(rawValue:)) ?? .auto
        let vaapi = (try? encoder.encode(VAAPIProbe.report(decodeSync: sync))).map { String(decoding: $0, as: UTF8.self) }
            ?? "{\"error\":\"VA-API report could not be encoded\"}"
        let v4l2 = (try? encoder.encode(V4L2Probe.report())).map { String(decoding: $0, as: UTF8.self) }
            ?? "{\"error\":\"V4L2 report could not be encoded\"}"
        let cec = CECAdapterSummary.list().map(Self.json)
        let display = ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        let x11 = display.isEmpty ? "" : ",\"x11\":\(X11Probe.json(displayName: display))"
        print("{\"kms\":[\(kms.joined(separator: ","))],\"vaapi\":\(vaapi),\"v4l2\":\(v4l2),\"cec\":[\(cec.joined(separator: ","))],"
              + "\"hello\":\(HelloReport.plan(config: ProfileConfig.load()).json),\"wifi\":\(WiFiLink.probeJSON())\(x11)}")
    }

    /// One adapter as a JSON object (read without claiming anything).
    static func json(_ a: CECAdapterSummary) -> String {
        let quoted = JSON.string
        if let problem = a.problem { return "{\"path\":\(quoted(a.path)),\"error\":\(quoted(problem))}" }
        let pa = a.physicalAddress == 0xFFFF ? "null"
            : quoted("\(a.physicalAddress >> 12).\(a.physicalAddress >> 8 & 0xF).\(a.physicalAddress >> 4 & 0xF).\(a.physicalAddress & 0xF)")
        return "{\"path\":\(quoted(a.path)),\"driver\":\(quoted(a.driver)),\"name\":\(quoted(a.name)),"
            + "\"connector\":\(a.connector.map(quoted) ?? "null"),\"physical_address\":\(pa),\"logical_addresses\":\(a.logicalMask)}"
    }
}
