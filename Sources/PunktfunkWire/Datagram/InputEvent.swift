/// Input event kinds of the 18-byte 0xC8 event (data-plane.md §6.2).
public enum InputEventKind: UInt8, Sendable, CaseIterable {
    /// `code` = Windows VK.
    case keyDown = 0
    case keyUp = 1
    /// Relative: `x`/`y` = dx/dy.
    case mouseMove = 2
    /// Absolute: `x`/`y` px on a reference surface, `flags` = `ref_w << 16 | ref_h` (0 ⇒ dropped).
    case mouseMoveAbs = 3
    /// `code` = `MouseButton`.
    case mouseButtonDown = 4
    case mouseButtonUp = 5
    /// Legacy scroll: `code` = axis, `x` = v120 delta, `flags` = 1 if pixel-derived (precise).
    case mouseScroll = 6
    /// `code` = one `GamepadButtons` bit, `x` ≠ 0 pressed, `flags` = pad.
    case gamepadButton = 7
    /// `code` = `GamepadAxis`, `x` = value, `flags` = pad.
    case gamepadAxis = 8
    /// `code` = touch id, `x`/`y` px, `flags` = `w << 16 | h`.
    case touchDown = 9
    case touchMove = 10
    /// `code` = touch id.
    case touchUp = 11
    /// Whole pad (`GamepadSnapshot`).
    case gamepadState = 12
    /// `flags` = `seq << 24 | pad`.
    case gamepadRemove = 13
    /// `code` = pad type (GamepadPref byte), `flags` = `pad | 0x100 haptics | 0x200 speaker`.
    case gamepadArrival = 14
    /// `code` = one Unicode scalar.
    case textInput = 15
    /// Normalized scroll (`ScrollEvent`).
    case scroll = 16
}

/// Mouse button ids (GameStream numbering) for kinds 4/5.
public enum MouseButton: UInt32, Sendable, CaseIterable {
    case left = 1
    case middle = 2
    case right = 3
    case x1 = 4
    case x2 = 5
}

/// The 18-byte input event, tag 0xC8 (data-plane.md §6.2):
/// `C8 ‖ kind u8 ‖ code u32 ‖ x i32 ‖ y i32 ‖ flags u32`, all little-endian. Fields a kind does
/// not use are 0. punktfunk/2 sends it in kind 0x02 datagrams (`ClientDatagram.input`) or, for
/// key edges, as the body of control frame 0x50.
///
/// Decoding requires at least 18 bytes (bytes past 18 are ignored), a known kind, and for
/// kind 16 a well-formed `ScrollEvent` body. Other kinds are not range-checked: the host owns
/// their semantics.
public struct InputEvent: TaggedDatagram, Hashable {
    public static let tag: UInt8 = 0xC8
    /// `INPUT_WIRE_LEN`.
    public static let encodedLength = 18

    public var kind: InputEventKind
    public var code: UInt32
    public var x: Int32
    public var y: Int32
    public var flags: UInt32

    public init(kind: InputEventKind, code: UInt32 = 0, x: Int32 = 0, y: Int32 = 0, flags: UInt32 = 0) {
        self.kind = kind
        self.code = code
        self.x = x
        self.y = y
        self.flags = flags
    }

    public func encode(into w: inout WireWriter) {
        w.writeByte(Self.tag)
        w.writeByte(kind.rawValue)
        w.writeLE(code)
        w.writeLE(x)
        w.writeLE(y)
        w.writeLE(flags)
    }

    public static func decode(from r: inout WireReader) throws(WireError) -> InputEvent {
        try r.readTag(tag)
        try r.need(encodedLength - 1)
        let rawKind = try r.readByte()
        guard let kind = InputEventKind(rawValue: rawKind) else { throw .malformed("input kind \(rawKind)") }
        let ev = InputEvent(kind: kind, code: try r.readLE(), x: try r.readLE(), y: try r.readLE(), flags: try r.readLE())
        if kind == .scroll { _ = try ScrollEvent(ev) }
        return ev
    }

    /// `(w << 16) | h` of kinds 3, 9, 10: the reference surface the coordinates are on.
    public var referenceSize: (width: UInt16, height: UInt16) {
        (UInt16(truncatingIfNeeded: flags >> 16), UInt16(truncatingIfNeeded: flags))
    }
}

// Convenience constructors, one per kind (data-plane.md §6.2 table).
extension InputEvent {
    public static func keyDown(vk: UInt8) -> InputEvent { InputEvent(kind: .keyDown, code: UInt32(vk)) }
    public static func keyUp(vk: UInt8) -> InputEvent { InputEvent(kind: .keyUp, code: UInt32(vk)) }

    public static func mouseMove(dx: Int32, dy: Int32) -> InputEvent { InputEvent(kind: .mouseMove, x: dx, y: dy) }

    /// `x`/`y` in px of a `referenceWidth` × `referenceHeight` surface; the host drops size 0.
    public static func mouseMoveAbs(x: Int32, y: Int32, referenceWidth: UInt16, referenceHeight: UInt16) -> InputEvent {
        InputEvent(kind: .mouseMoveAbs, x: x, y: y, flags: packSize(referenceWidth, referenceHeight))
    }

    public static func mouseButtonDown(_ button: MouseButton) -> InputEvent {
        InputEvent(kind: .mouseButtonDown, code: button.rawValue)
    }

    public static func mouseButtonUp(_ button: MouseButton) -> InputEvent {
        InputEvent(kind: .mouseButtonUp, code: button.rawValue)
    }

    /// Legacy scroll: `delta` in 120-per-detent units, + = up/right; `precise` marks a
    /// pixel-derived delta (`x = pixels × 12`).
    public static func mouseScroll(axis: ScrollAxis, delta: Int32, precise: Bool = false) -> InputEvent {
        InputEvent(kind: .mouseScroll, code: axis.rawValue, x: delta, flags: precise ? 1 : 0)
    }

    /// `button` should be a single bit.
    public static func gamepadButton(_ button: GamepadButtons, pressed: Bool, pad: UInt8) -> InputEvent {
        InputEvent(kind: .gamepadButton, code: button.rawValue, x: pressed ? 1 : 0, flags: UInt32(pad))
    }

    public static func gamepadAxis(_ axis: GamepadAxis, value: Int32, pad: UInt8) -> InputEvent {
        InputEvent(kind: .gamepadAxis, code: axis.rawValue, x: value, flags: UInt32(pad))
    }

    public static func touchDown(id: UInt32, x: Int32, y: Int32, surfaceWidth: UInt16, surfaceHeight: UInt16) -> InputEvent {
        InputEvent(kind: .touchDown, code: id, x: x, y: y, flags: packSize(surfaceWidth, surfaceHeight))
    }

    public static func touchMove(id: UInt32, x: Int32, y: Int32, surfaceWidth: UInt16, surfaceHeight: UInt16) -> InputEvent {
        InputEvent(kind: .touchMove, code: id, x: x, y: y, flags: packSize(surfaceWidth, surfaceHeight))
    }

    public static func touchUp(id: UInt32) -> InputEvent { InputEvent(kind: .touchUp, code: id) }

    public static func gamepadState(_ snapshot: GamepadSnapshot) -> InputEvent { snapshot.event }

    /// `seq` shares the pad's snapshot sequence space (send `last + 1`).
    public static func gamepadRemove(pad: UInt8, seq: UInt8) -> InputEvent {
        InputEvent(kind: .gamepadRemove, flags: UInt32(seq) << 24 | UInt32(pad))
    }

    /// `padType` is the GamepadPref wire byte (0 Auto, 2 DualSense, …). The audio bits go only
    /// to hosts with `HOST_CAP_PAD_AUDIO`.
    public static func gamepadArrival(pad: UInt8, padType: UInt8, hasHaptics: Bool = false,
                                      hasSpeaker: Bool = false) -> InputEvent {
        InputEvent(kind: .gamepadArrival, code: UInt32(padType),
                   flags: UInt32(pad) | (hasHaptics ? 0x100 : 0) | (hasSpeaker ? 0x200 : 0))
    }

    public static func textInput(_ scalar: Unicode.Scalar) -> InputEvent {
        InputEvent(kind: .textInput, code: scalar.value)
    }

    public static func scroll(_ event: ScrollEvent) -> InputEvent { event.event }

    private static func packSize(_ w: UInt16, _ h: UInt16) -> UInt32 { UInt32(w) << 16 | UInt32(h) }
}
