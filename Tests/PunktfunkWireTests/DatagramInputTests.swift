import Testing
@testable import PunktfunkWire

/// The 18-byte 0xC8 event and 0xCC rich input, data-plane.md §6.2–§6.3.
@Suite struct DatagramInputTests {
    @Test func layoutIsTagKindCodeXYFlagsLittleEndian() throws {
        let e = InputEvent(kind: .mouseMove, code: 0x0403_0201, x: -2, y: 0x0A0B_0C0D, flags: 0xABCD)
        #expect(e.encoded == hex("c8 02 01020304 feffffff 0d0c0b0a cdab0000"))
        #expect(e.encoded.count == InputEvent.encodedLength)
        #expect(try InputEvent(decoding: e.encoded) == e)
    }

    @Test func everyKindHasItsWireByte() {
        #expect(InputEventKind.allCases.map(\.rawValue) == Array(0...16))
    }

    @Test func convenienceConstructorsPackPerTheTable() {
        #expect(InputEvent.keyDown(vk: 0x41).encoded == hex("c8 00 41000000 00000000 00000000 00000000"))
        #expect(InputEvent.keyUp(vk: 0xA0) == InputEvent(kind: .keyUp, code: 0xA0))
        #expect(InputEvent.mouseMove(dx: -5, dy: 7) == InputEvent(kind: .mouseMove, x: -5, y: 7))
        let abs = InputEvent.mouseMoveAbs(x: 640, y: 360, referenceWidth: 1280, referenceHeight: 720)
        #expect(abs.flags == 1280 << 16 | 720)
        #expect(abs.referenceSize == (1280, 720))
        #expect(InputEvent.mouseButtonDown(.x2) == InputEvent(kind: .mouseButtonDown, code: 5))
        #expect(InputEvent.mouseButtonUp(.left) == InputEvent(kind: .mouseButtonUp, code: 1))
        #expect(InputEvent.mouseScroll(axis: .vertical, delta: 120) == InputEvent(kind: .mouseScroll, x: 120))
        #expect(InputEvent.mouseScroll(axis: .horizontal, delta: -36, precise: true)
            == InputEvent(kind: .mouseScroll, code: 1, x: -36, flags: 1))
        #expect(InputEvent.gamepadButton(.a, pressed: true, pad: 2) == InputEvent(kind: .gamepadButton, code: 0x1000, x: 1, flags: 2))
        #expect(InputEvent.gamepadButton(.guide, pressed: false, pad: 0).x == 0)
        #expect(InputEvent.gamepadAxis(.rightTrigger, value: 255, pad: 1) == InputEvent(kind: .gamepadAxis, code: 5, x: 255, flags: 1))
        #expect(InputEvent.touchDown(id: 2, x: 10, y: 20, surfaceWidth: 1920, surfaceHeight: 1080)
            == InputEvent(kind: .touchDown, code: 2, x: 10, y: 20, flags: 1920 << 16 | 1080))
        #expect(InputEvent.touchMove(id: 2, x: 11, y: 21, surfaceWidth: 1, surfaceHeight: 2).kind == .touchMove)
        #expect(InputEvent.touchUp(id: 9) == InputEvent(kind: .touchUp, code: 9))
        #expect(InputEvent.gamepadRemove(pad: 3, seq: 200) == InputEvent(kind: .gamepadRemove, flags: 200 << 24 | 3))
        #expect(InputEvent.gamepadArrival(pad: 2, padType: 2, hasHaptics: true, hasSpeaker: true)
            == InputEvent(kind: .gamepadArrival, code: 2, flags: 2 | 0x100 | 0x200))
        #expect(InputEvent.gamepadArrival(pad: 5, padType: 0).flags == 5)
        #expect(InputEvent.textInput("語") == InputEvent(kind: .textInput, code: 0x8A9E))
        #expect(InputEvent.textInput("\u{1F600}").code == 0x1F600)
        let scroll = ScrollEvent(source: .finger, phase: .update, axis: .vertical, delta: -7 * 256)
        #expect(InputEvent.scroll(scroll) == InputEvent(kind: .scroll, code: 0, x: -1792, flags: 2 | 2 << 8))
    }

    @Test func gamepadStatePacking() throws {
        let s = GamepadSnapshot(pad: 3, seq: 200, buttons: [.a, .paddle4, .misc1], leftTrigger: 255, rightTrigger: 1,
                                leftStickX: -32768, leftStickY: 32767, rightStickX: -1, rightStickY: 12345)
        let e = InputEvent.gamepadState(s)
        #expect(e.kind == .gamepadState)
        #expect(e.code == 0x1000 | 0x8_0000 | 0x20_0000)
        #expect(UInt32(bitPattern: e.x) == 0x8000_7FFF)
        #expect(UInt32(bitPattern: e.y) == 0xFFFF_3039)
        #expect(e.flags == 200 << 24 | 255 << 16 | 1 << 8 | 3)
        #expect(GamepadSnapshot(try InputEvent(decoding: e.encoded)) == s)
        #expect(GamepadSnapshot(InputEvent.gamepadAxis(.leftTrigger, value: 255, pad: 0)) == nil)
    }

    @Test func decoderRequiresEighteenBytesAndIgnoresTheRest() throws {
        let e = InputEvent.keyDown(vk: 0x41).encoded
        for n in 0..<18 {
            #expect(throws: WireError.self) { try InputEvent(decoding: Array(e.prefix(n))) }
        }
        #expect(try InputEvent(decoding: e + [0xFF, 0xFF]) == .keyDown(vk: 0x41))
    }

    @Test func decoderRejectsUnknownKindsAndWrongTags() {
        #expect(throws: WireError.malformed("input kind 17")) {
            try InputEvent(decoding: hex("c8 11 00000000 00000000 00000000 00000000"))
        }
        #expect(throws: WireError.wrongTag(expected: 0xC8, found: 0)) { try InputEvent(decoding: [UInt8](repeating: 0, count: 18)) }
    }

    @Test func decoderValidatesTheScrollBody() throws {
        let ok = ScrollEvent(source: .wheel, phase: .none, axis: .vertical, delta: 120 * 256).event
        #expect(try InputEvent(decoding: ok.encoded) == ok)
        for bad in [
            InputEvent(kind: .scroll, code: 2, x: 1, flags: 1),               // axis 2
            InputEvent(kind: .scroll, code: 0, x: 1, y: 1, flags: 1),         // y ≠ 0
            InputEvent(kind: .scroll, code: 0, x: 1, flags: 1 | 0x1_0000),    // reserved flag bits
            InputEvent(kind: .scroll, code: 0, x: 1, flags: 6),               // source 6
            InputEvent(kind: .scroll, code: 0, x: 1, flags: 2 | 8 << 8),      // phase 8
            InputEvent(kind: .scroll, code: 0, x: 1, flags: 2 | 3 << 8),      // stop with distance
            InputEvent(kind: .scroll, code: 0, x: 1, flags: 1 | 2 << 8),      // wheel with a phase
            InputEvent(kind: .scroll, code: 0, x: 1, flags: 5 | 6 << 8),      // controller momentum
        ] {
            #expect(throws: WireError.self) { try InputEvent(decoding: bad.encoded) }
        }
    }

    @Test func inputRoundTripProperty() throws {
        var g = SplitMix64(seed: 0xC8)
        for _ in 0..<3_000 {
            let e = g.inputEvent()
            #expect(try InputEvent(decoding: e.encoded) == e)
        }
    }

    // MARK: rich input

    @Test func richInputLayouts() throws {
        let touch = RichInput.touchpad(pad: 1, finger: 0, active: true, x: 40000, y: 12345)
        #expect(touch.encoded == hex("cc 01 01 00 01 409c 3930"))
        let motion = RichInput.motion(pad: 0, gyro: SIMD3(-100, 200, -300), accel: Gamepad.neutralAccel)
        #expect(motion.encoded == hex("cc 02 00 9cff c800 d4fe 0000 1027 0000"))
        let ex = RichInput.touchpadEx(pad: 2, surface: 1, finger: 1, touching: true, click: true,
                                      x: -12345, y: 30000, pressure: 4000)
        #expect(ex.encoded == hex("cc 03 02 01 01 03 c7cf 3075 a00f"))
        #expect(RichInput.hidReport(pad: 3, data: [0x42, 1, 2]).encoded == hex("cc 04 03 03 420102"))
        #expect(RichInput.pen([9, 8, 7]).encoded == hex("cc 05 090807"))
        for v in [touch, motion, ex] { #expect(try RichInput(decoding: v.encoded + [0xEE]) == v) }
    }

    @Test func richInputMinimumLengthsAndClamps() throws {
        let minimum: [(RichInput, Int)] = [
            (.touchpad(pad: 0, finger: 0, active: false, x: 0, y: 0), 9),
            (.motion(pad: 0, gyro: .zero, accel: .zero), 15),
            (.touchpadEx(pad: 0, surface: 0, finger: 0, touching: false, click: false, x: 0, y: 0, pressure: 0), 12),
        ]
        for (v, len) in minimum {
            #expect(v.encoded.count == len)
            for n in 0..<len { #expect(throws: WireError.self) { try RichInput(decoding: Array(v.encoded.prefix(n))) } }
        }
        // A torn HID report truncates to what arrived; an over-long declared length is clamped.
        let report = RichInput.hidReport(pad: 3, data: Array(0..<46))
        #expect(try RichInput(decoding: Array(report.encoded.prefix(20))) == .hidReport(pad: 3, data: Array(0..<16)))
        #expect(try RichInput(decoding: hex("cc 04 00 ff") + [UInt8](repeating: 7, count: 100))
            == .hidReport(pad: 0, data: [UInt8](repeating: 7, count: 64)))
        #expect(RichInput.hidReport(pad: 0, data: [UInt8](repeating: 1, count: 100)).encoded.count == 4 + 64)
        // Unknown state bits drop; unknown kinds throw.
        #expect(try RichInput(decoding: hex("cc 03 00 00 00 fd 0000 0000 0000"))
            == .touchpadEx(pad: 0, surface: 0, finger: 0, touching: true, click: false, x: 0, y: 0, pressure: 0))
        #expect(throws: WireError.malformed("rich input kind 127")) { try RichInput(decoding: [0xCC, 0x7F]) }
        #expect(throws: WireError.self) { try RichInput(decoding: InputEvent.keyDown(vk: 1).encoded) }
    }

    @Test func richInputRoundTripProperty() throws {
        var g = SplitMix64(seed: 0xCC)
        for _ in 0..<2_000 {
            let v = g.richInput()
            #expect(try RichInput(decoding: v.encoded) == v)
            decodeEveryPrefix(v.encoded) { b throws(WireError) in _ = try RichInput(decoding: b) }
        }
    }
}
