internal import CDRM

/// What `punktfunk-kiosk probe` reports about one DRM card: driver, capabilities, connectors with
/// modes, CRTCs and every plane with its formats and modifiers — as a JSON object, so users can
/// paste it into a bug report. Read-only: no master needed, nothing is committed.
public enum KMSProbe {
    /// One JSON object per `/dev/dri/card*` node (an `"error"` member when it cannot be opened).
    public static func describeAll() -> [String] {
        DRMDevice.cardNodes().map(describe(path:))
    }

    public static func describe(path: String) -> String {
        let device: DRMDevice
        do { device = try DRMDevice(path: path, master: false) } catch {
            return "{\"device\":\(JSON.string(path)),\"error\":\(JSON.string("\(error)"))}"
        }
        var caps: [String] = []
        for (name, cap) in [("dumb_buffer", DRM_CAP_DUMB_BUFFER), ("prime", DRM_CAP_PRIME),
                            ("timestamp_monotonic", DRM_CAP_TIMESTAMP_MONOTONIC),
                            ("async_page_flip", DRM_CAP_ASYNC_PAGE_FLIP),
                            ("addfb2_modifiers", DRM_CAP_ADDFB2_MODIFIERS)] {
            if let v = device.capability(UInt64(cap)) { caps.append("\(JSON.string(name)):\(v)") }
        }
        let connectors = device.connectors.compactMap { device.connector($0) }.map { c -> String in
            let props = device.connectorProperties(c.id)
            let modes = c.modes.map { m in
                "{\"mode\":\(JSON.string(m.name)),\"refresh_mhz\":\(m.refreshMilliHz),\"preferred\":\(m.preferred)}"
            }
            let hdr = props["HDR_OUTPUT_METADATA"] != nil, cs = props["Colorspace"] != nil
            let sink = device.hdrCapability(connector: c.id)
            return "{\"id\":\(c.id),\"name\":\(JSON.string(c.name)),\"connected\":\(c.connected),"
                + "\"possible_crtcs\":\(c.possibleCRTCs),\"crtc\":\(c.currentCRTC),"
                + "\"hdr_output_metadata\":\(hdr),\"colorspace\":\(cs),"
                + "\"hdr\":\(SinkHDRCapability.json(sink.capability, edid: sink.edid)),\"modes\":[\(modes.joined(separator: ","))]}"
        }
        let planes = device.planes.compactMap { device.plane($0) }.map { p -> String in
            let formats = p.formats.keys.sorted { $0.rawValue < $1.rawValue }.map { f in
                let mods = p.formats[f, default: []].map { JSON.string("0x" + String($0, radix: 16)) }
                return "{\"format\":\(JSON.string("\(f)")),\"modifiers\":[\(mods.joined(separator: ","))]}"
            }
            var zpos = "null"
            if let z = p.zpos { zpos = "{\"value\":\(z.value),\"min\":\(z.min),\"max\":\(z.max),\"immutable\":\(z.immutable)}" }
            return "{\"id\":\(p.id),\"type\":\(JSON.string(p.kind.rawValue)),\"possible_crtcs\":\(p.possibleCRTCs),"
                + "\"zpos\":\(zpos),\"color_encodings\":[\(p.colorEncodings.map(JSON.string).joined(separator: ","))],"
                + "\"color_ranges\":[\(p.colorRanges.map(JSON.string).joined(separator: ","))],"
                + "\"formats\":[\(formats.joined(separator: ","))]}"
        }
        return "{\"device\":\(JSON.string(path)),\"driver\":\(JSON.string(device.driver)),"
            + "\"caps\":{\(caps.joined(separator: ","))},\"crtcs\":[\(device.crtcs.map(String.init).joined(separator: ","))],"
            + "\"connectors\":[\(connectors.joined(separator: ","))],\"planes\":[\(planes.joined(separator: ","))]}"
    }
}
