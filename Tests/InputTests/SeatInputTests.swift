import Foundation
import Testing
import Input
import PunktfunkWire

/// A compositor's seat (wl_keyboard / wl_pointer, the pointer lock and relative motion) through
/// the same mapping as evdev devices: issue 20, item 3's rules.
@Suite struct SeatInputTests {
    /// The seat feeding a mapper with a session policy, recording what the host gets.
    final class Rig {
        let sink = RecordingSink()
        let mapper: InputMapper
        let navigation = NavigationMapper()
        let seat: SeatInput
        var shell: [NavigationEvent] = []
        var escapes = 0

        init(normalisedScroll: Bool = false) {
            mapper = InputMapper(sink: sink)
            mapper.setPolicy(InputPolicy(normalisedScroll: normalisedScroll))
            navigation.setRoute(.host)
            seat = SeatInput(mapper: mapper, navigation: navigation)
            mapper.onEscape = { [unowned self] in escapes += 1 }
            navigation.onEvent = { [unowned self] in shell.append($0) }
        }

        func feed(_ events: SeatEvent...) { for e in events { seat.handle(e) } }
        func take() -> [InputEvent] { sink.take().compactMap { if case .event(let e, _) = $0 { e } else { nil } } }
    }

    // evdev codes
    static let keyA: UInt32 = 30, keyB: UInt32 = 48, keyW: UInt32 = 17, keyQ: UInt32 = 16
    static let leftCtrl: UInt32 = 29, leftAlt: UInt32 = 56, leftShift: UInt32 = 42, enter: UInt32 = 28
    static let btnLeft: UInt32 = 0x110, btnRight: UInt32 = 0x111, btnSide: UInt32 = 0x113

    // MARK: - The pure keyboard

    @Test func keyboardSeedsEnterKeysAndForwardsNoRepeat() {
        var k = SeatKeyboard()
        #expect(k.key(code: Self.keyA, state: 1) == nil)             // no focus yet
        #expect(k.enter(keys: [Self.keyW, Self.keyA]) == [17, 30])  // seeded, not pressed
        #expect(k.key(code: Self.keyB, state: 1)! == (48, true))
        #expect(k.key(code: Self.keyB, state: 2) == nil)             // wl_keyboard v10 repeat
        #expect(k.key(code: Self.keyB, state: 1) == nil)             // a press of a key already down
        #expect(k.key(code: Self.keyB, state: 0)! == (48, false))
        #expect(k.key(code: Self.keyB, state: 0) == nil)             // not down
        #expect(k.key(code: Self.keyA, state: 0)! == (30, false))    // a seeded key's release: the mapper drops it
        #expect(k.key(code: 70_000, state: 1) == nil)
        #expect(k.leave() == [17])
        #expect(!k.focused && k.down.isEmpty)
    }

    // MARK: - Keys to the host

    @Test func keysReachTheHostAsVKsThroughTheEvdevTable() {
        let r = Rig()
        r.feed(.keyboardEnter(keys: []), .key(code: Self.keyB, state: 1), .key(code: Self.keyB, state: 0),
               .key(code: Self.leftShift, state: 1), .key(code: Self.leftShift, state: 0))
        #expect(r.take() == [.keyDown(vk: 0x42), .keyUp(vk: 0x42), .keyDown(vk: 0xA0), .keyUp(vk: 0xA0)])
    }

    @Test func keysDownAtEnterAreNotPressedNorReleased() {
        let r = Rig()
        r.feed(.keyboardEnter(keys: [Self.keyA]), .key(code: Self.keyA, state: 0))
        #expect(r.take().isEmpty)
        r.feed(.key(code: Self.keyA, state: 1))                      // pressed again in focus: it goes
        #expect(r.take() == [.keyDown(vk: 0x41)])
    }

    @Test func repeatsAreNeverForwarded() {
        let r = Rig()
        r.feed(.keyboardEnter(keys: []), .key(code: Self.keyW, state: 1))
        for _ in 0..<30 { r.feed(.key(code: Self.keyW, state: 2), .key(code: Self.keyW, state: 1)) }
        r.feed(.key(code: Self.keyW, state: 0))
        #expect(r.take() == [.keyDown(vk: 0x57), .keyUp(vk: 0x57)])
    }

    @Test func leaveReleasesEverythingHeldAndNothingElse() {
        let r = Rig()
        r.feed(.keyboardEnter(keys: [Self.keyB]),                    // B: seeded, never sent
               .key(code: Self.keyA, state: 1), .key(code: Self.keyW, state: 1), .key(code: Self.leftShift, state: 1))
        _ = r.take()
        r.feed(.keyboardLeave)
        let ups = r.take()
        #expect(Set(ups.map(\.code)) == [0x41, 0x57, 0xA0] && ups.count == 3 && ups.allSatisfy { $0.kind == .keyUp })
        #expect(r.mapper.held.heldKeyCount == 0)
        // Events after leave go nowhere; the next enter starts clean.
        r.feed(.key(code: Self.keyA, state: 0), .keyboardLeave)
        #expect(r.take().isEmpty)
        r.feed(.keyboardEnter(keys: [Self.keyA]), .key(code: Self.keyA, state: 0))
        #expect(r.take().isEmpty)
    }

    @Test func leaveReleasesInVKOrder() {
        let r = Rig()
        r.feed(.keyboardEnter(keys: []), .key(code: Self.keyW, state: 1), .key(code: Self.keyA, state: 1))
        _ = r.take()
        r.feed(.keyboardLeave)
        let ups = r.take()
        #expect(Set(ups.map(\.code)) == [0x41, 0x57] && ups.count == 2 && ups.allSatisfy { $0.kind == .keyUp })
    }

    @Test func escapeChordFromSeatKeys() {
        let r = Rig()
        r.feed(.keyboardEnter(keys: []), .key(code: Self.leftCtrl, state: 1), .key(code: Self.leftAlt, state: 1),
               .key(code: Self.leftShift, state: 1))
        #expect(r.take() == [.keyDown(vk: 0xA2), .keyDown(vk: 0xA4), .keyDown(vk: 0xA0)])
        r.feed(.key(code: Self.keyQ, state: 1))                     // armed: the chord's keys leave the host
        let ups = r.take()
        #expect(Set(ups.map(\.code)) == [0xA2, 0xA4, 0xA0] && ups.count == 3 && ups.allSatisfy { $0.kind == .keyUp })
        r.feed(.key(code: Self.keyQ, state: 0), .key(code: Self.leftCtrl, state: 0), .key(code: Self.leftAlt, state: 0))
        #expect(r.escapes == 0)
        r.feed(.key(code: Self.leftShift, state: 0))
        #expect(r.escapes == 1)
        #expect(r.take().isEmpty && r.mapper.held.heldKeyCount == 0)
    }

    @Test func escapeChordCountsModifiersDownAtEnter() {
        let r = Rig()
        r.feed(.keyboardEnter(keys: [Self.leftCtrl, Self.leftAlt, Self.leftShift]), .key(code: Self.keyQ, state: 1))
        #expect(r.take().isEmpty)
        r.feed(.key(code: Self.keyQ, state: 0), .key(code: Self.leftCtrl, state: 0), .key(code: Self.leftAlt, state: 0),
               .key(code: Self.leftShift, state: 0))
        #expect(r.escapes == 1)
    }

    @Test func shellRouteGetsNavigationNotTheHost() {
        let r = Rig()
        r.mapper.leaveForShell()
        r.navigation.setRoute(.shell)
        r.feed(.keyboardEnter(keys: []), .key(code: Self.enter, state: 1), .key(code: Self.enter, state: 0))
        #expect(r.take().isEmpty)
        #expect(r.shell.contains(.key(.confirm, pressed: true, from: .keyboard)))
        #expect(r.shell.contains(.key(.confirm, pressed: false, from: .keyboard)))
    }

    // MARK: - The pointer

    @Test func absoluteMotionIsPanelPixels() {
        var p = SeatPointer()
        p.setGeometry(surfaceWidth: 960, surfaceHeight: 540, panelWidth: 1920, panelHeight: 1080)
        #expect(p.enter(x: 10.5, y: 20) == (21, 40))
        #expect(p.motion(x: 959.9, y: 600)! == (1919, 1079))        // clamped to the panel
        #expect(p.motion(x: 959.9, y: 600) == nil)                   // no change
        #expect(p.motion(x: -3, y: 0)! == (0, 0))
    }

    @Test func pointerToTheHost() {
        let r = Rig()
        r.feed(.geometry(surfaceWidth: 1280, surfaceHeight: 720, panelWidth: 2560, panelHeight: 1440),
               .pointerEnter(x: 100, y: 50), .pointerFrame, .pointerMotion(x: 101.25, y: 50), .pointerFrame,
               .button(code: Self.btnLeft, pressed: true), .pointerFrame,
               .button(code: Self.btnLeft, pressed: true), .pointerFrame,        // duplicate
               .button(code: Self.btnLeft, pressed: false), .button(code: Self.btnSide, pressed: true), .pointerFrame)
        #expect(r.take() == [
            .mouseMoveAbs(x: 200, y: 100, referenceWidth: 2560, referenceHeight: 1440),
            .mouseMoveAbs(x: 202, y: 100, referenceWidth: 2560, referenceHeight: 1440),
            .mouseButtonDown(.left), .mouseButtonUp(.left), .mouseButtonDown(.x1),
        ])
        r.feed(.pointerLeave)                                          // focus loss: held buttons go up
        #expect(r.take() == [.mouseButtonUp(.x1)])
        r.feed(.button(code: Self.btnRight, pressed: true), .pointerFrame, .pointerMotion(x: 5, y: 5), .pointerFrame)
        #expect(r.take().isEmpty)                                      // nothing without focus
    }

    /// A stream's picture letterboxed on a scaled surface: the host hears video pixels through the
    /// picture's place (its centre maps onto the video's centre; the bars clamp to its edges), the
    /// video as the reference; once the stream leaves, panel pixels again.
    @Test func aStreamsPictureMapsThePointerIntoVideoPixels() {
        let r = Rig()
        // 1920x1080 panel (960x540 surface at scale 2); a 4:3 1024x768 picture pillarboxed at 240…1680.
        r.feed(.geometry(surfaceWidth: 960, surfaceHeight: 540, panelWidth: 1920, panelHeight: 1080),
               .videoArea(SeatVideoArea(x: 240, y: 0, width: 1440, height: 1080, videoWidth: 1024, videoHeight: 768)),
               .pointerEnter(x: 480, y: 270), .pointerFrame,       // panel (960, 540)
               .pointerMotion(x: 50, y: 539.9), .pointerFrame,     // panel (100, 1079): over the left bar
               .pointerMotion(x: 959.9, y: 0), .pointerFrame)      // panel (1919, 0): over the right bar
        // (960 − 240 + 0.5)·1024/1440 = 512.36 → 512; (540.5)·768/1080 = 384.36 → 384.
        #expect(r.take() == [
            .mouseMoveAbs(x: 512, y: 384, referenceWidth: 1024, referenceHeight: 768),
            .mouseMoveAbs(x: 0, y: 767, referenceWidth: 1024, referenceHeight: 768),
            .mouseMoveAbs(x: 1023, y: 0, referenceWidth: 1024, referenceHeight: 768),
        ])
        r.feed(.videoArea(nil), .pointerMotion(x: 10, y: 10), .pointerFrame)
        #expect(r.take() == [.mouseMoveAbs(x: 20, y: 20, referenceWidth: 1920, referenceHeight: 1080)])
    }

    @Test func lockedPointerSendsUnacceleratedRelativeCounts() {
        let r = Rig()
        r.feed(.geometry(surfaceWidth: 1280, surfaceHeight: 720, panelWidth: 1280, panelHeight: 720),
               .pointerEnter(x: 640, y: 360), .pointerFrame)
        _ = r.take()
        r.feed(.relativeMotion(dx: 5, dy: 5))                          // not locked: absolute only
        r.feed(.pointerLocked(true), .pointerMotion(x: 700, y: 400), .pointerFrame)   // locked: no absolute
        r.feed(.relativeMotion(dx: 1.4, dy: 0.3), .relativeMotion(dx: 0.7, dy: 0.8), .relativeMotion(dx: -0.05, dy: 0.05),
               .relativeMotion(dx: -3, dy: -2))
        #expect(r.take() == [.mouseMove(dx: 1, dy: 0), .mouseMove(dx: 1, dy: 1), .mouseMove(dx: -2, dy: -1)])
        r.feed(.pointerLocked(false), .relativeMotion(dx: 4, dy: 4), .pointerMotion(x: 10, y: 10), .pointerFrame)
        #expect(r.take() == [.mouseMoveAbs(x: 10, y: 10, referenceWidth: 1280, referenceHeight: 720)])
    }

    @Test func scrollPrefersValue120ThenDiscreteThenContinuous() {
        let r = Rig()
        r.feed(.pointerEnter(x: 0, y: 0))
        _ = r.take()
        // wl_pointer + = down; the host's + = up.
        r.feed(.axis(horizontal: false, value: 15), .axisDiscrete(horizontal: false, steps: 1), .pointerFrame)
        r.feed(.axis(horizontal: false, value: -15), .axisDiscrete(horizontal: false, steps: -1),
               .axisValue120(horizontal: false, value120: -60), .pointerFrame)
        r.feed(.axis(horizontal: true, value: 7.5), .pointerFrame, .axis(horizontal: true, value: 0.1), .pointerFrame)
        #expect(r.take() == [.mouseScroll(axis: .vertical, delta: -120), .mouseScroll(axis: .vertical, delta: 60),
                             .mouseScroll(axis: .horizontal, delta: 60)])
        r.feed(.axis(horizontal: true, value: 7.4), .pointerFrame)   // 0.8 + 59.2 carried: 60
        #expect(r.take() == [.mouseScroll(axis: .horizontal, delta: 60)])
    }

    @Test func shellPointerFollowsTheCompositorsPointer() {
        let r = Rig()
        r.mapper.leaveForShell()
        r.navigation.setRoute(.shell)
        r.feed(.geometry(surfaceWidth: 1280, surfaceHeight: 720, panelWidth: 1280, panelHeight: 720),
               .pointerEnter(x: 100, y: 50), .pointerFrame, .pointerMotion(x: 110, y: 45), .pointerFrame,
               .button(code: Self.btnLeft, pressed: true), .pointerFrame,
               .axisDiscrete(horizontal: false, steps: 1), .axis(horizontal: false, value: 15), .pointerFrame)
        #expect(r.take().isEmpty)
        #expect(r.shell == [
            .pointerMoved(dx: -(1 << 24), dy: -(1 << 24)), .pointerMoved(dx: 100, dy: 50),
            .pointerMoved(dx: 10, dy: -5),
            .deviceUsed(.mouse), .click(pressed: true),
            .key(.down, pressed: true, from: .mouse), .key(.down, pressed: false, from: .mouse),
        ] || r.shell.filter { if case .deviceUsed = $0 { false } else { true } } == [
            .pointerMoved(dx: -(1 << 24), dy: -(1 << 24)), .pointerMoved(dx: 100, dy: 50),
            .pointerMoved(dx: 10, dy: -5), .click(pressed: true),
            .key(.down, pressed: true, from: .mouse), .key(.down, pressed: false, from: .mouse),
        ])
    }
}

/// `InputService.seat(_:)`: seat events posted from another thread are mapped on the input thread
/// into the attached sink, in order; stopping lets go of what the seat held.
@Suite struct InputServiceSeatTests {
    @Test func seatEventsReachTheSinkThroughTheInputThread() throws {
        let sink = RecordingSink()
        var options = InputService.Options()
        options.grab = false
        options.evdevKeyboardsAndMice = false   // under a compositor: pads only from evdev
        let service = InputService(sink: sink, options: options)
        #expect(service.start() == nil)
        service.setPolicy(InputPolicy(normalisedScroll: false))
        service.seat([.keyboardEnter(keys: [30]), .key(code: 48, state: 1), .key(code: 48, state: 0),
                      .key(code: 30, state: 0), .key(code: 17, state: 1)])
        // The input thread applies the batch on its next pass; W stays held until stop.
        var waited = 0
        while service.counters.eventsSent < 3, waited < 200 { usleep(10_000); waited += 1 }
        service.stop()
        let keys = sink.events.filter { $0.kind == .keyDown || $0.kind == .keyUp }
        #expect(keys == [.keyDown(vk: 0x42), .keyUp(vk: 0x42), .keyDown(vk: 0x57), .keyUp(vk: 0x57)])
    }
}
