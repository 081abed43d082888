import Screen
import Testing

/// The host's pointer image and its place. Expected values come from the spec's text
/// (control-plane.md §11: CursorShape is straight-alpha RGBA, ≤ 120×120; data-plane.md §7.3: 0xD0
/// is the hot spot in host output pixels) and DRM's AR24 layout (bytes B, G, R, A, premultiplied
/// as the KMS blend of `pixel blend mode` "Pre-multiplied", the default, expects).
@Suite struct CursorImageTests {
    @Test func straightRGBABecomesPremultipliedBGRA() {
        // One pixel each: opaque red; half-transparent white; fully transparent green.
        let rgba: [UInt8] = [255, 0, 0, 255, 255, 255, 255, 128, 0, 255, 0, 0]
        let image = CursorImage(serial: 7, width: 3, height: 1, hotX: 1, hotY: 0, straightRGBA: rgba)!
        // c·a/255 rounded: 255·128/255 = 128; green at α 0 → 0.
        #expect(image.pixels == [0, 0, 255, 255, 128, 128, 128, 128, 0, 0, 0, 0])
        #expect(image.serial == 7 && image.hotX == 1 && image.hotY == 0)
    }

    @Test func aShapeWhoseBytesDisagreeWithItsSizeIsRefused() {
        #expect(CursorImage(serial: 1, width: 2, height: 2, hotX: 0, hotY: 0, straightRGBA: [UInt8](repeating: 0, count: 15)) == nil)
        #expect(CursorImage(serial: 1, width: 0, height: 2, hotX: 0, hotY: 0, straightRGBA: []) == nil)
        // A hot spot past the image is clamped into it.
        let clamped = CursorImage(serial: 1, width: 2, height: 2, hotX: 9, hotY: -3, straightRGBA: [UInt8](repeating: 255, count: 16))!
        #expect(clamped.hotX == 1 && clamped.hotY == 0)
    }

    @Test func scalingKeepsThePixelsAndScalesTheHotSpot() {
        // 2×1: left opaque black, right opaque white; hot spot at the right pixel.
        let image = CursorImage(serial: 2, width: 2, height: 1, hotX: 1, hotY: 0,
                                straightRGBA: [0, 0, 0, 255, 255, 255, 255, 255])!
        let double = image.scaled(by: 2)
        #expect(double.width == 4 && double.height == 2 && double.hotX == 2 && double.hotY == 0)
        #expect(Array(double.pixels[0..<16]) == [0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255])
        #expect(image.scaled(by: 1) == image)
        #expect(image.scaled(by: .nan) == image)
        let tiny = image.scaled(by: 0.1)
        #expect(tiny.width == 1 && tiny.height == 1)
    }

    @Test func aHostPositionLandsOnThePixelHoldingItsCentre() {
        // 1920×1080 on a 3840×2160 panel: every host pixel is 2×2; (960, 540) → (1921, 1081).
        let full = PixelRect(x: 0, y: 0, width: 3840, height: 2160)
        #expect(CursorPlacement.screenPoint(x: 960, y: 540, videoWidth: 1920, videoHeight: 1080, picture: full) == (1921, 1081))
        #expect(CursorPlacement.scale(videoWidth: 1920, picture: full) == 2)
        // 1:1 is the identity; outside the video is clamped to the picture.
        let same = PixelRect(x: 0, y: 0, width: 1920, height: 1080)
        #expect(CursorPlacement.screenPoint(x: 17, y: 33, videoWidth: 1920, videoHeight: 1080, picture: same) == (17, 33))
        #expect(CursorPlacement.screenPoint(x: -5, y: 5000, videoWidth: 1920, videoHeight: 1080, picture: same) == (0, 1079))
        // Letterboxed: 1920×1080 fitted on 1024×768 is 1024×576 at y 96 (PlaneGeometry.fit).
        let letterbox = PlaneGeometry.fit(width: 1920, height: 1080, crtcWidth: 1024, crtcHeight: 768)!
        #expect(letterbox == PixelRect(x: 0, y: 96, width: 1024, height: 576))
        #expect(CursorPlacement.screenPoint(x: 1919, y: 0, videoWidth: 1920, videoHeight: 1080, picture: letterbox) == (1023, 96))
    }
}
