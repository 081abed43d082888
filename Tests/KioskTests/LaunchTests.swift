import Foundation
import PunktfunkSession
import PunktfunkWire
import Screen
import Shell
import Testing
@testable import Kiosk

/// Starting a title (ClientHello tag 8): which ids a hello may carry, the config's pinned titles
/// and boot target, the host page's entries, the launch travelling from a person's choice to the
/// stream request and its retries, and what each LaunchOutcome says.
@Suite struct LaunchTests {
    static let titles = [LaunchTitle(id: "steam:570", name: "Dota 2")!, LaunchTitle(id: "libretro:snes/Super Metroid (USA)", name: "Super Metroid")!]
    static let den = HostEntry(id: "den", name: "Den PC", address: "192.168.1.30", titles: titles)
    static let key = "192.168.1.30:9777"
    static let fp = String(repeating: "cd", count: 32)

    // MARK: ids

    /// Upstream's library-id vectors (the host's `valid_entry_id`): a store, a colon, a non-empty
    /// id. Under the hello's cap (control-plane.md §3.2 tag 8: UTF-8 ≤ 128 B) each case is judged
    /// as upstream judges it; over the cap every one is refused, whatever upstream's own limit.
    @Test func launchIDsFollowUpstreamsLibraryIDRuleUnderTheHellosCap() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/upstream/library-id-vectors.json")
        let top = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let cases = try #require(top["entry_ids"] as? [[String: Any]])
        #expect(cases.count == 12)
        var judged = 0, overCap = 0
        for c in cases {
            let prefix = try #require(c["value"] as? String)
            let id = prefix + String(repeating: (c["fill"] as? String) ?? "", count: (c["count"] as? Int) ?? 0)
            let valid = try #require(c["valid"] as? Bool)
            if id.utf8.count > ClientHello.launchMaxBytes {
                overCap += 1
                #expect(LaunchTitle.problem(id: id)?.contains("at most 128") == true, "\(id.utf8.count) bytes")
            } else {
                judged += 1
                #expect((LaunchTitle.problem(id: id) == nil) == valid, "\(id): \(LaunchTitle.problem(id: id) ?? "valid")")
            }
        }
        #expect(judged == 8 && overCap == 4)
        // The cap itself: 128 bytes go, 129 do not (a two-byte scalar straddling it counts whole).
        #expect(LaunchTitle.problem(id: "romm:" + String(repeating: "a", count: 123)) == nil)
        #expect(LaunchTitle.problem(id: "romm:" + String(repeating: "a", count: 124)) != nil)
        #expect(LaunchTitle.problem(id: "romm:" + String(repeating: "a", count: 121) + "é") == nil)
        #expect(LaunchTitle.problem(id: "romm:" + String(repeating: "a", count: 122) + "é") != nil)
        #expect(LaunchTitle.problem(id: "steam:570\n") != nil)
        // What the hello encodes is the id whole, and a host's decoder reads it back as sent.
        var hello = ClientSession.defaultHello
        let longest = "romm:" + String(repeating: "a", count: 123)
        hello.launch = longest
        #expect(try ClientHello(frame: ControlFrame.decode(hello.encoded)).launch == longest)
    }

    // MARK: config

    @Test func theConfigPinsTitlesAndABootTitlePerHostAndRoundTrips() {
        let text = """
            autoconnect = den
            host.den.name = Den PC
            host.den.launch = steam:570
            host.den.title = steam:570 | Dota 2
            host.den.title = libretro:snes/Super Metroid (USA) | Super Metroid
            host.den.title = epic:fortnite
            host.den.title = steam:570 | Dota 2 (again: replaces)
            host.den.title = Dota 2
            host.den.launch = \(String(repeating: "x", count: 120)):\(String(repeating: "y", count: 10))
            """
        let c = KioskConfig(text: text)
        let den = c.host("den")!
        #expect(den.launch == "steam:570")
        #expect(den.titles.map(\.id) == ["libretro:snes/Super Metroid (USA)", "epic:fortnite", "steam:570"])
        #expect(den.titles.map(\.name) == ["Super Metroid", "epic:fortnite", "Dota 2 (again: replaces)"])
        #expect(c.problems.map(\.line) == [8, 9], "\(c.problems)")
        #expect(c.problems[0].message.contains("names no store"))
        #expect(c.problems[1].message.contains("at most 128"))
        let again = KioskConfig(text: c.text)
        #expect(again.problems.isEmpty)
        #expect(again.host("den") == den)
        #expect(den.hostEntry.titles == den.titles)
    }

    // MARK: the host page and the stream request

    /// The shell over the one host `den`, pinned in the trust store.
    static func shell(policy: KioskPolicy = KioskPolicy(afterJob: .returnToHosts), initialAction: UserAction? = nil) -> ShellNavigationTests.Shell {
        var known = KnownHosts()
        try! known.trust(host: key, fingerprint: fp)
        return ShellNavigationTests.Shell(hosts: [den], known: known, policy: policy, initialAction: initialAction)
    }

    @Test func theHostPageOffersTheDesktopThenEachTitleAndATitleStartsItsStream() throws {
        var s = Self.shell()
        s.nav(.activate)
        #expect(s.page == .host(id: "den", focus: .connect))
        let view = try #require(ShellSceneBuilder.scene(for: s.machine.state, glyphs: .xbox))
        let buttons = view.elements.filter { if case .button = $0.kind { true } else { false } }.map(\.title)
        #expect(buttons == ["Desktop", "Dota 2", "Super Metroid", "Pair with PIN", "Request access", "Wake", "Speed test"],
                "seven rows show; the window follows the focus")
        s.nav(.move(.down))
        #expect(s.page == .host(id: "den", focus: .launch("steam:570")))
        #expect(s.nav(.activate) == [.resolve(job: 1, host: Self.den)])
        guard case .connecting(let c) = s.phase else { Issue.record("not connecting"); return }
        #expect(c.target == .host(Self.den, launch: "steam:570"))
        let connecting = try #require(ShellSceneBuilder.scene(for: s.machine.state, glyphs: .xbox))
        #expect(connecting.elements.contains { $0.title == "Connecting to Dota 2 on Den PC" })
        let effects = s.send(.resolved(job: 1, key: Self.key))
        guard case .startStream(1, .session(let host, let key, _, let launch))? = effects.first else {
            Issue.record("no stream: \(effects)"); return
        }
        #expect(host == Self.den && key == Self.key && launch == "steam:570")
        // The desktop asks for no title.
        _ = s.send(.stream(job: 1, .ended(.failed(sentence: "The host closed."))))
        s.nav(.move(.right), .activate)   // back to the host page, where the title still has the focus
        #expect(s.page == .host(id: "den", focus: .launch("steam:570")))
        s.nav(.move(.up), .activate)
        guard case .connecting(let d) = s.phase else { Issue.record("not connecting"); return }
        #expect(d.target == .host(Self.den, launch: nil))
    }

    @Test func aRetryAsksForTheSameTitleAndAnUnfitIDIsRefusedBeforeDialling() {
        var policy = KioskPolicy(afterJob: .returnToHosts)
        policy.retryFailedHostAfterNs = 5_000_000_000
        policy.bootHost = "den"
        var s = Self.shell(policy: policy, initialAction: .connect(hostID: "den", launch: "steam:570"))
        guard case .connecting(let c) = s.phase else { Issue.record("not connecting"); return }
        #expect(c.target == .host(Self.den, launch: "steam:570"))
        _ = s.send(.unresolvable(job: 1, sentence: "no route"))
        s.now += 5_000_000_000
        #expect(s.send(.timer) == [.resolve(job: 2, host: Self.den)])
        guard case .connecting(let again) = s.phase else { Issue.record("no retry"); return }
        #expect(again.target == .host(Self.den, launch: "steam:570"), "boot-to-stream's own retry starts the title again")
        _ = s.send(.user(.cancel))
        let long = "steam:" + String(repeating: "9", count: 123)
        #expect(s.send(.user(.connect(hostID: "den", launch: long))) == [], "nothing is dialled")
        guard case .error(let sentence, nil) = s.phase else { Issue.record("no error: \(s.phase)"); return }
        #expect(sentence.contains("129 bytes") && sentence.contains("at most 128"))
    }

    @Test func withoutTheLaunchGrantTheHostPageSaysSoBesideTheTitles() throws {
        var s = Self.shell()
        s.nav(.activate)
        func about() throws -> String {
            let view = try #require(ShellSceneBuilder.scene(for: s.machine.state, glyphs: .xbox))
            return view.elements.first { $0.title.hasPrefix(Self.den.address) }?.title ?? ""
        }
        #expect(try !about().contains("launch permission"))
        s.send(.launchGrant(hostID: "den", granted: false))
        #expect(try about().contains("no launch permission on Den PC"))
        s.send(.launchGrant(hostID: "den", granted: true))
        #expect(try !about().contains("launch permission"))
    }

    // MARK: outcomes

    /// Each kind of control-plane.md's LaunchOutcome (0 spawned … 5 sign-in-needed) is one
    /// sentence naming the title and the host, ending in the host's message when it sent one.
    @Test func everyOutcomeIsOneSentenceThatCarriesTheHostsMessage() {
        for kind in LaunchOutcomeKind.allCases {
            let plain = LaunchNews.sentence(LaunchOutcome(kind: kind, message: ""), title: "Dota 2", host: "Den PC")
            #expect(plain.contains("Dota 2") && plain.contains("Den PC") && plain.hasSuffix("."), "\(kind): \(plain)")
            #expect(plain.filter { $0 == "." }.count == 1, "one sentence: \(plain)")
            let told = LaunchNews.sentence(LaunchOutcome(kind: kind, message: "Steam is updating\u{7}"), title: "Dota 2", host: "Den PC")
            #expect(told == plain.dropLast() + ": Steam is updating.", "the message, cleaned of control characters")
        }
        #expect(LaunchNews.sentence(LaunchOutcome(kind: .failed, message: "Not installed!"), title: "Dota 2", host: "Den PC")
                == "Dota 2 did not start on Den PC: Not installed!")
    }

    @Test func theLaunchRefusalSentenceNamesThePermission() {
        let e = HandshakeError.closedByPeer(code: .launchNotPermitted, reason: "")
        #expect(e.description.contains("launch permission"))
        #expect(e.closeCode == CloseCode(code: 0x6A))
    }
}
