/// What one screen of the shell shows, as a value: elements placed on a 1920×1080 design canvas
/// (units: design pixels; the renderer scales them to the panel's mode). Two scenes compare
/// element by element, so the renderer redraws only the elements that changed.
public struct ShellScene: Sendable, Equatable {
    /// Drawn in order; an element's index is its identity between two scenes.
    public var elements: [SceneElement]
    /// What lies under the elements, edge to edge.
    public var ground: Ground

    public enum Ground: Sendable, Equatable {
        /// The shell's dark ground.
        case shell
        /// Black: nothing on glass (the box in standby).
        case black
    }

    public init(elements: [SceneElement], ground: Ground = .shell) { self.elements = elements; self.ground = ground }

    /// The design canvas every frame is given in.
    public static let designWidth = 1920.0
    public static let designHeight = 1080.0
    /// Body text: 1/24 of the height, legible from three metres on a 1080p TV.
    public static let bodySize = designHeight / 24
}

/// A rectangle on the design canvas.
public struct SceneRect: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// One thing on the screen.
public struct SceneElement: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The screen's title, large, left-aligned.
        case heading
        /// A paragraph in a muted colour (wraps inside the frame): where the host shows the PIN.
        case text
        /// A paragraph in full colour: an error's sentence, the step in progress.
        case statement
        /// A host card: the name, and its status under it.
        case card(HostStatus)
        /// A focusable entry: a list row or a button (title left, detail right).
        case button
        /// A key of the digit pad or on-screen keyboard (label centred).
        case key
        /// A text field showing typed text (or dots for a PIN).
        case field
        /// The hint bar: the buttons that act on this screen, with the glyphs of the device in use.
        case hints([Hint], GlyphSet)
        /// The mouse pointer: an arrow whose tip is the frame's top-left corner.
        case pointer
    }

    public var kind: Kind
    public var frame: SceneRect
    public var title: String
    public var detail: String?
    /// Drawn with the focus ring.
    public var focused: Bool

    public init(_ kind: Kind, frame: SceneRect, title: String = "", detail: String? = nil, focused: Bool = false) {
        self.kind = kind; self.frame = frame; self.title = title; self.detail = detail; self.focused = focused
    }
}

/// What a host card says about its host.
public enum HostStatus: Sendable, Equatable {
    case online, asleep, needsPairing, paired

    public var label: String {
        switch self {
        case .online: "Online"
        case .asleep: "Asleep"
        case .needsPairing: "Needs pairing"
        case .paired: "Paired"
        }
    }
}

/// The glyph style of the hint bar: the controller in use, or the keyboard.
public enum GlyphSet: Sendable, Equatable, CaseIterable {
    case xbox, playStation, keyboard
    /// The TV's remote (HDMI-CEC): keycaps named as its keys are.
    case remote
}

/// One hint: a button and what it does here.
public struct Hint: Sendable, Equatable {
    public enum Button: Sendable, Equatable, CaseIterable {
        /// A / Cross / Enter.
        case confirm
        /// B / Circle / Esc.
        case back
        /// X / Square / Backspace.
        case erase
        /// Start / Options / F1.
        case menu
    }

    public var button: Button
    public var label: String

    public init(_ button: Button, _ label: String) { self.button = button; self.label = label }
}
