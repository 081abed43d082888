import PunktfunkWire

extension InputMapper {
    /// One device's fold state between SYN_REPORTs and what it holds. Storage is sized at
    /// init; folding an event allocates nothing.
    public final class Device {
        public let role: DeviceRole
        /// Wire slot of a pad.
        public internal(set) var slot: Int?

        // Keys and buttons of this frame, in order (keyboard, mouse, touchpad).
        static let edgeCapacity = 64
        var edges = [(code: UInt16, down: Bool)](repeating: (0, false), count: edgeCapacity)
        var edgeCount = 0
        /// The TV remote: its media keys map too (`CECRemoteKeys.mediaVK`).
        var mediaKeys = false
        /// VKs this keyboard has down (physically, as mapped).
        var keysDown = Set<UInt8>(minimumCapacity: 256)
        /// Mouse buttons this device has down, bit = GameStream id.
        var buttonsDown: UInt8 = 0

        // Mouse
        var dx: Int32 = 0, dy: Int32 = 0
        var wheel: Int32 = 0, hwheel: Int32 = 0, wheelHiRes: Int32 = 0, hwheelHiRes: Int32 = 0
        var hasHiRes = false
        var scroll = ScrollAccumulator()

        // Touchpad and absolute pointer: the position now and at the last frame.
        var absX: Int32 = 0, absY: Int32 = 0, lastX: Int32 = 0, lastY: Int32 = 0
        var absXSeen = false, absYSeen = false, touchDown = false, hadPosition = false
        /// Absolute pointer: host pixels of motion not yet sent (under one).
        var carryX = 0.0, carryY = 0.0

        // Pad
        var padState = PadWireState()
        /// Buttons the escape chord saw last.
        var physicalSeen: GamepadButtons = []
        /// Buttons held back from the host (the armed chord's).
        var withheld: GamepadButtons = []
        /// Buttons that were down when the pad came into use, until each is released.
        var heldAtStart: GamepadButtons = []
        var chord = EscapeChord.pad
        /// A sibling (touchpad click) changed the pad's buttons this frame.
        var pendingFromSibling = false

        // Pad touch surface: multi-touch slots.
        static let touchSlots = 4
        struct Touch { var id: Int32 = -1; var x: Int32 = 0; var y: Int32 = 0 }
        var touches = [Touch](repeating: Touch(), count: touchSlots)
        var touchSlot = 0
        /// Bit per slot changed this frame.
        var touchChanged: UInt8 = 0

        // Motion: accel x y z, gyro x y z (raw).
        var motion = [Int32](repeating: 0, count: 6)
        var motionChanged = false

        init(role: DeviceRole) { self.role = role }

        func pushEdge(code: UInt16, down: Bool) {
            // A frame longer than the buffer keeps its last edge slot for the newest (a key
            // storm within one SYN frame is not a person).
            if edgeCount < Self.edgeCapacity { edgeCount += 1 }
            edges[edgeCount - 1] = (code, down)
        }

        func touch(code: UInt16, value: Int32) {
            switch code {
            case EV.absMTSlot: touchSlot = Int(value)
            case EV.absMTTrackingID, EV.absMTPositionX, EV.absMTPositionY:
                guard touches.indices.contains(touchSlot) else { return }
                if code == EV.absMTTrackingID { touches[touchSlot].id = value }
                else if code == EV.absMTPositionX { touches[touchSlot].x = value }
                else { touches[touchSlot].y = value }
                touchChanged |= 1 << UInt8(touchSlot)
            default: break
            }
        }

        /// SYN_DROPPED: the partial frame is void (the resync feeds the real state).
        func discardFrame() {
            edgeCount = 0
            dx = 0; dy = 0; wheel = 0; hwheel = 0; wheelHiRes = 0; hwheelHiRes = 0
        }
    }
}
