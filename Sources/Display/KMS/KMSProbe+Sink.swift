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
