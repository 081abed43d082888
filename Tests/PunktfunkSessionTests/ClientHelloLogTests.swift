import Foundation
import PunktfunkTestHost
import PunktfunkWire
import Testing

/// pf-testhost's `{"client_hello":{…}}` line: what other checks assert on.
@Suite struct ClientHelloLogTests {
    @Test func lineCarriesWhatTheClientAskedFor() throws {
        var hello = ClientHello(mode: Mode(width: 1920, height: 1080, refreshHz: 60))
        hello.features = FeatureSet(videoCaps: [.tenBit, .hdr], clientCaps: [.audioRed], bits: [32])
        hello.audioChannels = 6
        hello.suites = [.chaCha20Poly1305, .aes128GCM]
        hello.name = "Living \"Room\""
        // data-plane.md §7.4: G, B, R, white (x, y u16), max/min mastering u32, MaxCLL, MaxFALL, LE
        hello.displayHDR = HDRMetadata(green: .init(x: 1, y: 2), blue: .init(x: 3, y: 4), red: .init(x: 5, y: 6),
                                       whitePoint: .init(x: 7, y: 8), maxMasteringLuminance: 0x0A09,
                                       minMasteringLuminance: 0x0C0B, maxCLL: 0x0D, maxFALL: 0x0E)
        let line = ClientHelloLog.json(hello)
        let top = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let o = try #require(top["client_hello"] as? [String: Any])
        #expect(o["video_caps"] as? Int == 0x03)
        #expect(o["client_caps"] as? Int == 0x04)
        #expect(o["native_features"] as? [Int] == [32])
        #expect(o["audio_channels"] as? Int == 6)
        #expect(o["suites"] as? [Int] == [1, 0])
        #expect(o["name"] as? String == "Living \"Room\"")
        #expect(o["display_hdr"] as? String
                == "0100020003000400050006000700080009" + "0a0000" + "0b0c0000" + "0d00" + "0e00")
        hello.displayHDR = nil
        hello.name = nil
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(ClientHelloLog.json(hello).utf8)) as? [String: Any])
        let p = try #require(plain["client_hello"] as? [String: Any])
        #expect(p["display_hdr"] is NSNull && p["name"] is NSNull)
    }
}
