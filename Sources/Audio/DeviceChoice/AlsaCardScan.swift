internal import CALSA

/// Finds the HDMI/DP outputs of every sound card through the ALSA control API: each `ELD`
/// control (interface PCM, its device = the PCM device number) is one output; its jack is the
/// card control `HDMI/DP,pcm=N Jack` (HDA), or the card's only `HDMI… Jack` when it has one
/// output (vc4, many SoC drivers). Control-plane speed; runs once at stream start.
public enum AlsaCardScan {
    /// - Returns: the outputs found; cards whose control device cannot be opened are skipped.
    public static func hdmiOutputs() -> [AudioDeviceChoice.HDMIOutput] {
        pf_alsa_quiet()
        var outputs: [AudioDeviceChoice.HDMIOutput] = []
        var card: Int32 = -1
        while snd_card_next(&card) == 0 && card >= 0 {
            var ctl: OpaquePointer?
            guard snd_ctl_open(&ctl, "hw:\(card)", 0) >= 0, let ctl else { continue }
            defer { snd_ctl_close(ctl) }
            let id = cardID(ctl) ?? "\(card)"
            let elements = list(ctl)
            let elds = elements.filter { $0.iface == Int32(SND_CTL_ELEM_IFACE_PCM.rawValue) && $0.name == "ELD" }
            let jacks = elements.filter { $0.iface == Int32(SND_CTL_ELEM_IFACE_CARD.rawValue) && $0.name.hasSuffix(" Jack")
                && ($0.name.hasPrefix("HDMI") || $0.name.hasPrefix("DP")) }
            for eld in elds {
                let name = jackName(forDevice: eld.device, jacks: jacks.map(\.name), outputs: elds.count)
                let present = name.flatMap { n -> Bool? in
                    let v = pf_alsa_ctl_boolean(ctl, SND_CTL_ELEM_IFACE_CARD, n)
                    return v < 0 ? nil : v == 1
                }
                var bytes = [UInt8](repeating: 0, count: 256)
                let n = pf_alsa_ctl_bytes(ctl, SND_CTL_ELEM_IFACE_PCM, eld.device, "ELD", &bytes, UInt32(bytes.count))
                let sink = n > 0 ? DisplayIdentity(eld: Array(bytes.prefix(Int(n)))) : nil
                outputs.append(.init(card: Int(card), cardID: id, device: Int(eld.device), jackPresent: present, sink: sink))
            }
        }
        return outputs
    }

    /// The jack control of PCM device `device`: `…pcm=N Jack` when names carry it, else the only
    /// jack of a one-output card. Pure.
    public static func jackName(forDevice device: UInt32, jacks: [String], outputs: Int) -> String? {
        if let named = jacks.first(where: { $0.hasSuffix("pcm=\(device) Jack") }) { return named }
        if outputs == 1, jacks.count == 1, !jacks[0].contains("pcm=") { return jacks[0] }
        return nil
    }

    private struct Element { var name: String; var iface: Int32; var device: UInt32 }

    private static func list(_ ctl: OpaquePointer) -> [Element] {
        let max = 1024
        var names = [CChar](repeating: 0, count: 64 * 1024)
        var ifaces = [Int32](repeating: 0, count: max)
        var devices = [UInt32](repeating: 0, count: max)
        let n = pf_alsa_ctl_list(ctl, &names, UInt32(names.count), &ifaces, &devices, UInt32(max))
        guard n > 0 else { return [] }
        var out: [Element] = []
        var offset = 0
        for i in 0..<Int(n) {
            let name = names.withUnsafeBufferPointer { String(cString: $0.baseAddress! + offset) }
            offset += name.utf8.count + 1
            out.append(Element(name: name, iface: ifaces[i], device: devices[i]))
        }
        return out
    }

    private static func cardID(_ ctl: OpaquePointer) -> String? {
        var info: OpaquePointer?
        guard snd_ctl_card_info_malloc(&info) >= 0, let info else { return nil }
        defer { snd_ctl_card_info_free(info) }
        guard snd_ctl_card_info(ctl, info) >= 0, let id = snd_ctl_card_info_get_id(info) else { return nil }
        return String(cString: id)
    }
}
