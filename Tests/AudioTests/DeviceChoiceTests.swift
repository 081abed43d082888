import Testing
import Audio

@Suite struct DeviceChoiceTests {
    /// An EDID base block for manufacturer `pnp`, product `code`, monitor name `name`.
    static func edid(_ pnp: String, code: UInt16, name: String?) -> [UInt8] {
        var e = [UInt8](repeating: 0, count: 128)
        e[0..<8] = [0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0]
        let l = pnp.utf8.map { UInt16($0 - 64) }
        let id = l[0] << 10 | l[1] << 5 | l[2]
        e[8] = UInt8(id >> 8); e[9] = UInt8(id & 0xFF)
        e[10] = UInt8(code & 0xFF); e[11] = UInt8(code >> 8)
        // Descriptor 1 a detailed timing (non-zero clock), descriptor 2 the name.
        e[54] = 0x02; e[55] = 0x3A
        if let name {
            e[72] = 0; e[73] = 0; e[74] = 0; e[75] = 0xFC; e[76] = 0
            var text = Array(name.utf8.prefix(13))
            if text.count < 13 { text.append(0x0A) }
            while text.count < 13 { text.append(0x20) }
            e[77..<90] = ArraySlice(text)
        }
        return e
    }

    /// An ELD (version 2) repeating the EDID's fields, as the kernel's drm_edid_to_eld builds it.
    static func eld(from edid: [UInt8], name: String) -> [UInt8] {
        var d = [UInt8](repeating: 0, count: 20 + name.utf8.count + 3)
        d[0] = 2 << 3
        d[2] = UInt8((d.count - 4 + 3) / 4)
        d[4] = UInt8(name.utf8.count) | 3 << 5
        d[16] = edid[8]; d[17] = edid[9]; d[18] = edid[10]; d[19] = edid[11]
        d[20..<(20 + name.utf8.count)] = ArraySlice(name.utf8)
        return d
    }

    @Test func edidAndEldNameTheSameSink() throws {
        let e = Self.edid("SAM", code: 0x7123, name: "SAMSUNG")
        let fromEDID = try #require(DisplayIdentity(edid: e))
        #expect(fromEDID.manufacturerLetters == "SAM")
        #expect(fromEDID.productCode == 0x7123)
        #expect(fromEDID.monitorName == "SAMSUNG")
        let fromELD = try #require(DisplayIdentity(eld: Self.eld(from: e, name: "SAMSUNG")))
        #expect(fromELD == fromEDID)
        #expect(fromELD.matches(fromEDID))
    }

    @Test func badHeadersAndEmptyEldsAreNoSink() {
        #expect(DisplayIdentity(edid: [UInt8](repeating: 0, count: 128)) == nil)
        #expect(DisplayIdentity(edid: Array(Self.edid("SAM", code: 1, name: nil).prefix(100))) == nil)
        #expect(DisplayIdentity(eld: []) == nil)
        #expect(DisplayIdentity(eld: [UInt8](repeating: 0, count: 64)) == nil)  // version 0: no sink
    }

    @Test func differentProductsDoNotMatchAndAMissingNameDoesNotBlock() throws {
        let a = try #require(DisplayIdentity(edid: Self.edid("GSM", code: 0x5B09, name: "LG TV")))
        let b = try #require(DisplayIdentity(edid: Self.edid("GSM", code: 0x5B0A, name: "LG TV")))
        let unnamed = try #require(DisplayIdentity(edid: Self.edid("GSM", code: 0x5B09, name: nil)))
        #expect(!a.matches(b))
        #expect(a.matches(unnamed))
    }

    func output(_ device: Int, jack: Bool?, sink: DisplayIdentity?) -> AudioDeviceChoice.HDMIOutput {
        .init(card: 0, cardID: "PCH", device: device, jackPresent: jack, sink: sink)
    }

    @Test func theOutputWhoseEldNamesTheDisplayWins() throws {
        let tv = try #require(DisplayIdentity(edid: Self.edid("SAM", code: 0x7123, name: "SAMSUNG")))
        let monitor = try #require(DisplayIdentity(edid: Self.edid("DEL", code: 0xA0C4, name: "DELL U2720Q")))
        let outputs = [output(3, jack: true, sink: monitor), output(7, jack: true, sink: tv), output(8, jack: false, sink: nil)]
        let choice = AudioDeviceChoice.choose(explicit: nil, display: ("HDMI-A-2", tv), outputs: outputs)
        #expect(choice.device == "hw:CARD=PCH,DEV=7")
        #expect(choice.reason.contains("HDMI-A-2") && choice.reason.contains("SAM"))
    }

    @Test func anExplicitDeviceOverridesEverything() throws {
        let tv = try #require(DisplayIdentity(edid: Self.edid("SAM", code: 1, name: "TV")))
        let choice = AudioDeviceChoice.choose(explicit: "hw:Loopback,0", display: ("HDMI-A-1", tv),
                                              outputs: [output(3, jack: true, sink: tv)])
        #expect(choice == AudioDeviceChoice(device: "hw:Loopback,0", reason: "given with --audio-device"))
    }

    @Test func withoutAMatchTheOnlyConnectedOutputThenDefault() throws {
        let tv = try #require(DisplayIdentity(edid: Self.edid("SAM", code: 1, name: "TV")))
        let other = try #require(DisplayIdentity(edid: Self.edid("DEL", code: 2, name: "DELL")))
        // Headless, one sink plugged: that one.
        let one = AudioDeviceChoice.choose(explicit: nil, display: nil,
                                           outputs: [output(3, jack: false, sink: nil), output(7, jack: true, sink: other)])
        #expect(one.device == "hw:CARD=PCH,DEV=7")
        #expect(one.reason.contains("only HDMI/DP output"))
        // Two plugged, neither the display: default.
        let two = AudioDeviceChoice.choose(explicit: nil, display: ("HDMI-A-1", tv),
                                           outputs: [output(3, jack: true, sink: other), output(7, jack: true, sink: other)])
        #expect(two.device == "default")
        #expect(two.reason.contains("none matched"))
        // No HDMI at all (a USB DAC box, or a VM): default.
        let none = AudioDeviceChoice.choose(explicit: nil, display: ("Virtual-1", nil), outputs: [])
        #expect(none == AudioDeviceChoice(device: "default", reason: "no HDMI/DP outputs found"))
    }

    @Test func jackNamesPairWithPcmDevices() {
        let hda = ["HDMI/DP,pcm=3 Jack", "HDMI/DP,pcm=7 Jack", "HDMI/DP,pcm=8 Jack"]
        #expect(AlsaCardScan.jackName(forDevice: 7, jacks: hda, outputs: 3) == "HDMI/DP,pcm=7 Jack")
        #expect(AlsaCardScan.jackName(forDevice: 9, jacks: hda, outputs: 3) == nil)
        #expect(AlsaCardScan.jackName(forDevice: 0, jacks: ["HDMI Jack"], outputs: 1) == "HDMI Jack")
        #expect(AlsaCardScan.jackName(forDevice: 0, jacks: ["HDMI Jack", "DP Jack"], outputs: 2) == nil)
    }
}
