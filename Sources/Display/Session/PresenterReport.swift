import Foundation

extension Presenter {
    /// The start-up line on stderr: `{"drm":{"device":…,"driver":…,"connector":…,"crtc":…,
    /// "plane":…,"mode":"WxH@Hz","format":…,"signal":"HDR10 (BT2020_RGB)" or "SDR (why)",
    /// "scaling":"fit"|"native","picture":"WxH","place":"WxH+X+Y","scaler":"plane"|"cpu"|"none"|
    /// "1:1 (why)"[,"dmabuf":"imported (zero copy)" or "copied through the CPU (why)"],
    /// "thread":"SCHED_FIFO 10, timer slack 0 ns" or "SCHED_OTHER, … (why)"}}`
    /// (scripts and the VM harness read it).
    func reportStart(presentThread: PresentThreadScheduling) {
        let line = "{\"drm\":{\"device\":\(JSON.string(device.path)),\"driver\":\(JSON.string(device.driver)),"
            + "\"connector\":\(JSON.string(connector.name)),\"crtc\":\(crtc),\"plane\":\(plan?.plane ?? 0),"
            + "\"mode\":\(JSON.string(mode.name)),\"format\":\(JSON.string(formatName)),"
            + "\"signal\":\(JSON.string(outputSignal.description)),\"scaling\":\"\(scaling.rawValue)\""
            + (fitState.map { ",\"picture\":\"\($0.picture)\",\"place\":\"\($0.place)\",\"scaler\":\(JSON.string($0.route.description))" } ?? "")
            + (importRoute.map { ",\"dmabuf\":\(JSON.string($0))" } ?? "")
            + ",\"thread\":\(JSON.string(presentThread.description))}}\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

extension Presenter {
    /// Once the overlay is routed, one line on stderr: `{"overlay":"plane 40"}`, `"composited"` or
    /// `"none (reason)"` (the VM harness reads it), plus a sentence when it cannot be shown.
    func reportOverlay() {
        FileHandle.standardError.write(Data("{\"overlay\":\(JSON.string(overlayRouteName))}\n".utf8))
        if overlayOnGlass == nil, overlayRouteName.hasPrefix("none") {
            FileHandle.standardError.write(Data("punktfunk-kiosk: the stats overlay is not shown: \(overlayRouteName)\n".utf8))
        }
    }
}
