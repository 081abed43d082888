internal import CALSA

/// How many channels (2, 6 or 8) the sound device can play, and why — what the hello asks the
/// host for (ClientHello tag 10, control-plane.md §3.2). Control-plane speed: opens the PCM and
/// its card's control device once, plays nothing.
///
/// Order of evidence:
/// 1. An HDMI/DP PCM with a non-empty ELD: the sink's speaker allocation and its LPCM short audio
///    descriptors decide (`fromELD`) — a stereo TV on an 8-channel HDMI codec says 2. The ELD
///    wins over the codec's channel range, bounded by it.
/// 2. An HDMI/DP PCM whose ELD is empty (nothing, or nothing with audio, connected): 2.
/// 3. Otherwise the hardware's channel range (`snd_pcm_hw_params_test_channels` 8, then 6, on
///    the card's own `hw:` PCM under any plugin), read without playing.
/// 4. A PCM on no card (a sound server's `pulse`/`pipewire`, whose speakers ALSA cannot see): 2.
public enum AudioChannelCapability {
    /// - Parameter device: the `snd_pcm_open` name the session will play to
    ///   (`AudioDeviceChoice.device`).
    public static func probe(device: String) -> (channels: UInt8, reason: String) {
        pf_alsa_quiet()
        var pcm: OpaquePointer?
        let rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard rc >= 0, let pcm else {
            return (2, "\(device) cannot be opened (\(String(cString: snd_strerror(rc)))): stereo")
        }
        var card: Int32 = -1, number: UInt32 = 0
        var info: OpaquePointer?
        if snd_pcm_info_malloc(&info) >= 0, let info {
            if snd_pcm_info(pcm, info) >= 0 {
                card = snd_pcm_info_get_card(info)
                number = snd_pcm_info_get_device(info)
            }
            snd_pcm_info_free(info)
        }
        let isHW = snd_pcm_type(pcm) == SND_PCM_TYPE_HW
        var range = isHW ? hwChannels(pcm) : nil
        snd_pcm_close(pcm)
        guard card >= 0 else {
            return (2, "\(device) is on no sound card (a sound server or plugin; its speakers are unknown): stereo")
        }
        let hwName = "hw:\(card),\(number)"
        if range == nil {
            var hw: OpaquePointer?
            if snd_pcm_open(&hw, hwName, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) >= 0, let hw {
                range = hwChannels(hw)
                snd_pcm_close(hw)
            }
        }
        let hwMax = range ?? 2
        let hwWhy = range == nil ? "\(hwName) could not be probed: stereo"
            : hwMax == 2 ? "\(hwName) takes neither 6 nor 8 channels" : "\(hwName) takes \(hwMax) channels"
        switch readELD(card: card, device: number) {
        case .none:
            return (hwMax, hwWhy)
        case .some(let eld) where eld.allSatisfy({ $0 == 0 }):
            return (2, "the HDMI/DP output \(hwName) has an empty ELD (no sink with audio): stereo")
        case .some(let eld):
            guard let fromSink = fromELD(eld) else { return (2, "the ELD of \(hwName) is not ELD version 2: stereo") }
            let channels = min(fromSink.channels, hwMax)
            return (channels, fromSink.reason + (channels < fromSink.channels ? "; \(hwWhy)" : ""))
        }
    }

    /// The channel count the wire can carry (2, 6, 8) for a sink's ELD, and why; nil when it is
    /// not an ELD of version 2.
    ///
    /// ELD layout (CEA-861-D ELD as the HDA specification's ELD memory and the kernel's
    /// `snd_hdmi_parse_eld` read it): byte 0 bits 7..3 version (2); byte 4 bits 4..0 the monitor
    /// name length MNL; byte 5 bits 7..4 the count of 3-byte short audio descriptors (SADs),
    /// which start at byte 20 + MNL; byte 7 the speaker allocation: bit 0 FL/FR, 1 LFE, 2 FC,
    /// 3 RL/RR, 4 RC, 5 FLC/FRC, 6 RLC/RRC (CEA-861 speaker allocation data block, byte 1).
    /// A SAD's byte 0: bits 6..3 the audio format code (1 = LPCM), bits 2..0 channels − 1.
    ///
    /// Decision: 5.1 needs FL/FR, LFE, FC and RL/RR (CEA-861 channel allocation 0x0B); 7.1 also
    /// a third pair, RLC/RRC or FLC/FRC (allocations 0x13 / 0x1F); and the sink must take that
    /// many channels of LPCM (a soundbar with a 5.1 allocation but 2-channel LPCM — surround only
    /// as AC-3 — says 2). No LPCM SAD: 2 (basic audio, which every HDMI sink with audio takes).
    public static func fromELD(_ eld: [UInt8]) -> (channels: UInt8, reason: String)? {
        guard eld.count >= 20, eld[0] >> 3 == 2 else { return nil }
        let mnl = Int(eld[4] & 0x1F)
        let sadCount = Int(eld[5] >> 4)
        let allocation = eld[7]
        var lpcm = 2
        var index = 20 + mnl
        for _ in 0..<sadCount where index + 3 <= eld.count {
            if (eld[index] >> 3) & 0x0F == 1 { lpcm = max(lpcm, Int(eld[index] & 0x07) + 1) }
            index += 3
        }
        let has51 = allocation & 0x0F == 0x0F
        let has71 = has51 && allocation & 0x60 != 0
        let speakers = speakerNames(allocation)
        let layout = has71 ? 8 : has51 ? 6 : 2
        let channels = layout == 8 && lpcm >= 8 ? 8 : layout >= 6 && lpcm >= 6 ? 6 : 2
        var why = "the sink's ELD lists speakers \(speakers.isEmpty ? "none" : speakers.joined(separator: " ")) and \(lpcm)-channel LPCM"
        if channels < layout { why += " (its \(layout)-channel layout only in other codecs)" }
        return (UInt8(channels), why)
    }

    /// The CEA speaker allocation bits, by name.
    static func speakerNames(_ allocation: UInt8) -> [String] {
        let names = ["FL/FR", "LFE", "FC", "RL/RR", "RC", "FLC/FRC", "RLC/RRC"]
        return names.indices.filter { allocation & (1 << $0) != 0 }.map { names[$0] }
    }

    /// 8 or 6 when the hardware takes that many channels, else 2.
    private static func hwChannels(_ pcm: OpaquePointer) -> UInt8? {
        var hw: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hw) >= 0, let hw else { return nil }
        defer { snd_pcm_hw_params_free(hw) }
        guard snd_pcm_hw_params_any(pcm, hw) >= 0 else { return nil }
        if snd_pcm_hw_params_test_channels(pcm, hw, 8) == 0 { return 8 }
        if snd_pcm_hw_params_test_channels(pcm, hw, 6) == 0 { return 6 }
        return 2
    }

    /// The `ELD` control of PCM `device` on `card`: its bytes, or nil when the card has none.
    private static func readELD(card: Int32, device: UInt32) -> [UInt8]? {
        var ctl: OpaquePointer?
        guard snd_ctl_open(&ctl, "hw:\(card)", 0) >= 0, let ctl else { return nil }
        defer { snd_ctl_close(ctl) }
        var bytes = [UInt8](repeating: 0, count: 256)
        let n = pf_alsa_ctl_bytes(ctl, SND_CTL_ELEM_IFACE_PCM, device, "ELD", &bytes, UInt32(bytes.count))
        return n < 0 ? nil : Array(bytes.prefix(Int(n)))
    }
}
