import Foundation
import Testing
@testable import PunktfunkWire

/// Close codes (§3.5), the FeatureSet (§3.6) and access grants (§3.8, upstream
/// `crates/core/punktfunk-core/testdata/grant-vectors.json` @38d3248, copied to
/// `Tests/Fixtures/upstream/grant-vectors.json`).
@Suite struct ControlTypesTests {
    // MARK: CloseCode

    @Test func everyKnownCloseCodeHasASentenceAndRoundTrips() {
        let known = CloseCode.allKnown
        #expect(known.count == 24)
        #expect(Set(known.map(\.code)).count == known.count)
        for c in known {
            #expect(!c.explanation.isEmpty && c.explanation.hasSuffix("."), "\(c)")
            #expect(CloseCode(code: c.code) == c)
        }
        #expect(known.map(\.code) == [0x00, 0x01, 0x42, 0x51, 0x52] + Array(0x60...0x72))
    }

    @Test func closeCodeTokensAndUnknowns() {
        #expect(CloseCode(code: 0x42) == .busy && CloseCode.busy.token == "busy")
        #expect(CloseCode.busy.explanation == "The host is busy with another session.")
        #expect(CloseCode(code: 0x67).token == "wire-version")
        #expect(CloseCode(code: 0x72) == .accessGranted)
        let odd = CloseCode(code: 0x99)
        #expect(odd == .unknown(0x99) && odd.code == 0x99 && odd.token == nil)
        #expect(odd.explanation.contains("0x99"))
    }

    // MARK: FeatureSet

    @Test func featureSetEncodingDropsTrailingZeros() {
        #expect(FeatureSet.empty.encoded == [])
        #expect(FeatureSet(videoCaps: [.tenBit, .hdr]).encoded == [0x03])
        let far = FeatureSet(bits: [127, 40])
        #expect(FeatureSet(decoding: far.encoded) == far && far.encoded.count == 16)
        #expect(FeatureSet(decoding: far.encoded + [UInt8](repeating: 0xFF, count: 8)) == far)
        #expect(!far.inserting(500).contains(500) && !far.contains(-1))
    }

    @Test func featureSetKeepsV1BytesInPlace() {
        var s = FeatureSet(videoCaps: [.multiSlice, .tenBit], clientCaps: .ext,
                           hostCaps: .audioHiRes, hostCaps2: .inputEdges, bits: [FeatureBit.profiles])
        #expect(s.encoded == [0x81, 0x40, 0x80, 0x40, 0x04])
        #expect(s.contains(7) && s.contains(14) && s.contains(23) && s.contains(30) && s.contains(34))
        #expect(s.native == FeatureSet(bits: [34]))
        s.clientCaps = []
        s.remove(34)
        #expect(s.encoded == [0x81, 0x00, 0x80, 0x40])
        let a = FeatureSet(bits: [1, 33]), b = FeatureSet(bits: [33, 2, 100])
        #expect(a.intersection(b) == FeatureSet(bits: [33]) && a.union(b) == FeatureSet(bits: [1, 2, 33, 100]))
    }

    @Test func featureSetRoundTripsRandomly() {
        var r = SplitMix64(seed: 0xFEA7)
        for _ in 0..<200 {
            let s = r.features()
            #expect(FeatureSet(decoding: s.encoded) == s)
            #expect(s.encoded.last != 0)
        }
    }

    // MARK: AccessGrants

    struct GrantVectors: Decodable {
        struct Case: Decodable {
            let mask: UInt32
            let normalized: UInt32
            let level: String
        }
        let bits: [String: UInt32]
        let all: UInt32
        let all_pre_power: UInt32
        let all_pre_manage: UInt32
        let masks: [Case]
    }

    static func grantVectors() throws -> GrantVectors {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/upstream/grant-vectors.json")
        return try JSONDecoder().decode(GrantVectors.self, from: Data(contentsOf: url))
    }

    @Test func grantBitsMatchTheVectors() throws {
        let v = try Self.grantVectors()
        let named: [String: AccessGrants] = [
            "GAMEPAD": .gamepad, "POINTER": .pointer, "KEYBOARD": .keyboard, "CLIPBOARD": .clipboard,
            "MIC": .mic, "LAUNCH": .launch, "POWER": .power, "MANAGE_GAMES": .manageGames,
        ]
        #expect(Set(v.bits.keys) == Set(named.keys))
        for (name, bit) in v.bits { #expect(named[name]?.rawValue == bit, "\(name)") }
        #expect(AccessGrants.all.rawValue == v.all)
        #expect(AccessGrants.legacyAllMasks == [v.all_pre_power, v.all_pre_manage])
    }

    @Test func grantMasksNormaliseAndReadAsTheVectorLevels() throws {
        let v = try Self.grantVectors()
        #expect(!v.masks.isEmpty)
        for c in v.masks {
            let g = AccessGrants(rawValue: c.mask)
            #expect(g.normalized.rawValue == c.normalized, "mask \(c.mask)")
            #expect(g.level.rawValue == c.level, "mask \(c.mask)")
        }
    }

    // MARK: Enums

    @Test func wireEnumsHoldTheSpecValues() {
        #expect(GamepadKind.allCases.map(\.rawValue) == Array(0...18))
        #expect(Compositor.allCases.map(\.rawValue) == Array(0...6))
        #expect(BitrateChangeReason.allCases.map(\.rawValue) == Array(0...4))
        #expect(LaunchOutcomeKind.allCases.map(\.rawValue) == Array(0...5))
        #expect([VideoCodecs.h264, .hevc, .av1, .pyroWave].map(\.rawValue) == [1, 2, 4, 8])
        #expect(VideoCodecs().effectiveClientMask == .hevc)
        #expect(MediaSuite.allCases.map(\.rawValue) == [0, 1])
    }

    @Test func sanitisedLabelsAreTrimmedPlainAndBounded() {
        #expect("  deck\n".pfSanitisedLabel(maxBytes: 96) == "deck")
        #expect("a\u{7}b".pfSanitisedLabel(maxBytes: 96) == "ab")
        #expect(String(repeating: "🎮", count: 30).pfSanitisedLabel(maxBytes: 96).utf8.count == 96)
        #expect("漢字".pfTruncated(toUTF8: 4) == "漢")
        #expect(SessionPreset(id: "  p 1\u{1}é ", name: " Couch\n") == SessionPreset(id: "p1", name: "Couch"))
        #expect(SessionPreset(id: "   ", name: "x") == nil)
    }
}
