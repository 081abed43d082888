import Testing
import Shell

/// The shell's renderer into memory: what a redraw repaints, that it repaints nothing else, that
/// text lands where the scene puts it at the size the mode calls for, and the glyph sets.
@Suite struct ShellRendererTests {
    /// An XRGB8888 buffer with its stride; `sentinel` fills it first (and stays in the padding).
    struct Buffer {
        let width: Int, height: Int, stride: Int
        var words: [UInt32]

        init(width: Int, height: Int, padding: Int = 0, sentinel: UInt32 = 0xDEADBEEF) {
            self.width = width; self.height = height; stride = (width + padding) * 4
            words = Array(repeating: sentinel, count: (width + padding) * height)
        }

        @discardableResult
        mutating func draw(_ scene: ShellScene, over previous: ShellScene?, _ renderer: ShellRenderer) -> [PanelRect] {
            let stride = stride
            return words.withUnsafeMutableBytes { renderer.draw(scene, over: previous, into: $0.baseAddress!, stride: stride) }
        }

        func pixel(_ x: Int, _ y: Int) -> UInt32 { words[y * (stride / 4) + x] & 0x00FF_FFFF }

        /// The bounding box of pixels `match` accepts inside `region`, and how many there are.
        func ink(in region: PanelRect, where match: (UInt32) -> Bool) -> (box: PanelRect?, count: Int) {
            var box: PanelRect?
            var count = 0
            for y in region.y..<region.maxY {
                for x in region.x..<region.maxX where match(pixel(x, y)) {
                    count += 1
                    let p = PanelRect(x: x, y: y, width: 1, height: 1)
                    box = box.map { $0.union(p) } ?? p
                }
            }
            return (box, count)
        }
    }

    static func bright(_ p: UInt32) -> Bool { (p >> 16) & 0xFF > 0xC0 && (p >> 8) & 0xFF > 0xC0 && p & 0xFF > 0xC0 }
    static func accent(_ p: UInt32) -> Bool { p == 0x4FA3FF }

    static let hints = SceneElement(.hints([Hint(.confirm, "Select"), Hint(.back, "Back")], .xbox), frame: ShellLayout.hintFrame)

    /// Home: a heading, three host cards (the `focus`th focused), the hint bar.
    static func home(focus: Int, glyphs: GlyphSet = .xbox) -> ShellScene {
        let frames = ShellLayout.cardRow(count: 3, top: 300)
        let names = ["Living room", "Office", "Attic"]
        let status: [HostStatus] = [.paired, .needsPairing, .asleep]
        var elements = [SceneElement(.heading, frame: ShellLayout.headingFrame, title: "Hosts")]
        for i in 0..<3 {
            elements.append(SceneElement(.card(status[i]), frame: frames[i], title: names[i], focused: i == focus))
        }
        elements.append(SceneElement(.hints([Hint(.confirm, "Select"), Hint(.back, "Back"), Hint(.menu, "Menu")], glyphs),
                                     frame: ShellLayout.hintFrame))
        return ShellScene(elements: elements)
    }

    @Test func aFirstDrawPaintsTheWholeScreenAndAStrideWithPaddingKeepsItsPadding() {
        let r = ShellRenderer(width: 640, height: 360)
        var b = Buffer(width: 640, height: 360, padding: 16)
        #expect(b.draw(Self.home(focus: 0), over: nil, r) == [PanelRect(x: 0, y: 0, width: 640, height: 360)])
        #expect(b.pixel(0, 0) == 0x10141A, "the ground colour in a corner")
        #expect(b.pixel(639, 0) == 0x10141A)
        for y in 0..<360 { for x in 640..<656 { #expect(b.words[y * 656 + x] == 0xDEADBEEF); break } }
        // The same scene again repaints nothing.
        #expect(b.draw(Self.home(focus: 0), over: Self.home(focus: 0), r) == [])
    }

    /// Standby shows nothing: a black ground edge to edge (letterbox included), all of it
    /// repainted when the ground changes either way.
    @Test func aBlackGroundIsBlackEverywhereAndAGroundChangeRepaintsAll() {
        let r = ShellRenderer(width: 1024, height: 768)   // 4:3: the 16:9 design canvas is letterboxed
        var b = Buffer(width: 1024, height: 768)
        b.draw(Self.home(focus: 0), over: nil, r)
        let black = ShellScene(elements: [], ground: .black)
        #expect(b.draw(black, over: Self.home(focus: 0), r) == [r.screen])
        #expect(b.ink(in: r.screen, where: { $0 != 0 }).count == 0, "every pixel black")
        #expect(b.draw(black, over: black, r) == [])
        #expect(b.draw(Self.home(focus: 0), over: black, r) == [r.screen])
        #expect(b.pixel(0, 0) == 0x10141A)
    }

    @Test func aFocusMoveDamagesExactlyTheOldAndNewCardsWithTheirRings() {
        let r = ShellRenderer(width: 1920, height: 1080)
        let frames = ShellLayout.cardRow(count: 3, top: 300)
        let damage = r.damage(from: Self.home(focus: 0), to: Self.home(focus: 1))
        // At 1080p a design pixel is a pixel: each card's frame grown by the 12-pixel ring.
        func expected(_ f: SceneRect) -> PanelRect {
            PanelRect(x: Int(f.x) - 12, y: Int(f.y) - 12, width: Int(f.width) + 24, height: Int(f.height) + 24)
        }
        #expect(damage == [expected(frames[0]), expected(frames[1])])
        // Neither touches the third card, the heading or the hint bar.
        for other in [frames[2], ShellLayout.headingFrame, ShellLayout.hintFrame] {
            #expect(!damage.contains { $0.intersects(expected(other)) })
        }
    }

    @Test func aPartialRedrawEqualsAFullRedrawAndTouchesNothingOutsideTheDamage() {
        for (w, h) in [(1280, 720), (1920, 1080)] {
            let r = ShellRenderer(width: w, height: h)
            var before = Buffer(width: w, height: h)
            before.draw(Self.home(focus: 0), over: nil, r)
            var partial = before
            let damage = partial.draw(Self.home(focus: 1), over: Self.home(focus: 0), r)
            #expect(damage.count == 2)
            var full = Buffer(width: w, height: h)
            full.draw(Self.home(focus: 1), over: nil, r)
            var changedOutside = 0, differsFromFull = 0, changedInside = 0
            for y in 0..<h {
                for x in 0..<w {
                    let inside = damage.contains { $0.contains(x: x, y: y) }
                    if !inside, partial.pixel(x, y) != before.pixel(x, y) { changedOutside += 1 }
                    if inside, partial.pixel(x, y) != before.pixel(x, y) { changedInside += 1 }
                    if partial.pixel(x, y) != full.pixel(x, y) { differsFromFull += 1 }
                }
            }
            #expect(changedOutside == 0, "\(w)x\(h)")
            #expect(differsFromFull == 0, "\(w)x\(h)")
            #expect(changedInside > 1000, "the ring moved (\(changedInside) pixels changed at \(w)x\(h))")
        }
    }

    @Test func theFocusRingIsDrawnAroundTheFocusedCardOnly() {
        let r = ShellRenderer(width: 1920, height: 1080)
        var b = Buffer(width: 1920, height: 1080)
        b.draw(Self.home(focus: 1), over: nil, r)
        let frames = ShellLayout.cardRow(count: 3, top: 300)
        let rects = frames.map { PanelRect(x: Int($0.x) - 12, y: Int($0.y) - 12, width: Int($0.width) + 24, height: Int($0.height) + 24) }
        #expect(b.ink(in: rects[0], where: Self.accent).count == 0)
        #expect(b.ink(in: rects[2], where: Self.accent).count == 0)
        let ring = b.ink(in: rects[1], where: Self.accent)
        #expect(ring.count > 2 * (400 + 260) * 5, "a ring some 9 px wide all round (\(ring.count) px)")
        #expect(ring.box.map { $0.x < Int(frames[1].x) && $0.maxX > Int(frames[1].x + frames[1].width) } == true)
    }

    /// Body text: a line of capitals and its ink — placed in the element's frame, at 1/24 of the
    /// height (DejaVu Sans capitals are 0.73 em), at every mode.
    @Test(arguments: [(1280, 720), (1920, 1080), (3840, 2160)])
    func bodyTextLandsInItsFrameAtOneTwentyFourthOfTheHeight(mode: (Int, Int)) {
        let (w, h) = mode
        let r = ShellRenderer(width: w, height: h)
        let frame = SceneRect(x: 200, y: 400, width: 1200, height: 100)
        let scene = ShellScene(elements: [SceneElement(.statement, frame: frame, title: "HOST HEHEHE")])
        var b = Buffer(width: w, height: h)
        b.draw(scene, over: nil, r)
        let s = r.scale
        let region = PanelRect(x: Int(frame.x * s), y: Int(frame.y * s), width: Int(frame.width * s), height: Int(frame.height * s))
        let inside = b.ink(in: region, where: Self.bright)
        let everywhere = b.ink(in: r.screen, where: Self.bright)
        #expect(inside.count > 0)
        #expect(inside.count == everywhere.count, "no text outside its frame")
        let capHeight = Double(inside.box?.height ?? 0)
        let expected = Double(h) / 24 * 0.73
        #expect(abs(capHeight - expected) <= max(2, expected * 0.08), "cap height \(capHeight) px, expected ≈ \(expected) at \(w)x\(h)")
        #expect(Double(inside.box!.x) < (frame.x + 10) * s, "left-aligned at the frame's edge")
    }

    @Test func aCardRowScalesWithTheMode() {
        let card = SceneElement(.card(.online), frame: SceneRect(x: 300, y: 300, width: 400, height: 260), title: "Office")
        #expect(ShellRenderer(width: 1920, height: 1080).pixelRect(of: card) == PanelRect(x: 288, y: 288, width: 424, height: 284))
        #expect(ShellRenderer(width: 3840, height: 2160).pixelRect(of: card) == PanelRect(x: 576, y: 576, width: 848, height: 568))
        #expect(ShellRenderer(width: 1280, height: 720).pixelRect(of: card) == PanelRect(x: 192, y: 192, width: 283, height: 190))
        // A 16:10 panel: the canvas keeps its shape, centred vertically.
        let tall = ShellRenderer(width: 1920, height: 1200)
        #expect(tall.scale == 1)
        #expect(tall.pixelRect(of: card) == PanelRect(x: 288, y: 348, width: 424, height: 284))
    }

    @Test func theHintBarShowsTheGlyphsOfTheDeviceInUse() {
        let r = ShellRenderer(width: 1920, height: 1080)
        let bar = PanelRect(x: 0, y: 970, width: 1920, height: 110)
        var xbox = Buffer(width: 1920, height: 1080), ps = xbox, keys = xbox
        xbox.draw(Self.home(focus: 0, glyphs: .xbox), over: nil, r)
        ps.draw(Self.home(focus: 0, glyphs: .playStation), over: nil, r)
        keys.draw(Self.home(focus: 0, glyphs: .keyboard), over: nil, r)
        // Xbox: the green A and red B discs; PlayStation: the blue cross and red circle strokes.
        #expect(xbox.ink(in: bar, where: { $0 == 0x3CA335 }).count > 500)
        #expect(xbox.ink(in: bar, where: { $0 == 0xD8392B }).count > 500)
        #expect(ps.ink(in: bar, where: { $0 == 0x3CA335 }).count == 0)
        #expect(ps.ink(in: bar, where: { $0 == 0x7CA7E8 }).count > 100)
        #expect(ps.ink(in: bar, where: { $0 == 0xE8676A }).count > 100)
        // Keyboard: no controller colours, white keycap outlines and names.
        #expect(keys.ink(in: bar, where: { $0 == 0x3CA335 || $0 == 0x7CA7E8 }).count == 0)
        #expect(keys.ink(in: bar, where: Self.bright).count > xbox.ink(in: bar, where: Self.bright).count)
        // Switching glyphs damages the hint bar only.
        #expect(r.damage(from: Self.home(focus: 0, glyphs: .xbox), to: Self.home(focus: 0, glyphs: .keyboard))
            == [PanelRect(x: 0, y: 958, width: 1920, height: 122)])
    }

    @Test func elementsThatComeOrGoDamageTheirOwnRects() {
        let r = ShellRenderer(width: 1920, height: 1080)
        var fewer = Self.home(focus: 0)
        fewer.elements.remove(at: 3)   // the third card goes; the hint bar moves up an index
        let damage = r.damage(from: Self.home(focus: 0), to: fewer)
        let third = ShellLayout.cardRow(count: 3, top: 300)[2]
        #expect(damage.contains(PanelRect(x: Int(third.x) - 12, y: 288, width: 424, height: 284)))
        #expect(damage.contains(PanelRect(x: 0, y: 958, width: 1920, height: 122)))
        #expect(damage.count == 2)
    }

    /// Page flipping: two buffers take turns, each drawn over the scene it last held (two scenes
    /// back) — each comes out exactly as a full redraw, while the damage is still only the cards.
    @Test func twoBuffersTakingTurnsEachRedrawOverTheirOwnLastScene() {
        let r = ShellRenderer(width: 960, height: 540)
        var buffers = [Buffer(width: 960, height: 540), Buffer(width: 960, height: 540)]
        var held: [ShellScene?] = [nil, nil]
        let focusSequence = [0, 1, 2, 1, 0, 0, 2]
        for (frame, focus) in focusSequence.enumerated() {
            let i = frame % 2
            let scene = Self.home(focus: focus)
            let damage = buffers[i].draw(scene, over: held[i], r)
            held[i] = scene
            var full = Buffer(width: 960, height: 540)
            full.draw(scene, over: nil, r)
            #expect(buffers[i].words == full.words, "frame \(frame), buffer \(i)")
            if frame >= 2 { #expect(damage.count <= 2, "frame \(frame): \(damage)") }
        }
    }

    @Test func aPointerHitsTheTopmostElementUnderItAtAnyMode() {
        let scene = Self.home(focus: 0)
        let card = ShellLayout.cardRow(count: 3, top: 300)[1]
        for (w, h) in [(1280, 720), (1920, 1080), (3840, 2160)] {
            let r = ShellRenderer(width: w, height: h)
            let s = r.scale
            #expect(r.elementIndex(at: Int((card.x + 10) * s), y: Int((card.y + 10) * s), in: scene) == 2, "\(w)x\(h)")
            // The gap between two cards is the ground.
            #expect(r.elementIndex(at: Int((card.x - ShellLayout.gap / 2) * s), y: Int((card.y + 10) * s), in: scene) == nil)
            #expect(r.elementIndex(at: w - 1, y: h - 1, in: scene) == 4, "the hint bar")
        }
        // A 16:10 panel: the band above the canvas holds nothing.
        let tall = ShellRenderer(width: 1920, height: 1200)
        #expect(tall.elementIndex(at: 960, y: 10, in: scene) == nil)
        #expect(tall.elementIndex(at: Int(card.x) + 10, y: Int(card.y) + 70, in: scene) == 2)
    }
}
