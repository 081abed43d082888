import Screen

/// The sink the kiosk would stream to, read without taking the screen (for `probe` and `check`
/// beside a running compositor).
extension KMSProbe {
    /// The HDR capability of the first connected connector of `card` (default: the first card
    /// with one, as the kiosk picks), with the card and connector it read; `.none` with the reason
    /// when there is no such connector.
    public static func sinkHDR(card: String? = nil) -> (capability: ScreenHDRCapability, card: String?, connector: String?) {
        for path in card.map({ [$0] }) ?? DRMDevice.cardNodes() {
            guard let device = try? DRMDevice(path: path, master: false) else { continue }
            for id in device.connectors {
                guard let c = device.connector(id), c.connected else { continue }
                return (device.hdrCapability(connector: id).capability, path, c.name)
            }
        }
        return (.none(reason: "no DRM connector has a display connected"), nil, nil)
    }
}

extension KMSProbe {
    /// Whether the kiosk would draw the host's pointer on `card` (default: the first card with a
    /// connected connector): a cursor plane that scans out AR24 on the CRTC it would drive (the one
    /// driving the connector now, else the first possible), as `Presenter` chooses.
    public static func sinkPointer(card: String? = nil) -> (draws: Bool, why: String) {
        for path in card.map({ [$0] }) ?? DRMDevice.cardNodes() {
            guard let device = try? DRMDevice(path: path, master: false) else { continue }
            for id in device.connectors {
                guard let c = device.connector(id), c.connected, !c.modes.isEmpty else { continue }
                guard let index = Presenter.crtcIndex(for: c, crtcs: device.crtcs) else { return (false, "\(c.name) has no CRTC") }
                guard let cursor = CursorLayer.plane(in: device.planes.lazy.compactMap { device.plane($0) }, crtcIndex: index) else { return (false, "\(c.name)'s CRTC has no cursor plane that scans out AR24") }
                return (true, "\(c.name)'s CRTC has cursor plane \(cursor.id)")
            }
        }
        return (false, "no DRM connector has a display connected")
    }
}
