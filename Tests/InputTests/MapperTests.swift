import Testing
import Input
import PunktfunkWire

@Suite struct MapperTests {
    let KEY_A: UInt16 = 30, KEY_LEFTCTRL: UInt16 = 29, KEY_LEFTALT: UInt16 = 56, KEY_LEFTSHIFT: UInt16 = 42
    let KEY_RIGHTSHIFT: UInt16 = 54

    func mapper(_ policy: InputPolicy? = InputPolicy()) -> (InputMapper, RecordingSink) {
        let sink = RecordingSink()
        let m = InputMapper(sink: sink)
        m.setPolicy(policy)
        return (m, sink)
    }

    @Test func keyEdgesRideTheControlStreamWhenTheHostHasInputEdges() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .keyboard)
        m.key(1, KEY_A, true)
        m.key(1, KEY_A, false)
        #expect(sink.take() == [.event(.keyDown(vk: 0x41), reliable: true), .event(.keyUp(vk: 0x41), reliable: true)])
        m.setPolicy(InputPolicy(reliableKeyEdges: false))
        m.key(1, KEY_LEFTSHIFT, true)
        #expect(sink.take() == [.event(.keyDown(vk: 0xA0), reliable: false)])
        m.key(1, KEY_RIGHTSHIFT, true)
        #expect(sink.events == [.keyDown(vk: 0xA1)])
    }

    @Test func autorepeatIsNotSent() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .keyboard)
        m.frame(1, [(EV.key, KEY_A, 1)])
        m.frame(1, [(EV.key, KEY_A, 2)])
        m.frame(1, [(EV.key, KEY_A, 2)])
        #expect(sink.events == [.keyDown(vk: 0x41)])
    }

    @Test func nothingLeavesBeforeSynReportAndAFrameKeepsItsOrder() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .keyboard)
        m.handle(device: 1, type: EV.key, code: KEY_LEFTSHIFT, value: 1)
        m.handle(device: 1, type: EV.key, code: KEY_A, value: 1)
        #expect(sink.sent.isEmpty)
        m.handle(device: 1, type: EV.syn, code: EV.synReport, value: 0)
        #expect(sink.events == [.keyDown(vk: 0xA0), .keyDown(vk: 0x41)])
    }

    @Test func synDroppedDiscardsThePartialFrame() {
        let (m, sink) = mapper()
        m.add(device: 2, role: .mouse)
        m.handle(device: 2, type: EV.rel, code: EV.relX, value: 50)
        m.handle(device: 2, type: EV.syn, code: EV.synDropped, value: 0)
        m.frame(2, [(EV.rel, EV.relX, 3)])
        #expect(sink.events == [.mouseMove(dx: 3, dy: 0)])
    }

    @Test func mouseMotionIsSummedPerFrameThenButtonsThenWheel() {
        let (m, sink) = mapper(InputPolicy(normalisedScroll: false))
        m.add(device: 2, role: .mouse)
        m.frame(2, [(EV.rel, EV.relX, 3), (EV.rel, EV.relY, -2), (EV.rel, EV.relX, 4), (EV.key, EV.btnLeft, 1),
                    (EV.rel, EV.relWheel, -1)])
        m.frame(2, [(EV.key, EV.btnLeft, 0), (EV.key, EV.btnSide, 1), (EV.rel, EV.relHWheel, 2)])
        #expect(sink.events == [.mouseMove(dx: 7, dy: -2), .mouseButtonDown(.left), .mouseScroll(axis: .vertical, delta: -120),
                                .mouseButtonUp(.left), .mouseButtonDown(.x1), .mouseScroll(axis: .horizontal, delta: 240)])
    }

    @Test func hiResWheelWinsOverDetentsInTheSameFrame() {
        let (m, sink) = mapper(InputPolicy(normalisedScroll: false))
        m.add(device: 2, role: .mouse)
        m.frame(2, [(EV.rel, EV.relWheelHiRes, 60)])
        m.frame(2, [(EV.rel, EV.relWheel, 1), (EV.rel, EV.relWheelHiRes, 60)])
        #expect(sink.events == [.mouseScroll(axis: .vertical, delta: 60), .mouseScroll(axis: .vertical, delta: 60)])
    }

    @Test func aKeyDownAtStreamStartIsNotReleasedWithoutItsPress() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .keyboard)
        // KEY_A was down before the stream: its release arrives first.
        m.key(1, KEY_A, false)
        #expect(sink.sent.isEmpty)
        m.key(1, KEY_A, true)
        m.key(1, KEY_A, false)
        #expect(sink.events == [.keyDown(vk: 0x41), .keyUp(vk: 0x41)])
    }

    @Test func releaseAllLetsGoOfKeysButtonsAndPads() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .keyboard)
        m.add(device: 2, role: .mouse)
        m.add(device: 3, role: xboxPad())
        m.key(1, KEY_A, true)
        m.key(2, EV.btnRight, true)
        m.frame(3, [(EV.key, EV.btnSouth, 1), (EV.abs, EV.absX, 32767)])
        _ = sink.take()
        m.releaseAll()
        let sent = sink.events
        #expect(sent.count == 3)
        #expect(sent[0] == .keyUp(vk: 0x41))
        #expect(sent[1] == .mouseButtonUp(.right))
        let snap = try! #require(GamepadSnapshot(sent[2]))
        #expect(snap.buttons == [] && snap.leftStickX == 0 && snap.pad == 0)
        #expect(m.held.isEmpty)
        // The physical release afterwards is not sent again.
        m.key(1, KEY_A, false)
        m.key(2, EV.btnRight, false)
        #expect(sink.events.count == 3)
    }

    @Test func removingAKeyboardReleasesItsKeys() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .keyboard)
        m.key(1, KEY_LEFTCTRL, true)
        m.remove(device: 1)
        #expect(sink.events == [.keyDown(vk: 0xA2), .keyUp(vk: 0xA2)])
        #expect(m.held.isEmpty)
    }

    @Test func keyboardChordActsOnReleaseAndLeavesNothingHeld() {
        let (m, sink) = mapper()
        var fired = 0
        m.onEscape = { fired += 1 }
        m.add(device: 1, role: .keyboard)
        m.key(1, KEY_LEFTCTRL, true)
        m.key(1, KEY_LEFTALT, true)
        m.key(1, KEY_LEFTSHIFT, true)
        #expect(sink.events == [.keyDown(vk: 0xA2), .keyDown(vk: 0xA4), .keyDown(vk: 0xA0)])
        _ = sink.take()
        m.key(1, EV.keyQ, true)       // arms: the modifiers leave the host, Q never reaches it
        let ups = Set(sink.events)
        #expect(ups == [.keyUp(vk: 0xA2), .keyUp(vk: 0xA4), .keyUp(vk: 0xA0)])
        #expect(m.held.isEmpty)
        _ = sink.take()
        m.key(1, EV.keyQ, false)
        m.key(1, KEY_LEFTSHIFT, false)
        m.key(1, KEY_LEFTALT, false)
        #expect(fired == 0)
        m.key(1, KEY_LEFTCTRL, false)
        #expect(fired == 1)
        #expect(sink.sent.isEmpty)
        // Afterwards the keys are ordinary again.
        m.key(1, KEY_LEFTCTRL, true)
        #expect(sink.events == [.keyDown(vk: 0xA2)])
    }

    @Test func padChordActsOnReleaseAndWithholdsItsButtons() {
        let (m, sink) = mapper()
        var fired = 0
        m.onEscape = { fired += 1 }
        m.add(device: 3, role: xboxPad())
        _ = sink.take()
        m.frame(3, [(EV.key, EV.btnStart, 1), (EV.key, EV.btnSelect, 1), (EV.key, EV.btnTL, 1)])
        #expect(GamepadSnapshot(sink.events.last!)?.buttons == [.start, .back, .leftBumper])
        m.frame(3, [(EV.key, EV.btnTR, 1)])     // armed: the host sees the chord's buttons let go
        #expect(GamepadSnapshot(sink.events.last!)?.buttons == [])
        m.frame(3, [(EV.key, EV.btnSouth, 1)])  // other buttons still go through
        #expect(GamepadSnapshot(sink.events.last!)?.buttons == [.a])
        m.frame(3, [(EV.key, EV.btnStart, 0), (EV.key, EV.btnSelect, 0), (EV.key, EV.btnTL, 0)])
        #expect(fired == 0)
        m.frame(3, [(EV.key, EV.btnTR, 0)])
        #expect(fired == 1)
        #expect(GamepadSnapshot(sink.events.last!)?.buttons == [.a])
    }

    @Test func padSnapshotsCarrySequenceAndNormalisedAxes() {
        let (m, sink) = mapper()
        let t = AxisRange(minimum: 0, maximum: 255)
        let odd = AxisRange(minimum: 0, maximum: 255)
        m.add(device: 3, role: .gamepad(PadDescription(kind: .dualSense, uniq: "aa", layout: .forDevice(vendor: 0x054C),
                                                        ranges: [EV.absX: odd, EV.absY: odd, EV.absRX: odd, EV.absRY: odd,
                                                                 EV.absZ: t, EV.absRZ: t], analogTriggers: true)))
        #expect(sink.take() == [.event(.gamepadArrival(pad: 0, padType: GamepadKind.dualSense.rawValue), reliable: false)])
        m.frame(3, [(EV.abs, EV.absX, 255), (EV.abs, EV.absY, 0), (EV.abs, EV.absZ, 255), (EV.key, EV.btnNorth, 1),
                    (EV.abs, EV.absHat0X, -1)])
        let s = try! #require(GamepadSnapshot(sink.events[0]))
        #expect(s.seq == 1 && s.pad == 0)
        #expect(s.leftStickX == 32767 && s.leftStickY == 32767)    // up is +y on the wire
        #expect(s.leftTrigger == 255 && s.rightTrigger == 0)
        #expect(s.buttons == [.y, .dpadLeft])                     // gamepad.rst north = top = Y
        _ = sink.take()
        m.frame(3, [(EV.abs, EV.absY, 255)])
        #expect(GamepadSnapshot(sink.events[0])?.seq == 2)
        #expect(GamepadSnapshot(sink.events[0])?.leftStickY == -32767)
        // An unchanged frame sends nothing.
        _ = sink.take()
        m.frame(3, [(EV.abs, EV.absY, 255)])
        #expect(sink.sent.isEmpty)
    }

    @Test func refreshResendsTouchedPadsEvery100msAndRepeatsArrivals() {
        let (m, sink) = mapper()
        m.add(device: 3, role: xboxPad())
        m.frame(3, [(EV.key, EV.btnSouth, 1)])
        _ = sink.take()
        m.tick(nowNs: 1_000_000_000)
        m.tick(nowNs: 1_050_000_000)     // not yet
        m.tick(nowNs: 1_100_000_000)
        m.tick(nowNs: 1_200_000_000)
        m.tick(nowNs: 1_300_000_000)
        let ev = sink.events
        let arrivals = ev.filter { $0.kind == .gamepadArrival }.count
        let snaps = ev.compactMap(GamepadSnapshot.init)
        #expect(arrivals == 2)
        #expect(snaps.map(\.seq) == [2, 3, 4, 5])
        #expect(snaps.allSatisfy { $0.buttons == [.a] })
    }

    @Test func withoutTheSnapshotCapPadsSendButtonAndAxisEvents() {
        let (m, sink) = mapper(InputPolicy(gamepadSnapshots: false))
        m.add(device: 3, role: xboxPad())
        _ = sink.take()
        m.frame(3, [(EV.key, EV.btnEast, 1), (EV.abs, EV.absRZ, 1023)])
        #expect(sink.events == [.gamepadButton(.b, pressed: true, pad: 0), .gamepadAxis(.rightTrigger, value: 255, pad: 0)])
    }

    @Test func padRemovalSendsRemoveWithNextSeqAndReplugKeepsTheSlotByUniq() {
        let (m, sink) = mapper()
        m.add(device: 3, role: xboxPad(uniq: "pad-a"))
        m.add(device: 4, role: xboxPad(uniq: "pad-b"))
        #expect(m.slot(of: 3) == 0 && m.slot(of: 4) == 1)
        m.frame(3, [(EV.key, EV.btnSouth, 1)])
        _ = sink.take()
        m.remove(device: 3)
        #expect(sink.events == [.gamepadRemove(pad: 0, seq: 2)])
        #expect(m.held.isEmpty)
        m.add(device: 5, role: xboxPad(uniq: "pad-c"))   // a new pad does not take pad-a's remembered slot
        #expect(m.slot(of: 5) == 2)
        m.add(device: 6, role: xboxPad(uniq: "pad-a"))
        #expect(m.slot(of: 6) == 0)
    }

    @Test func slotsRunOutAtSixteenAndReuseTheOldestMemory() {
        var slots = PadSlotTable()
        for i in 0..<16 { #expect(slots.assign(device: i, uniq: "u\(i)") == i) }
        #expect(slots.assign(device: 99, uniq: nil) == nil)
        slots.release(device: 5)
        slots.release(device: 2)
        #expect(slots.assign(device: 100, uniq: nil) == 5)   // freed longest ago
        #expect(slots.assign(device: 101, uniq: "u2") == 2)
    }

    @Test func grantsDropWhatTheyDoNotAllow() {
        let (m, sink) = mapper(InputPolicy(grants: .controllerOnly))
        m.add(device: 1, role: .keyboard)
        m.add(device: 2, role: .mouse)
        m.add(device: 3, role: xboxPad())
        m.key(1, KEY_A, true)
        m.frame(2, [(EV.rel, EV.relX, 5)])
        m.frame(3, [(EV.key, EV.btnSouth, 1)])
        #expect(sink.events.map(\.kind) == [.gamepadArrival, .gamepadState])
        #expect(m.counters.droppedByGrants == 2)
        #expect(m.counters.eventsSent == 2)
        #expect(m.held.heldKeyCount == 0)
    }

    @Test func aResumeReleasesWhatWasHeldBeforeTheGap() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .keyboard)
        m.key(1, KEY_A, true)
        m.setPolicy(nil)                 // connection lost
        m.key(1, KEY_LEFTCTRL, true)     // not sent: no session
        _ = sink.take()
        m.setPolicy(InputPolicy())       // resumed
        #expect(sink.events == [.keyUp(vk: 0x41)])
        m.key(1, KEY_LEFTCTRL, false)    // its press never went out
        #expect(sink.events.count == 1)
    }

    @Test func dualSenseTouchAndMotionBecomeRichInput() {
        let (m, sink) = mapper(InputPolicy(askedPadKind: .dualSense, resolvedPadKind: .dualSense))
        let r = AxisRange(minimum: 0, maximum: 255)
        m.add(device: 3, role: .gamepad(PadDescription(kind: .dualSense, uniq: "ds", layout: .forDevice(vendor: 0x054C),
                                                        ranges: [EV.absX: r, EV.absY: r, EV.absRX: r, EV.absRY: r, EV.absZ: r, EV.absRZ: r],
                                                        analogTriggers: true)))
        m.add(device: 4, role: .padTouchpad(controller: 3, x: AxisRange(minimum: 0, maximum: 1919), y: AxisRange(minimum: 0, maximum: 1079)))
        let acc = AxisRange(minimum: -32768, maximum: 32767, resolution: 8192)
        let gyr = AxisRange(minimum: -2097152, maximum: 2097152, resolution: 1024)
        m.add(device: 5, role: .padMotion(controller: 3, accel: [acc, acc, acc], gyro: [gyr, gyr, gyr]))
        _ = sink.take()
        m.frame(4, [(EV.abs, EV.absMTSlot, 0), (EV.abs, EV.absMTTrackingID, 7), (EV.abs, EV.absMTPositionX, 1919),
                    (EV.abs, EV.absMTPositionY, 0), (EV.key, EV.btnLeft, 1)])
        let sent = sink.take()
        #expect(GamepadSnapshot(sent.compactMap { if case .event(let e, _) = $0 { e } else { nil } }[0])?.buttons == [.touchpad])
        #expect(sent.last == .rich(.touchpadEx(pad: 0, surface: 0, finger: 0, touching: true, click: true,
                                                x: 32767, y: -32768, pressure: 0)))
        m.frame(5, [(EV.abs, EV.absY, 8192), (EV.abs, EV.absRX, 1024)])
        #expect(sink.take() == [.rich(.motion(pad: 0, gyro: SIMD3(20, 0, 0), accel: SIMD3(0, 10_000, 0)))])
    }

    @Test func axisRangesNormalise() {
        let r = AxisRange(minimum: -128, maximum: 127)
        #expect(r.stick(127) == 32767)
        #expect(r.stick(-128) == -32768)
        #expect(r.stick(0) == 0)
        #expect(AxisRange(minimum: 0, maximum: 255).stick(128) == 0)     // a DualSense stick at rest
        #expect(AxisRange(minimum: 0, maximum: 255).stick(0) == -32768)
        #expect(r.stick(127, invert: true) <= -32767)
        #expect(AxisRange(minimum: 5, maximum: 5).stick(5) == 0)
        #expect(AxisRange(minimum: 0, maximum: 1023).trigger(1023) == 255)
        #expect(AxisRange(minimum: 0, maximum: 1023).trigger(-5) == 0)
    }

    @Test func aFullSinkIsCountedNotFatal() {
        let (m, sink) = mapper()
        sink.refuse = true
        m.add(device: 2, role: .mouse)
        m.frame(2, [(EV.rel, EV.relX, 1)])
        #expect(m.counters.droppedOther == 1)
        #expect(m.counters.eventsSent == 0)
    }

    @Test func aTouchpadMovesThePointerByFingerTravel() {
        let (m, sink) = mapper()
        let r = AxisRange(minimum: 0, maximum: 1000, resolution: 10)   // 10 units per mm
        m.add(device: 7, role: .touchpad(x: r, y: r))
        m.frame(7, [(EV.key, EV.btnTouch, 1), (EV.abs, EV.absX, 100), (EV.abs, EV.absY, 100)])   // lands: no jump
        m.frame(7, [(EV.abs, EV.absX, 110), (EV.abs, EV.absY, 95)])                             // 1 mm right, 0.5 mm up
        m.frame(7, [(EV.key, EV.btnLeft, 1)])
        m.frame(7, [(EV.key, EV.btnLeft, 0), (EV.key, EV.btnTouch, 0)])
        m.frame(7, [(EV.key, EV.btnTouch, 1), (EV.abs, EV.absX, 500), (EV.abs, EV.absY, 500)])   // lands elsewhere: no jump
        #expect(sink.events == [.mouseMove(dx: 8, dy: -4), .mouseButtonDown(.left), .mouseButtonUp(.left)])
    }

    @Test func aWithdrawnGrantReleasesWhatItCoveredFirst() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .keyboard)
        m.key(1, KEY_A, true)
        m.updateGrants(.controllerOnly)
        #expect(sink.take() == [.event(.keyDown(vk: 0x41), reliable: true), .event(.keyUp(vk: 0x41), reliable: true)])
        m.key(1, KEY_A, false)
        m.key(1, KEY_A, true)
        #expect(sink.sent.isEmpty)
        #expect(m.counters.droppedByGrants == 2)   // the later release and press, both under the withdrawn grant
    }

    @Test func aModifierHeldBeforeTheStreamCountsForTheChordButIsNeverSent() {
        let (m, sink) = mapper()
        var fired = 0
        m.onEscape = { fired += 1 }
        m.add(device: 1, role: .keyboard)
        m.seedPressed(device: 1, code: KEY_LEFTSHIFT)
        m.key(1, KEY_LEFTCTRL, true)
        m.key(1, KEY_LEFTALT, true)
        m.key(1, EV.keyQ, true)
        m.key(1, EV.keyQ, false)
        m.key(1, KEY_LEFTSHIFT, false)
        m.key(1, KEY_LEFTALT, false)
        m.key(1, KEY_LEFTCTRL, false)
        #expect(fired == 1)
        let sent = sink.events
        #expect(Array(sent.prefix(2)) == [.keyDown(vk: 0xA2), .keyDown(vk: 0xA4)])
        #expect(Set(sent.dropFirst(2)) == [.keyUp(vk: 0xA2), .keyUp(vk: 0xA4)] && sent.count == 4)
    }

    @Test func aPadButtonHeldBeforeTheStreamIsNotSentUntilPressedAgain() {
        let (m, sink) = mapper()
        m.add(device: 3, role: xboxPad())
        m.seedPad(device: 3, events: [(EV.key, EV.btnSouth, 1), (EV.abs, EV.absX, 32767)])
        _ = sink.take()
        m.frame(3, [(EV.key, EV.btnEast, 1)])
        #expect(GamepadSnapshot(sink.events.last!)?.buttons == [.b])          // A stays out; the stick is as it is
        #expect(GamepadSnapshot(sink.events.last!)?.leftStickX == 32767)
        m.frame(3, [(EV.key, EV.btnSouth, 0)])                                // its release: nothing held on the host
        m.frame(3, [(EV.key, EV.btnSouth, 1)])                                // a press in the stream goes out
        #expect(GamepadSnapshot(sink.events.last!)?.buttons == [.a, .b])
    }
}
