import Testing
import Shell

/// The floating panels over a stream (the in-stream menu, toasts): premultiplied ARGB covering
/// exactly the panel's rectangle on the mode, transparent outside the rounded ground, nearly
/// opaque on it, and the entries' text drawn inside.
@Suite struct PanelRendererTests {
    static let panel = SceneRect(x: 560, y: 170, width: 800, height: 740)
    static let scene = ShellScene(elements: [
        SceneElement(.button, frame: SceneRect(x: 620, y: 320, width: 680, height: 84), title: "Disconnect", focused: true),
    ])

    @Test(arguments: [(1920, 1080), (1280, 720), (1024, 768)])
    func thePanelCoversItsRectangleWithTransparentCornersAndAnOpaqueGround(mode: (Int, Int)) {
        let (rect, pixels) = PanelRenderer.draw(Self.scene, panel: Self.panel, modeWidth: mode.0, modeHeight: mode.1)
        let scale = min(Double(mode.0) / 1920, Double(mode.1) / 1080)
        #expect(pixels.count == rect.width * rect.height * 4)
        // The panel's size on the mode, grown by the ring outset and rounded outward.
        #expect(abs(Double(rect.width) - (800 + 2 * ShellRenderer.ringOutset) * scale) <= 2, "\(rect)")
        #expect(abs(Double(rect.height) - (740 + 2 * ShellRenderer.ringOutset) * scale) <= 2, "\(rect)")
        func alpha(_ x: Int, _ y: Int) -> UInt8 { pixels[(y * rect.width + x) * 4 + 3] }
        func premultiplied(_ x: Int, _ y: Int) -> Bool {
            let i = (y * rect.width + x) * 4
            return pixels[i] <= pixels[i + 3] && pixels[i + 1] <= pixels[i + 3] && pixels[i + 2] <= pixels[i + 3]
        }
        #expect(alpha(0, 0) == 0 && alpha(rect.width - 1, rect.height - 1) == 0)
        let ground = alpha(rect.width / 2, rect.height - Int(20 * scale) - Int(ShellRenderer.ringOutset * scale))
        #expect(ground >= 235 && ground < 255, "ground alpha \(ground)")
        // The focused button is lighter than the ground, and every pixel is premultiplied.
        var light = 0
        for y in 0..<rect.height { for x in 0..<rect.width {
            #expect(premultiplied(x, y))
            let i = (y * rect.width + x) * 4
            if pixels[i + 3] == 255, pixels[i + 2] > 0xC0, pixels[i + 1] > 0xC0, pixels[i] > 0xC0 { light += 1 }
        } }
        #expect(light > Int(200 * scale * scale), "text pixels: \(light)")
    }
}
