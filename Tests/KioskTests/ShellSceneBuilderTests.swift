import Testing
import PunktfunkSession
import Kiosk
import Shell

/// What the shell shows for a state, and that it draws: every page a pad can reach has a scene
/// with one focused element (or none where nothing is focusable), the hint bar last, and the
/// texts a person needs (the host's name, the PIN prompt, the error sentence).
@Suite struct ShellSceneBuilderTests {
    static let living = HostEntry(id: "living-room", name: "Living room", address: "192.168.1.20")
    static let office = HostEntry(id: "office", name: "Office", address: "office.lan:9800")

    static func machine(known: KnownHosts = KnownHosts(), hosts: [HostEntry] = [living, office],
                        power: PowerAbility = PowerAbility(canPowerOff: true, canRestart: true, sentence: nil)) -> KioskMachine {
        var m = KioskMachine(policy: KioskPolicy(afterJob: .returnToHosts), hosts: hosts)
        _ = m.handle(.started(StartReport(display: .glass(name: "HDMI-A-1 1920x1080@60"), knownHosts: known)), now: 1)
        _ = m.handle(.boxChecked(BoxFacts(power: power, decoders: "software (VA-API: no render node decodes HEVC)")), now: 1)
        return m
    }

    static func focused(_ scene: ShellScene) -> [SceneElement] { scene.elements.filter(\.focused) }

    @Test func homeShowsAFocusedCardPerHostWithItsPairingStatus() throws {
        var known = KnownHosts()
        try known.trust(host: "192.168.1.20:9777", fingerprint: String(repeating: "ab", count: 32))
        var m = Self.machine(known: known)
        let scene = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
        let cards = scene.elements.filter { if case .card = $0.kind { true } else { false } }
        #expect(cards.map(\.title) == ["Living room", "Office"])
        #expect(cards.map(\.kind) == [.card(.paired), .card(.needsPairing)])
        #expect(Self.focused(scene).map(\.title) == ["Living room"])
        #expect(scene.elements.last?.kind == .hints([Hint(.confirm, "Select")], .xbox))
        // A focus move changes exactly the two cards.
        _ = m.handle(.navigate(.move(.right)), now: 2)
        let moved = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
        let changed = zip(scene.elements, moved.elements).filter { $0 != $1 }.map(\.0.title)
        #expect(changed == ["Living room", "Office"])
        #expect(ShellRenderer(width: 1920, height: 1080).damage(from: scene, to: moved).count == 2)
    }

    @Test func everyPageAPadReachesHasASceneWithOneFocusedElement() throws {
        var now: UInt64 = 10
        let walks: [[NavigationInput]] = [
            [],                                          // home
            [.activate],                                 // host page
            [.activate, .move(.down), .activate],        // PIN pad
            [.move(.down), .activate],                   // add host
            [.move(.down), .move(.right), .activate],    // settings
            [.move(.down), .move(.right), .activate, .move(.up), .move(.down), .move(.down), .move(.down),
             .move(.down), .move(.down), .move(.down), .activate],     // controllers (read-only: nothing focused)
            [.move(.down), .move(.right), .move(.right), .activate],   // power off, asked first
        ]
        var seen: [ShellPage] = []
        for walk in walks {
            var m = Self.machine()
            for input in walk { now += 1; _ = m.handle(.navigate(input), now: now) }
            let scene = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .playStation))
            let expected = m.state.shell.top == .info(.controllers) ? 0 : 1
            #expect(Self.focused(scene).count == expected, "\(m.state.shell.top)")
            if case .hints = scene.elements.last?.kind {} else { Issue.record("no hint bar on \(m.state.shell.top)") }
            seen.append(m.state.shell.top)
            // And back out to home with Back alone.
            for _ in 0..<4 { now += 1; _ = m.handle(.navigate(.back), now: now) }
            #expect(m.state.shell.pages.count == 1, "left \(seen.last!) with Back")
        }
        #expect(seen == [.home(.hosts), .host(id: "living-room", focus: .connect), .pin(hostID: "living-room", focus: GridPosition(row: 0, column: 0)),
                         .addHost(focus: GridPosition(row: 0, column: 0)), .settings(focus: .mode), .info(.controllers),
                         .confirm(.powerOff, yes: false)])
    }

    @Test func thePinPadSaysWhereThePinIsAndShowsTheDigitsTyped() throws {
        var m = Self.machine()
        for (i, input) in [NavigationInput.activate, .move(.down), .activate, .character("4"), .character("2")].enumerated() {
            _ = m.handle(.navigate(input), now: UInt64(10 + i))
        }
        let scene = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .keyboard))
        #expect(scene.elements.first?.title == "Pair with Living room")
        #expect(scene.elements.contains { $0.kind == .text && $0.title.contains("PIN that Living room shows") && $0.title.contains("one guess") })
        #expect(scene.elements.contains { $0.kind == .field && $0.title == "4 2 _ _" })
        #expect(scene.elements.filter { $0.kind == .key }.map(\.title) == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"])
        #expect(Self.focused(scene).map(\.title) == ["1"])
    }

    @Test func anErrorSaysTheSentenceAndTheNextStep() throws {
        var m = Self.machine()
        _ = m.handle(.navigate(.activate), now: 10)
        _ = m.handle(.navigate(.activate), now: 11)
        _ = m.handle(.unresolvable(job: 1, sentence: "The name does not resolve."), now: 12)
        let scene = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
        #expect(scene.elements.contains { $0.title == "The name does not resolve." })
        #expect(scene.elements.contains { $0.title == "Try again, or go back to the hosts." })
        #expect(Self.focused(scene).map(\.title) == ["Try again"])
    }

    @Test func aStreamHasNoSceneAndItsMenuListsItsChoices() throws {
        let key = "192.168.1.20:9777", fp = String(repeating: "ab", count: 32)
        var known = KnownHosts()
        try known.trust(host: key, fingerprint: fp)
        var m = Self.machine(known: known)
        _ = m.handle(.user(.connect(hostID: "living-room")), now: 10)
        _ = m.handle(.resolved(job: 1, key: key), now: 11)
        let connecting = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
        #expect(connecting.elements.first?.title == "Connecting to Living room")
        #expect(connecting.elements.filter { $0.kind == .statement }.map(\.title) == ["› Dialling"])
        #expect(Self.focused(connecting).map(\.title) == ["Cancel"])
        _ = m.handle(.stream(job: 1, .established(peerFingerprint: fp, redirected: false)), now: 12)
        _ = m.handle(.stream(job: 1, .firstPicture), now: 13)
        #expect(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox) == nil)
        _ = m.handle(.navigate(.menu), now: 14)
        let menu = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
        #expect(menu.elements.filter { $0.kind == .button }.map(\.title) == ["Resume", "Show stats", "Disconnect", "Quit"])
        #expect(Self.focused(menu).map(\.title) == ["Resume"])
    }

    @Test func theSceneDrawsItsTextWhereItsElementsAre() throws {
        let m = Self.machine()
        let scene = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
        let renderer = ShellRenderer(width: 1280, height: 720)
        var pixels = [UInt32](repeating: 0, count: 1280 * 720)
        pixels.withUnsafeMutableBytes { _ = renderer.draw(scene, over: nil, into: $0.baseAddress!, stride: 1280 * 4) }
        // The first card's title: bright pixels in the card's top band.
        let card = try #require(scene.elements.first { $0.title == "Living room" })
        let r = renderer.pixelRect(of: card)
        var bright = 0
        for y in r.y..<(r.y + r.height / 2) {
            for x in r.x..<r.maxX where pixels[y * 1280 + x] & 0xFFFFFF == 0xF2F4F7 { bright += 1 }
        }
        #expect(bright > 100, "the host's name is drawn on its card (\(bright) px)")
    }

    /// Lists and keys sit closer than two focus rings: a move's damage rectangles overlap the
    /// neighbours, which are redrawn inside them — the result is still exactly a full redraw.
    @Test(arguments: [
        [NavigationInput.move(.down), .move(.right), .activate],                  // settings
        [NavigationInput.move(.down), .activate],                                 // add-host keyboard
    ])
    func aFocusMoveOnAListOrKeyboardRedrawsToExactlyTheFullPicture(to page: [NavigationInput]) throws {
        var m = Self.machine()
        var now: UInt64 = 10
        for input in page { now += 1; _ = m.handle(.navigate(input), now: now) }
        let renderer = ShellRenderer(width: 1280, height: 720)
        var partial = [UInt32](repeating: 0, count: 1280 * 720)
        var previous = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
        partial.withUnsafeMutableBytes { _ = renderer.draw(previous, over: nil, into: $0.baseAddress!, stride: 1280 * 4) }
        for move in [NavigationInput.move(.down), .move(.right), .move(.down), .move(.up)] {
            now += 1
            _ = m.handle(.navigate(move), now: now)
            let scene = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
            let damage = partial.withUnsafeMutableBytes { renderer.draw(scene, over: previous, into: $0.baseAddress!, stride: 1280 * 4) }
            var full = [UInt32](repeating: 0, count: 1280 * 720)
            full.withUnsafeMutableBytes { _ = renderer.draw(scene, over: nil, into: $0.baseAddress!, stride: 1280 * 4) }
            #expect(partial == full, "after \(move) on \(m.state.shell.top), damage \(damage)")
            #expect(damage.count <= 2)
            previous = scene
        }
    }

    /// A mouse reaches every entry: on each screen, pointing at an element with a target focuses
    /// exactly that element (a click is that, then activate, which the pad tests cover).
    @Test func everyEntryOnEveryScreenCanBePointedAt() throws {
        let key = "192.168.1.20:9777", fp = String(repeating: "ab", count: 32)
        var known = KnownHosts()
        try known.trust(host: key, fingerprint: fp)
        let walks: [[KioskEvent]] = [
            [],
            [.navigate(.activate)],
            [.navigate(.activate), .navigate(.move(.down)), .navigate(.activate)],
            [.navigate(.move(.down)), .navigate(.activate)],
            [.navigate(.move(.down)), .navigate(.move(.right)), .navigate(.activate)],
            [.navigate(.move(.down)), .navigate(.move(.right)), .navigate(.move(.right)), .navigate(.activate)],
            [.navigate(.activate), .navigate(.activate), .unresolvable(job: 1, sentence: "No such host.")],
            [.navigate(.activate), .navigate(.activate), .resolved(job: 1, key: key),
             .stream(job: 1, .established(peerFingerprint: fp, redirected: false)), .stream(job: 1, .firstPicture), .navigate(.menu)],
        ]
        var pointed = 0
        for walk in walks {
            var m = Self.machine(known: known)
            var now: UInt64 = 10
            for event in walk { now += 1; _ = m.handle(event, now: now) }
            let view = try #require(ShellSceneBuilder.view(for: m.state, glyphs: .xbox))
            #expect(view.targets.count == view.scene.elements.count)
            for (i, target) in view.targets.enumerated() {
                guard let target else { continue }
                now += 1
                #expect(m.handle(.navigate(.point(target)), now: now) == [])
                let after = try #require(ShellSceneBuilder.scene(for: m.state, glyphs: .xbox))
                #expect(after.elements.indices.filter { after.elements[$0].focused } == [i], "\(target) on \(m.state.phase)")
                pointed += 1
            }
        }
        // 2 cards + 4 actions, 6 host entries, 12 digit keys, 44 letter keys, 8 + 4 (HDMI-CEC) + 1
        // (Sleep after) + 3 (HDR, sound channels, audio repair) settings, yes/no, retry/back, 4 menu entries.
        #expect(pointed == 6 + 6 + 12 + 44 + 8 + 4 + 1 + 3 + 2 + 2 + 4)
    }

    @Test func aPointerOnAnEntryOfAnotherScreenChangesNothing() {
        var m = Self.machine()
        let before = m.state
        for target in [PointerTarget.setting(.mode), .key(GridPosition(row: 0, column: 0)), .menu(.quit), .error(.retry),
                       .hostCard(id: "nowhere"), .confirm(yes: true)] {
            #expect(m.handle(.navigate(.point(target)), now: 10) == [])
        }
        #expect(m.state == before)
    }
}
