import Input
import PunktfunkWire
import SystemClock
import Testing

/// The pointer the box draws (`HostPointer`): the host's 0xD0 decides whether it shows, where and
/// whether the host captured it (data-plane.md §7.3); a local mouse moves it at once in desktop
/// mode and the host gets MouseMoveAbs on the video mode (§6.2 kind 3).
@Suite struct HostPointerTests {
    func state(_ x: Int32, _ y: Int32, _ flags: CursorState.Flags = [.visible], serial: UInt32 = 1) -> CursorState {
        CursorState(serial: serial, flags: flags, x: x, y: y)
    }

    @Test func nothingIsDrawnUntilTheHostForwardsItsPointer() {
        let p = HostPointer()
        #expect(p.view(now: 0) == nil)
        p.host(state(10, 10))                                   // not begun: ignored
        #expect(p.view(now: 0) == nil && !p.isDesktop)
        p.begin(enabled: false, videoWidth: 1920, videoHeight: 1080)
        p.host(state(10, 10))
        #expect(p.view(now: 0) == nil && p.move(dx: 1, dy: 1) == nil, "the host does not forward it: nothing drawn, mice relative")
        p.begin(enabled: true, videoWidth: 1920, videoHeight: 1080)
        #expect(p.view(now: 0) == nil && p.move(dx: 1, dy: 1) == nil, "no 0xD0 yet")
        p.host(state(100, 200))
        #expect(p.view(now: 0) == HostPointer.View(serial: 1, x: 100, y: 200, videoWidth: 1920, videoHeight: 1080))
        #expect(p.isDesktop)
    }

    @Test func hiddenOrCapturedIsNotDrawnAndCapturedMovesRelatively() {
        let p = HostPointer()
        p.begin(enabled: true, videoWidth: 1920, videoHeight: 1080)
        p.host(state(5, 5, []))
        #expect(p.view(now: 0) == nil && p.isDesktop, "hidden, but the desktop's pointer still takes places")
        p.host(state(5, 5, [.visible, .relativeHint]))
        #expect(p.view(now: 0) == nil && !p.isDesktop)
        #expect(p.move(dx: 3, dy: 3) == nil, "captured: the host gets the relative counts")
    }

    @Test func aLocalMoveIsDrawnAtOnceAndOutranksTheHostForAWhile() {
        let p = HostPointer()
        p.begin(enabled: true, videoWidth: 1920, videoHeight: 1080)
        p.host(state(960, 540))
        let g0 = p.generation
        let moved = p.move(dx: 100, dy: -50)!
        #expect(moved == (1060, 490, 1920, 1080))
        #expect(p.generation != g0)
        let now = MonotonicClock.nowNs()
        #expect(p.view(now: now)?.x == 1060 && p.view(now: now)?.y == 490)
        p.host(state(960, 540))                                 // the host's report from before it heard
        #expect(p.view(now: now)?.x == 1060, "within the hold the local place wins")
        #expect(p.view(now: now + HostPointer.localHoldNs + 1)?.x == 960, "after it the host's report is the truth")
        // Clamped to the mode.
        #expect(p.move(dx: -5000, dy: 5000)! == (0, 1079, 1920, 1080))
    }

    @Test func shapesAreKeptBySerialUpToTheLimit() {
        let p = HostPointer()
        p.begin(enabled: true, videoWidth: 1920, videoHeight: 1080)
        for serial in 1...UInt32(HostPointer.shapeLimit + 2) {
            p.shape(CursorShape(serial: serial, width: 1, height: 1, hotX: 0, hotY: 0, rgba: [1, 2, 3, 4]))
        }
        #expect(p.shape(serial: 1) == nil && p.shape(serial: 2) == nil)
        #expect(p.shape(serial: 3)?.rgba == [1, 2, 3, 4])
        p.begin(enabled: true, videoWidth: 1920, videoHeight: 1080)
        #expect(p.shape(serial: 3) != nil, "a resumed session keeps the shapes (its host resends one only on change)")
        p.end()
        #expect(p.shape(serial: 3) == nil, "the stream's end forgets them")
    }

    @Test func theMapperSendsAMousesMotionAsThePointersNewPlaceInDesktopMode() {
        let sink = RecordingSink()
        let m = InputMapper(sink: sink)
        m.setPolicy(InputPolicy())
        let p = HostPointer()
        m.localPointer = p
        m.add(device: 1, role: .mouse)
        m.frame(1, [(EV.rel, EV.relX, 5), (EV.rel, EV.relY, -3)])      // no 0xD0 yet: relative
        p.begin(enabled: true, videoWidth: 1920, videoHeight: 1080)
        p.host(state(960, 540))
        m.frame(1, [(EV.rel, EV.relX, 5), (EV.rel, EV.relY, -3)])
        p.host(state(965, 537, [.visible, .relativeHint]))
        m.frame(1, [(EV.rel, EV.relX, 7)])
        #expect(sink.events == [.mouseMove(dx: 5, dy: -3),
                                .mouseMoveAbs(x: 965, y: 537, referenceWidth: 1920, referenceHeight: 1080),
                                .mouseMove(dx: 7, dy: 0)])
        // In the shell nothing is sent and the drawn pointer does not move.
        p.host(state(965, 537))
        m.leaveForShell()
        m.frame(1, [(EV.rel, EV.relX, 50)])
        #expect(p.view(now: MonotonicClock.nowNs())?.x == 965)
    }
}
