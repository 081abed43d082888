import Input
import PunktfunkWire
import Testing

/// An absolute pointing device (a tablet, a touchscreen, QEMU's usb-tablet) through the mapper:
/// positions as MouseMoveAbs on the device's own range while the host's pointer is free
/// (data-plane.md §6.2 kind 3: x, y on a `(ref_w << 16) | ref_h` reference surface), and motion as
/// MouseMove while the host has captured it (0xD0's relative-mode hint, §7.3).
@Suite struct AbsolutePointerTests {
    /// QEMU's usb-tablet: ABS_X/ABS_Y 0…32767 (hw/input/hid.c), reported by hid-generic as is.
    let tablet = DeviceRole.absolutePointer(x: AxisRange(minimum: 0, maximum: 32767), y: AxisRange(minimum: 0, maximum: 32767))

    func mapper(hostWidth: Int = 1920, hostHeight: Int = 1080) -> (InputMapper, RecordingSink) {
        let sink = RecordingSink()
        let m = InputMapper(sink: sink)
        m.setPolicy(InputPolicy(hostWidth: hostWidth, hostHeight: hostHeight))
        return (m, sink)
    }

    @Test func aFreePointerGoesWhereTheDeviceIsOnItsOwnRange() {
        let (m, sink) = mapper()
        m.add(device: 3, role: tablet)
        m.frame(3, [(EV.abs, EV.absX, 16384), (EV.abs, EV.absY, 8192)])
        m.frame(3, [(EV.abs, EV.absX, 32767)])                       // y unchanged: still sent whole
        m.frame(3, [(EV.abs, EV.absY, 40000)])                       // past the range: clamped into it
        #expect(sink.events == [.mouseMoveAbs(x: 16384, y: 8192, referenceWidth: 32768, referenceHeight: 32768),
                                .mouseMoveAbs(x: 32767, y: 8192, referenceWidth: 32768, referenceHeight: 32768),
                                .mouseMoveAbs(x: 32767, y: 32767, referenceWidth: 32768, referenceHeight: 32768)])
        // The wire form: kind 3, flags = (ref_w << 16) | ref_h.
        #expect(sink.events[0].kind == .mouseMoveAbs)
        #expect(sink.events[0].flags == 32768 << 16 | 32768)
    }

    @Test func aRangeOffZeroAndOneWiderThanAU16AreOnTheirReference() {
        let (m, sink) = mapper()
        m.add(device: 1, role: .absolutePointer(x: AxisRange(minimum: -100, maximum: 99), y: AxisRange(minimum: 0, maximum: 262_143)))
        m.frame(1, [(EV.abs, EV.absX, -100), (EV.abs, EV.absY, 131_072)])
        // x: 200 values from −100 → 0 of 200; y: 262 144 values → scaled to 65 535: 131 072 · 65 535 / 262 144.
        #expect(sink.events == [.mouseMoveAbs(x: 0, y: 32767, referenceWidth: 200, referenceHeight: 65535)])
    }

    @Test func aCapturedPointerGetsTheMotionSpreadOverTheHostsScreen() {
        let (m, sink) = mapper(hostWidth: 1920, hostHeight: 1080)
        m.add(device: 3, role: tablet)
        m.seedPosition(device: 3, x: 16384, y: 16384)
        m.setPointerCaptured(true)
        m.frame(3, [(EV.abs, EV.absX, 16384 + 3277), (EV.abs, EV.absY, 16384 - 3277)])   // a tenth of the range each way
        m.frame(3, [(EV.abs, EV.absX, 16384 + 3277 + 10)])                               // 0.59 px: carried
        m.frame(3, [(EV.abs, EV.absX, 16384 + 3277 + 20)])                               // 1.17 px in all: 1 sent
        // 3277 · 1920 / 32767 = 192.01 → 192; 3277 · 1080 / 32767 = 108.006 → −108.
        #expect(sink.events == [.mouseMove(dx: 192, dy: -108), .mouseMove(dx: 1, dy: 0)])
        m.setPointerCaptured(false)
        m.frame(3, [(EV.abs, EV.absX, 0), (EV.abs, EV.absY, 0)])
        #expect(sink.events.last == .mouseMoveAbs(x: 0, y: 0, referenceWidth: 32768, referenceHeight: 32768))
    }

    @Test func theFirstMotionOfAnUnseededDeviceIsNotAJumpWhenCaptured() {
        let (m, sink) = mapper()
        m.add(device: 3, role: tablet)
        m.setPointerCaptured(true)
        m.frame(3, [(EV.abs, EV.absX, 30000), (EV.abs, EV.absY, 30000)])
        #expect(sink.events.isEmpty)
        m.frame(3, [(EV.abs, EV.absX, 30000 - 32767 / 1920)])                            // 17 units: 0.996 px, carried
        m.frame(3, [(EV.abs, EV.absX, 30000 - 2 * (32767 / 1920))])
        #expect(sink.events == [.mouseMove(dx: -1, dy: 0)])
    }

    @Test func touchTipAndStylusButtonsClickAndTheDeviceLeavingReleasesThem() {
        let (m, sink) = mapper()
        m.add(device: 4, role: tablet)
        m.frame(4, [(EV.key, EV.btnTouch, 1), (EV.abs, EV.absX, 100), (EV.abs, EV.absY, 200)])
        m.frame(4, [(EV.key, EV.btnStylus, 1)])
        m.frame(4, [(EV.key, EV.btnStylus, 0), (EV.key, EV.btnStylus2, 1)])
        m.remove(device: 4)
        #expect(sink.events == [.mouseMoveAbs(x: 100, y: 200, referenceWidth: 32768, referenceHeight: 32768),
                                .mouseButtonDown(.left), .mouseButtonDown(.right), .mouseButtonUp(.right),
                                .mouseButtonDown(.middle), .mouseButtonUp(.left), .mouseButtonUp(.middle)])
    }

    @Test func aTouchpadsTouchIsStillNotAClick() {
        let (m, sink) = mapper()
        let r = AxisRange(minimum: 0, maximum: 1000, resolution: 10)
        m.add(device: 7, role: .touchpad(x: r, y: r))
        m.frame(7, [(EV.key, EV.btnTouch, 1), (EV.abs, EV.absX, 100), (EV.abs, EV.absY, 100)])
        m.frame(7, [(EV.key, EV.btnTouch, 0)])
        #expect(sink.events.isEmpty)
    }

    @Test func nothingGoesOutWithoutAPolicyOrThePointerGrant() {
        let (m, sink) = mapper()
        m.add(device: 3, role: tablet)
        m.updateGrants(.controllerOnly)
        m.frame(3, [(EV.abs, EV.absX, 5), (EV.key, EV.btnLeft, 1)])
        m.setPolicy(nil)
        m.frame(3, [(EV.abs, EV.absX, 6)])
        #expect(sink.events.isEmpty)
    }
}
