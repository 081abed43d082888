import Testing
import Audio

/// `AudioChannelCapability.fromELD` on ELDs built byte by byte from the layout the HDA
/// specification's ELD memory structure defines (and the kernel's `snd_hdmi_parse_eld` reads):
/// byte 0 bits 7..3 ELD_Ver (2 = CEA-861-D), byte 2 the baseline length in dwords, byte 4 bits 4..0
/// MNL and 7..5 CEA_EDID_Ver, byte 5 bits 7..4 SAD_Count, byte 7 the speaker allocation
/// (CEA-861 Speaker Allocation Data Block byte 1: bit 0 FL/FR, 1 LFE, 2 FC, 3 RL/RR, 4 RC,
/// 5 FLC/FRC, 6 RLC/RRC), bytes 16–19 manufacturer and product, the monitor name from byte 20,
/// then 3-byte CEA Short Audio Descriptors (byte 0: bits 6..3 format code, 1 = LPCM, 2 = AC-3;
/// bits 2..0 max channels − 1; byte 1 sample rates; byte 2 LPCM sizes).
@Suite struct ChannelCapabilityTests {
    /// An ELD with `allocation` and the SADs given as (format code, channels).
    static func eld(allocation: UInt8, sads: [(format: UInt8, channels: UInt8)], name: String = "AVR") -> [UInt8] {
        let mnl = name.utf8.count
        var d = [UInt8](repeating: 0, count: 20 + mnl + 3 * sads.count)
        d[0] = 2 << 3
        d[2] = UInt8((d.count - 4 + 3) / 4)
        d[4] = UInt8(mnl) | 3 << 5                     // CEA-861-B/C/D
        d[5] = UInt8(sads.count) << 4 | 0 << 2          // HDMI connection
        d[7] = allocation
        d[16] = 0x4C; d[17] = 0x2D                      // "SAM"
        d[18] = 0x34; d[19] = 0x12
        d[20..<(20 + mnl)] = ArraySlice(Array(name.utf8))
        for (i, s) in sads.enumerated() {
            let at = 20 + mnl + 3 * i
            d[at] = s.format << 3 | (s.channels - 1)
            d[at + 1] = 0x07                            // 32, 44.1, 48 kHz
            d[at + 2] = s.format == 1 ? 0x07 : 0x50     // LPCM 16/20/24-bit; AC-3 max bitrate/8 kHz
        }
        return d
    }

    @Test func aStereoTVSaysTwo() throws {
        let r = try #require(AudioChannelCapability.fromELD(Self.eld(allocation: 0x01, sads: [(1, 2)], name: "TV")))
        #expect(r.channels == 2)
        #expect(r.reason.contains("FL/FR"))
    }

    @Test func aFivePointOneReceiverSaysSix() throws {
        // FL/FR + LFE + FC + RL/RR = CEA-861 channel allocation 0x0B; LPCM up to 6 channels.
        let r = try #require(AudioChannelCapability.fromELD(Self.eld(allocation: 0x0F, sads: [(1, 6)])))
        #expect(r.channels == 6, "\(r.reason)")
    }

    @Test func aSevenPointOneReceiverSaysEight() throws {
        // + RLC/RRC (allocation 0x13) or FLC/FRC (0x1F); LPCM 8 channels.
        #expect(AudioChannelCapability.fromELD(Self.eld(allocation: 0x4F, sads: [(1, 2), (1, 8)]))?.channels == 8)
        #expect(AudioChannelCapability.fromELD(Self.eld(allocation: 0x2F, sads: [(1, 8)]))?.channels == 8)
    }

    @Test func surroundOnlyInAC3IsStereoForLPCM() throws {
        // A soundbar: 5.1 speakers, but LPCM only 2 channels; 6 channels only as AC-3.
        let r = try #require(AudioChannelCapability.fromELD(Self.eld(allocation: 0x0F, sads: [(1, 2), (2, 6)])))
        #expect(r.channels == 2)
        #expect(r.reason.contains("other codecs"))
    }

    @Test func sevenPointOneSpeakersWithSixChannelLPCMSaySix() {
        #expect(AudioChannelCapability.fromELD(Self.eld(allocation: 0x4F, sads: [(1, 6)]))?.channels == 6)
    }

    @Test func eightChannelLPCMWithoutTheSurroundSpeakersSaysTwo() {
        // FL/FR, LFE, FC (2.1 + centre): no rear pair, no 5.1 layout to place RL/RR on.
        #expect(AudioChannelCapability.fromELD(Self.eld(allocation: 0x07, sads: [(1, 8)]))?.channels == 2)
        // A rear centre is not a rear pair either.
        #expect(AudioChannelCapability.fromELD(Self.eld(allocation: 0x17, sads: [(1, 8)]))?.channels == 2)
    }

    @Test func noLPCMDescriptorMeansBasicAudio() {
        #expect(AudioChannelCapability.fromELD(Self.eld(allocation: 0x0F, sads: []))?.channels == 2)
    }

    @Test func notAVersionTwoELDIsNoAnswer() {
        var e = Self.eld(allocation: 0x0F, sads: [(1, 6)])
        e[0] = 31 << 3  // ELD_VER_PARTIAL
        #expect(AudioChannelCapability.fromELD(e) == nil)
        #expect(AudioChannelCapability.fromELD([]) == nil)
    }

    /// A device that does not exist: stereo, and the reason names it.
    @Test func anUnopenableDeviceIsStereo() {
        let r = AudioChannelCapability.probe(device: "hw:CARD=NoSuchCard,DEV=0")
        #expect(r.channels == 2)
        #expect(r.reason.contains("NoSuchCard"))
    }
}
