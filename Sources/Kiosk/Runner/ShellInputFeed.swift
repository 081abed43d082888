import Input
import Shell

/// The shell route's navigation turned into the machine's events, as pure state: key presses →
/// `.navigate`, a held direction's auto-repeat (`KeyRepeat`), the glyphs of the device in hand,
/// and the pointer (panel pixels, clamped to the mode; motion coalesced to at most one
/// `.pointer(.moved)` per `motionIntervalNs`). No clock: the caller passes `now`, and calls
/// `tick(now:)` at `nextDeadline` — the input loop does, so a repeat fires whatever the runner's
/// thread is doing.
struct ShellInputFeed {
    /// Pointer moves are posted at most this often (a 1000 Hz mouse does not flood the queue),
    /// ns; the last position of a burst is posted at the end of its interval.
    static let motionIntervalNs: UInt64 = 8_000_000

    private(set) var glyphs: GlyphSet = .xbox
    private(set) var pointerX = 0, pointerY = 0
    private(set) var width = 1920, height = 1080
    private var keyRepeat = KeyRepeat()
    private var lastMotionNs: UInt64 = 0
    /// A moved pointer not yet posted is due then.
    private var motionDueNs: UInt64?

    init() { centre() }

    /// The panel's mode in pixels: the pointer stays inside it (centred the first time).
    mutating func setPanel(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
        clamp()
    }

    mutating func centre() { pointerX = width / 2; pointerY = height / 2 }

    private mutating func clamp() {
        pointerX = min(max(0, pointerX), width - 1)
        pointerY = min(max(0, pointerY), height - 1)
    }

    /// One event from the input thread; `post` gets what the machine should hear.
    mutating func take(_ event: NavigationEvent, now: UInt64, post: (KioskEvent) -> Void) {
        switch event {
        case .key(let key, let pressed, _):
            if let direction = Self.direction(key) {
                if pressed { post(.navigate(keyRepeat.press(direction, now: now))) } else { keyRepeat.release(direction) }
                return
            }
            guard pressed else { return }   // act on press
            switch key {
            case .confirm: post(.navigate(.activate))
            case .back: post(.navigate(.back))
            case .erase: post(.navigate(.erase))
            case .menu: post(.navigate(.menu))
            case .character(let c): post(.navigate(.character(c)))
            case .up, .down, .left, .right: break
            }
        case .pointerMoved(let dx, let dy):
            pointerX = Int(clamping: Int64(pointerX) + Int64(dx))
            pointerY = Int(clamping: Int64(pointerY) + Int64(dy))
            moved(now: now, post: post)
        case .pointerPlaced(let fx, let fy):
            guard fx.isFinite, fy.isFinite else { return }
            pointerX = Int((fx * Double(width - 1)).rounded())
            pointerY = Int((fy * Double(height - 1)).rounded())
            moved(now: now, post: post)
        case .click(let pressed):
            guard pressed else { return }
            motionDueNs = nil   // the click carries the position
            post(.pointer(PointerEvent(x: pointerX, y: pointerY, action: .clicked)))
        case .deviceUsed(let family):
            switch family {
            case .keyboard: glyphs = .keyboard
            case .xboxPad: glyphs = .xbox
            case .playStationPad: glyphs = .playStation
            case .tvRemote: glyphs = .remote
            case .mouse: break   // a mouse has no glyphs: the device before it keeps them
            }
        case .switchConsole:
            break   // the runner's (ShellInput.onConsoleSwitch)
        }
    }

    /// The pointer moved: posted now, or at the end of the motion interval.
    private mutating func moved(now: UInt64, post: (KioskEvent) -> Void) {
        clamp()
        if now >= lastMotionNs &+ Self.motionIntervalNs {
            postMotion(now: now, post: post)
        } else if motionDueNs == nil {
            motionDueNs = lastMotionNs &+ Self.motionIntervalNs
        }
    }

    private mutating func postMotion(now: UInt64, post: (KioskEvent) -> Void) {
        lastMotionNs = now
        motionDueNs = nil
        post(.pointer(PointerEvent(x: pointerX, y: pointerY, action: .moved)))
    }

    /// When `tick` has something to do (nil: nothing held, no motion waiting).
    var nextDeadline: UInt64? {
        switch (keyRepeat.nextDeadline, motionDueNs) {
        case (let a?, let b?): min(a, b)
        case (let a?, nil): a
        case (nil, let b?): b
        case (nil, nil): nil
        }
    }

    /// The repeat and the coalesced motion owed at `now`.
    mutating func tick(now: UInt64, post: (KioskEvent) -> Void) {
        if let move = keyRepeat.fire(now: now) { post(.navigate(move)) }
        if let due = motionDueNs, now >= due { postMotion(now: now, post: post) }
    }

    static func direction(_ key: NavigationKey) -> Direction? {
        switch key {
        case .up: .up
        case .down: .down
        case .left: .left
        case .right: .right
        default: nil
        }
    }
}
