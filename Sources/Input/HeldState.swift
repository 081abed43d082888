import PunktfunkWire

/// What the host holds down because of us: keys (by VK), mouse buttons and each pad's
/// non-neutral state, as *sent*. Pure bookkeeping, no I/O, no allocation after init.
///
/// Rules ("nothing left held, ever"):
/// - a release is sent only for what was sent pressed: a key already down when the stream
///   started (its press never went out) is not released without its press;
/// - `releaseAll` yields a key-up for every held key, a button-up for every held mouse button
///   and a neutral state for every pad that is not neutral, and forgets them.
public struct HeldState: Sendable, Equatable {
    /// 256 VK bits.
    private var keys: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// Bit `n` = GameStream mouse button `n` (1…5).
    private var mouseButtons: UInt8 = 0
    /// Per pad slot (0..<16): the last state sent.
    public private(set) var pads: [PadWireState]

    public init() { pads = Array(repeating: PadWireState(), count: Gamepad.maxPads) }

    public func isHeld(vk: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(vk & 63)
        switch vk >> 6 {
        case 0: return keys.0 & bit != 0
        case 1: return keys.1 & bit != 0
        case 2: return keys.2 & bit != 0
        default: return keys.3 & bit != 0
        }
    }

    private mutating func setKey(_ vk: UInt8, _ down: Bool) {
        let bit = UInt64(1) << UInt64(vk & 63)
        switch vk >> 6 {
        case 0: keys.0 = down ? keys.0 | bit : keys.0 & ~bit
        case 1: keys.1 = down ? keys.1 | bit : keys.1 & ~bit
        case 2: keys.2 = down ? keys.2 | bit : keys.2 & ~bit
        default: keys.3 = down ? keys.3 | bit : keys.3 & ~bit
        }
    }

    /// Records a key edge about to be sent. - Returns: whether it goes out (a press of a held
    /// key and a release of a key not held do not).
    public mutating func key(vk: UInt8, down: Bool) -> Bool {
        guard isHeld(vk: vk) != down else { return false }
        setKey(vk, down)
        return true
    }

    public var heldKeyCount: Int {
        keys.0.nonzeroBitCount + keys.1.nonzeroBitCount + keys.2.nonzeroBitCount + keys.3.nonzeroBitCount
    }

    /// Records a mouse button edge. - Returns: whether it goes out.
    public mutating func mouseButton(_ button: MouseButton, down: Bool) -> Bool {
        let bit = UInt8(1) << UInt8(button.rawValue)
        guard (mouseButtons & bit != 0) != down else { return false }
        mouseButtons = down ? mouseButtons | bit : mouseButtons & ~bit
        return true
    }

    public func isHeld(_ button: MouseButton) -> Bool { mouseButtons & (1 << UInt8(button.rawValue)) != 0 }

    /// Records the state sent for `pad`.
    public mutating func pad(_ pad: Int, sent state: PadWireState) {
        guard pads.indices.contains(pad) else { return }
        pads[pad] = state
    }

    /// Whether nothing at all is held.
    public var isEmpty: Bool {
        heldKeyCount == 0 && mouseButtons == 0 && pads.allSatisfy(\.isNeutral)
    }

    /// The events that let go of everything, in a fixed order (keys by VK, mouse buttons, pads
    /// by slot), and forgets it all. Pads come back as neutral states (`PadWireState()`), for
    /// the caller to send as a snapshot or as per-button/axis events.
    public mutating func releaseAll() -> (keys: [UInt8], mouseButtons: [MouseButton], pads: [Int]) {
        var keyUps: [UInt8] = []
        for vk in 0...255 where isHeld(vk: UInt8(vk)) { keyUps.append(UInt8(vk)) }
        let buttons = MouseButton.allCases.filter { isHeld($0) }
        let padSlots = pads.indices.filter { !pads[$0].isNeutral }
        keys = (0, 0, 0, 0)
        mouseButtons = 0
        for i in padSlots { pads[i] = PadWireState() }
        return (keyUps, buttons, padSlots)
    }

    public static func == (a: HeldState, b: HeldState) -> Bool {
        a.keys == b.keys && a.mouseButtons == b.mouseButtons && a.pads == b.pads
    }
}

/// One pad as the wire sees it: buttons, sticks (i16, +y up) and triggers (0…255).
public struct PadWireState: Sendable, Equatable {
    public var buttons: GamepadButtons = []
    public var leftStickX: Int16 = 0
    public var leftStickY: Int16 = 0
    public var rightStickX: Int16 = 0
    public var rightStickY: Int16 = 0
    public var leftTrigger: UInt8 = 0
    public var rightTrigger: UInt8 = 0

    public init() {}

    public var isNeutral: Bool { self == PadWireState() }

    /// Axis value by wire axis id (sticks widened, triggers 0…255).
    public func axis(_ a: GamepadAxis) -> Int32 {
        switch a {
        case .leftStickX: Int32(leftStickX)
        case .leftStickY: Int32(leftStickY)
        case .rightStickX: Int32(rightStickX)
        case .rightStickY: Int32(rightStickY)
        case .leftTrigger: Int32(leftTrigger)
        case .rightTrigger: Int32(rightTrigger)
        }
    }

    public func snapshot(pad: UInt8, seq: UInt8) -> GamepadSnapshot {
        GamepadSnapshot(pad: pad, seq: seq, buttons: buttons, leftTrigger: leftTrigger, rightTrigger: rightTrigger,
                        leftStickX: leftStickX, leftStickY: leftStickY, rightStickX: rightStickX, rightStickY: rightStickY)
    }
}
