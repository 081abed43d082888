import Testing
import Input
import Shell
import PunktfunkSession
@testable import Kiosk

/// The shell route's events as the machine hears them: presses act, a held direction repeats by
/// the input loop's deadline (400 ms, then every 120 ms), glyphs follow the device in hand, the
/// pointer stays on the panel and its motion is coalesced; the controllers page lists the pads
/// and identifies the focused one.
@Suite struct ShellInputTests {
    final class Posted {
        var events: [KioskEvent] = []
        func take() -> [KioskEvent] { defer { events = [] }; return events }
    }

    @Test func pressesActAndAHeldDirectionRepeatsByTheLoopsDeadline() {
        var feed = ShellInputFeed()
        let posted = Posted()
        let post: (KioskEvent) -> Void = { posted.events.append($0) }
        let t0: UInt64 = 10_000_000_000
        feed.take(.key(.confirm, pressed: true, from: .xboxPad), now: t0, post: post)
        feed.take(.key(.confirm, pressed: false, from: .xboxPad), now: t0, post: post)
        feed.take(.key(.character("7"), pressed: true, from: .keyboard), now: t0, post: post)
        #expect(posted.take() == [.navigate(.activate), .navigate(.character("7"))], "act on press, once")
        #expect(feed.nextDeadline == nil)
        feed.take(.key(.down, pressed: true, from: .xboxPad), now: t0, post: post)
        #expect(posted.take() == [.navigate(.move(.down))])
        #expect(feed.nextDeadline == t0 + 400_000_000)
        // The input loop wakes at its deadline (epoll timeout) and ticks.
        var now = t0
        var moves: [UInt64] = []
        while let due = feed.nextDeadline, due <= t0 + 700_000_000 {
            now = due
            feed.tick(now: now, post: post)
            moves.append(now - t0)
        }
        #expect(moves == [400_000_000, 520_000_000, 640_000_000])
        #expect(posted.take() == Array(repeating: .navigate(.move(.down)), count: 3))
        feed.take(.key(.down, pressed: false, from: .xboxPad), now: now, post: post)
        #expect(feed.nextDeadline == nil)
    }

    @Test func glyphsFollowTheLastDeviceAndAMouseKeepsThem() {
        var feed = ShellInputFeed()
        let post: (KioskEvent) -> Void = { _ in }
        feed.take(.deviceUsed(.playStationPad), now: 0, post: post)
        #expect(feed.glyphs == .playStation)
        feed.take(.deviceUsed(.mouse), now: 0, post: post)
        #expect(feed.glyphs == .playStation)
        feed.take(.deviceUsed(.keyboard), now: 0, post: post)
        #expect(feed.glyphs == .keyboard)
        feed.take(.deviceUsed(.xboxPad), now: 0, post: post)
        #expect(feed.glyphs == .xbox)
        feed.take(.deviceUsed(.tvRemote), now: 0, post: post)
        #expect(feed.glyphs == .remote, "the TV remote's key names (OK, Back, Clear, Menu)")
    }

    @Test func thePointerIsClampedToThePanelAndItsMotionCoalesced() {
        var feed = ShellInputFeed()
        let posted = Posted()
        let post: (KioskEvent) -> Void = { posted.events.append($0) }
        feed.setPanel(width: 1280, height: 720)
        feed.centre()
        let t0: UInt64 = 1_000_000_000
        feed.take(.pointerMoved(dx: -5000, dy: 10), now: t0, post: post)
        #expect(posted.take() == [.pointer(PointerEvent(x: 0, y: 370, action: .moved))])
        feed.take(.pointerMoved(dx: 3, dy: 5000), now: t0 + 1_000_000, post: post)
        feed.take(.pointerMoved(dx: 2, dy: 0), now: t0 + 2_000_000, post: post)
        #expect(posted.take().isEmpty, "within one interval")
        #expect(feed.nextDeadline == t0 + ShellInputFeed.motionIntervalNs)
        feed.tick(now: t0 + ShellInputFeed.motionIntervalNs, post: post)
        #expect(posted.take() == [.pointer(PointerEvent(x: 5, y: 719, action: .moved))])
        feed.take(.click(pressed: true), now: t0 + 9_000_000, post: post)
        feed.take(.click(pressed: false), now: t0 + 9_000_000, post: post)
        #expect(posted.take() == [.pointer(PointerEvent(x: 5, y: 719, action: .clicked))])
        feed.setPanel(width: 640, height: 360)
        #expect(feed.pointerX == 5 && feed.pointerY == 359)
    }

    @Test func anAbsolutePointerPutsThePointerAtItsPlaceOnThePanel() {
        var feed = ShellInputFeed()
        let posted = Posted()
        let post: (KioskEvent) -> Void = { posted.events.append($0) }
        feed.setPanel(width: 1280, height: 720)
        let t0: UInt64 = 1_000_000_000
        feed.take(.pointerPlaced(x: 1, y: 0.5), now: t0, post: post)
        #expect(posted.take() == [.pointer(PointerEvent(x: 1279, y: 360, action: .moved))])
        feed.take(.pointerPlaced(x: 0, y: .nan), now: t0 + 20_000_000, post: post)
        #expect(posted.take().isEmpty, "a place that is not a number is ignored")
        feed.take(.pointerPlaced(x: 0, y: 1), now: t0 + 30_000_000, post: post)
        #expect(posted.take() == [.pointer(PointerEvent(x: 0, y: 719, action: .moved))])
    }

    @Test func theControllersPageListsPadsAndIdentifiesTheFocusedOne() {
        var m = KioskMachine(policy: KioskPolicy(afterJob: .returnToHosts), hosts: [])
        _ = m.handle(.started(StartReport(display: .glass(name: "HDMI-A-1 1920x1080@60"), knownHosts: KnownHosts())), now: 0)
        let pads = [ControllerInfo(slot: 0, kind: "Xbox", name: "Xbox Wireless Controller"),
                    ControllerInfo(slot: 2, kind: "DualSense", name: "DualSense Wireless Controller", battery: 80, charging: true)]
        _ = m.handle(.controllersChanged(pads), now: 0)
        // Home → Settings → Controllers.
        for input: NavigationInput in [.move(.down), .move(.right), .activate] { _ = m.handle(.navigate(input), now: 0) }
        for _ in 0..<6 { _ = m.handle(.navigate(.move(.down)), now: 0) }
        _ = m.handle(.navigate(.activate), now: 0)
        #expect(m.state.shell.top == .info(.controllers))
        let view = ShellSceneBuilder.view(for: m.state, glyphs: .keyboard)!
        let rows = view.scene.elements.filter { $0.title.contains("DualSense") || $0.title.contains("Xbox") }
        #expect(rows.map(\.title) == ["1 · Xbox · Xbox Wireless Controller", "3 · DualSense · DualSense Wireless Controller"])
        #expect(rows.map(\.detail) == ["No battery reported", "80 %, charging"])
        #expect(view.targets.contains(.controller(slot: 2)))
        _ = m.handle(.navigate(.move(.down)), now: 0)
        #expect(m.handle(.navigate(.activate), now: 0) == [.shell(.identifyController(slot: 2))])
        _ = m.handle(.navigate(.point(.controller(slot: 0))), now: 0)
        #expect(m.handle(.navigate(.activate), now: 0) == [.shell(.identifyController(slot: 0))])
        _ = m.handle(.controllersChanged([]), now: 0)
        #expect(m.handle(.navigate(.activate), now: 0) == [], "nothing to identify: A leaves")
        #expect(m.state.shell.top == .settings(focus: .controllers))
    }

    @Test func padInfoBecomesAControllerRow() {
        let c = ShellInput.controller(PadInfo(slot: 1, kind: .dualShock4, name: "Wireless Controller", battery: 40, charging: false))
        #expect(c == ControllerInfo(slot: 1, kind: "DualShock 4", name: "Wireless Controller", battery: 40, charging: false))
        #expect(c.batteryLine == "40 %")
    }
}

extension ShellInputTests {
    /// The handler the input thread calls: events land on the runner's queue, the repeat is due
    /// at the deadline `tick` returns, the route follows the phase, a console switch goes to its
    /// callback and nothing else.
    @Test func theInputThreadsHandlerPostsToTheRunnersQueue() {
        let queue = EventQueue()
        let input = ShellInput(options: InputService.Options(), events: queue)
        var switched: [Int] = []
        input.onConsoleSwitch = { switched.append($0) }
        let t0: UInt64 = 50_000_000_000
        input.navigate(.deviceUsed(.keyboard), nowNs: t0)
        input.navigate(.key(.left, pressed: true, from: .keyboard), nowNs: t0)
        #expect(queue.drain().map(\.event) == [.navigate(.move(.left))])
        #expect(input.glyphs == .keyboard)
        #expect(input.tick(nowNs: t0 + 1) == t0 + KeyRepeat.delayNs)
        #expect(queue.drain().isEmpty)
        #expect(input.tick(nowNs: t0 + KeyRepeat.delayNs) == t0 + KeyRepeat.delayNs + KeyRepeat.intervalNs)
        #expect(queue.drain().map(\.event) == [.navigate(.move(.left))])
        input.navigate(.key(.left, pressed: false, from: .keyboard), nowNs: t0 + KeyRepeat.delayNs + 1)
        #expect(input.tick(nowNs: t0 + KeyRepeat.delayNs + 2) == nil)
        input.navigate(.switchConsole(3), nowNs: t0)
        #expect(switched == [3] && queue.drain().isEmpty)
        input.setPanel(width: 1280, height: 720)
        input.navigate(.pointerMoved(dx: 10_000, dy: 10_000), nowNs: t0 + 1_000_000_000)
        #expect(input.pointer == (1279, 719))
        #expect(queue.drain().map(\.event) == [.pointer(PointerEvent(x: 1279, y: 719, action: .moved))])
    }
}
