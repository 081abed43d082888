#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import CXCB
import Screen
import SystemClock
import VideoFrames
@testable import X11Display

/// `X11Screen` against a real X server (Xvfb 21, which offers Present 1.2 with a fake 60 Hz
/// clock, MIT-SHM 1.2 and no DRI3): the window takes the root with and without a window manager,
/// pixels reach the root window as the server shows them (GetImage), every glass time comes from
/// Present's CompleteNotify, and the server's end is one sentence.
@Suite(.serialized, .enabled(if: XvfbServer.unavailableReason == nil, "\(XvfbServer.unavailableReason ?? "")"))
struct X11ScreenLiveTests {
    /// Services the screen until `done` or `seconds` pass.
    static func pump(_ screen: X11Screen, seconds: Double = 3, until done: () -> Bool) {
        let end = MonotonicClock.nowNs() + UInt64(seconds * 1e9)
        while !done(), MonotonicClock.nowNs() < end { screen.service(timeoutMs: 10) }
    }

    /// The root window's pixel at (x, y) as the server holds it (GetImage, ZPixmap, 0x00RRGGBB).
    static func rootPixel(display: String, x: Int, y: Int) -> UInt32? {
        var n: Int32 = 0
        guard let c = xcb_connect(display, &n), xcb_connection_has_error(c) == 0 else { return nil }
        defer { xcb_disconnect(c) }
        let root = xcb_setup_roots_iterator(xcb_get_setup(c)).data.pointee.root
        guard let r = xcb_get_image_reply(c, xcb_get_image(c, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), root, Int16(x), Int16(y),
                                                           1, 1, UInt32.max), nil) else { return nil }
        defer { free(r) }
        return UnsafeRawPointer(xcb_get_image_data(r)).loadUnaligned(as: UInt32.self) & 0x00FF_FFFF
    }

    @Test func withoutAWindowManagerTheWindowTakesTheRootAndCanvasesReachGlassByPresent() throws {
        let x = try XvfbServer.start(width: 1024, height: 600)
        defer { x.stop() }
        let screen = try X11Screen(display: x.display)
        defer { screen.close() }
        #expect(screen.windowManager == nil)
        #expect(screen.mode.width == 1024 && screen.mode.height == 600)
        #expect(screen.name.hasPrefix("x11 \(x.display) no-wm 1024x600"))
        #expect(screen.picturePath.pixels == .sharedMemory)
        #expect(screen.picturePath.dri3Offered == false)

        let before = MonotonicClock.nowNs()
        let canvas = try #require(try screen.canvas(id: 1))
        for row in 0..<canvas.height {
            let p = (canvas.pixels + row * canvas.pitch).assumingMemoryBound(to: UInt32.self)
            for col in 0..<canvas.width { p[col] = col < canvas.width / 2 ? 0x00C0_3060 : 0x0030_60C0 }
        }
        try screen.commitCanvas(id: 1, damage: nil)
        var shown: UInt64?
        Self.pump(screen) { shown = shown ?? screen.takeCanvasShown(); return shown != nil }
        let glass = try #require(shown, "no CompleteNotify for the canvas within 3 s")
        // ust is CLOCK_MONOTONIC µs: the glass time lies between the commit and now.
        #expect(glass >= before / 1000 * 1000 && glass <= MonotonicClock.nowNs())
        #expect(screen.stats.presentation.presented == 1 && screen.stats.committed == 1)
        #expect(Self.rootPixel(display: x.display, x: 10, y: 10) == 0xC0_3060)
        #expect(Self.rootPixel(display: x.display, x: 1000, y: 590) == 0x30_60C0)
    }

    @Test func underAWindowManagerTheWindowIsFullscreenThroughEWMH() throws {
        let x = try XvfbServer.start(width: 800, height: 480)
        defer { x.stop() }
        try x.startWindowManager()
        let screen = try X11Screen(display: x.display)
        defer { screen.close() }
        let wm = try #require(screen.windowManager, "matchbox claims the root, yet no window manager was found")
        #expect(wm.lowercased().contains("matchbox"))
        #expect(screen.mode.width == 800 && screen.mode.height == 480)
    }

    /// Pictures presented faster than Xvfb's 60 Hz: the server skips all but the newest of those
    /// queued for one refresh. Every present is answered exactly once, by the server.
    @Test func presentCountersComeOnlyFromTheServersCompletions() throws {
        let x = try XvfbServer.start(width: 640, height: 360)
        defer { x.stop() }
        let screen = try X11Screen(display: x.display)
        defer { screen.close() }
        let frame = Self.greyFrame(width: 320, height: 180)
        var shownIDs: [UInt64] = []
        for id in 1...12 as ClosedRange<UInt64> {
            Self.pump(screen, seconds: 1) { screen.stats.noFreeBuffer == 0 && screen.outstanding < 3 }
            #expect(screen.show(.cpu(frame), frameID: id, readyNs: MonotonicClock.nowNs()))
            shownIDs += screen.takeShown().map(\.frameID)
        }
        Self.pump(screen) { screen.outstanding == 0 }
        shownIDs += screen.takeShown().map(\.frameID)
        let s = screen.stats
        #expect(s.committed == 12)
        #expect(s.presentation.presented + s.presentation.discarded == 12)
        #expect(s.presentation.presented == UInt64(shownIDs.count))
        #expect(shownIDs == shownIDs.sorted())
        #expect(shownIDs.last == 12)
        print("x11 present: committed \(s.committed), presented \(s.presentation.presented), skipped \(s.presentation.discarded), "
              + "commit→present mean \(Double(s.presentation.meanLatencyNs) / 1e6) ms")
        // The 320x180 picture fitted to 640x360 covers the window: the centre is grey (Y 126 → 128).
        let centre = try #require(Self.rootPixel(display: x.display, x: 320, y: 180))
        #expect(abs(Int(centre & 0xFF) - 128) <= 3)
    }

    @Test func theServerKilledIsOneSentence() throws {
        let x = try XvfbServer.start(width: 640, height: 360)
        let screen = try X11Screen(display: x.display)
        defer { screen.close() }
        x.kill()
        var changes: [ScreenChange] = []
        Self.pump(screen) { changes += screen.takeChanges(); return !changes.isEmpty }
        #expect(changes == [.lost(sentence: "the X server closed the connection (DISPLAY=\(x.display))")])
        #expect(!screen.isActive)
        #expect(throws: ScreenError.self) { _ = try screen.canvas(id: 1) }
    }

    @Test func aResizedWindowIsANewMode() throws {
        let x = try XvfbServer.start(width: 640, height: 360)
        defer { x.stop() }
        let screen = try X11Screen(display: x.display)
        defer { screen.close() }
        // Another client resizes the window, as a window manager or `xdotool windowsize` would.
        var n: Int32 = 0
        let c = try #require(xcb_connect(x.display, &n))
        defer { xcb_disconnect(c) }
        var values: [UInt32] = [500, 300]
        xcb_configure_window(c, screen.window, UInt16(XCB_CONFIG_WINDOW_WIDTH.rawValue | XCB_CONFIG_WINDOW_HEIGHT.rawValue), &values)
        xcb_flush(c)
        var changes: [ScreenChange] = []
        Self.pump(screen) { changes += screen.takeChanges(); return !changes.isEmpty }
        #expect(changes == [.modeChanged(output: x.display, from: ScreenMode(width: 640, height: 360, refreshMilliHz: 0),
                                         to: ScreenMode(width: 500, height: 300, refreshMilliHz: 0))])
        #expect(screen.mode.width == 500)
    }

    /// Without a compositor the server keeps no copy of a window: a window mapped over the kiosk's
    /// and gone again leaves black (the background) and an Expose; the newest pixmap is presented
    /// again, counted as a repaint and never reported as a frame on glass.
    @Test func anExposedWindowIsRepaintedFromTheNewestPixmap() throws {
        let x = try XvfbServer.start(width: 640, height: 360)
        defer { x.stop() }
        let screen = try X11Screen(display: x.display)
        defer { screen.close() }
        let canvas = try #require(try screen.canvas(id: 0))
        for row in 0..<canvas.height {
            let p = (canvas.pixels + row * canvas.pitch).assumingMemoryBound(to: UInt32.self)
            for col in 0..<canvas.width { p[col] = 0x0020_A040 }
        }
        try screen.commitCanvas(id: 0, damage: nil)
        var shown: UInt64?
        Self.pump(screen) { shown = shown ?? screen.takeCanvasShown(); return shown != nil }
        #expect(shown != nil)
        _ = screen.takeShown()

        var n: Int32 = 0
        let c = try #require(xcb_connect(x.display, &n))
        defer { xcb_disconnect(c) }
        let root = xcb_setup_roots_iterator(xcb_get_setup(c)).data.pointee.root
        let cover = xcb_generate_id(c)
        var values: [UInt32] = [0x00FF_FFFF, 1]  // white background, override-redirect
        xcb_create_window(c, 0, cover, root, 100, 100, 200, 100, 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), 0,
                          XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue, &values)
        xcb_map_window(c, cover)
        free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), nil))  // mapped once the server answers
        xcb_destroy_window(c, cover)
        free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), nil))

        let end = MonotonicClock.nowNs() + 3_000_000_000
        while screen.stats.repaints == 0 || screen.outstanding > 0, MonotonicClock.nowNs() < end {
            _ = screen.finishWait(readable: [true])
            usleep(5000)
        }
        #expect(screen.stats.repaints >= 1)
        #expect(screen.takeShown().isEmpty)
        #expect(screen.takeCanvasShown() == nil)
        #expect(screen.showsCanvas)
        #expect(Self.rootPixel(display: x.display, x: 200, y: 150) == 0x20_A040)
    }

    /// A mid-grey NV12 picture (Y 126, neutral chroma: BT.709 limited range → about 128 in RGB).
    static func greyFrame(width: Int, height: Int) -> DecodedFrame {
        DecodedFrame(pts: 0, width: width, height: height, crop: FrameCrop(), pixelFormat: .nv12,
                     planes: [FramePlane(bytes: [UInt8](repeating: 126, count: width * height), stride: width, rowBytes: width,
                                         height: height),
                              FramePlane(bytes: [UInt8](repeating: 128, count: width * height / 2), stride: width, rowBytes: width,
                                         height: height / 2)],
                     colour: FrameColour())
    }

    /// The cursor the server shows now, as XFixes reads it back: size, hot spot and its
    /// premultiplied ARGB pixels (XFixesGetCursorImage, from a connection of its own).
    static func shownCursor(display: String) -> (width: Int, height: Int, xhot: Int, yhot: Int, pixels: [UInt32])? {
        var n: Int32 = 0
        guard let c = xcb_connect(display, &n), xcb_connection_has_error(c) == 0 else { return nil }
        defer { xcb_disconnect(c) }
        free(xcb_xfixes_query_version_reply(c, xcb_xfixes_query_version(c, 4, 0), nil))
        guard let r = xcb_xfixes_get_cursor_image_reply(c, xcb_xfixes_get_cursor_image(c), nil) else { return nil }
        defer { free(r) }
        let count = Int(xcb_xfixes_get_cursor_image_cursor_image_length(r))
        let pixels = Array(UnsafeBufferPointer(start: xcb_xfixes_get_cursor_image_cursor_image(r), count: count))
        return (Int(r.pointee.width), Int(r.pointee.height), Int(r.pointee.xhot), Int(r.pointee.yhot), pixels)
    }

    /// The host's pointer becomes the window's cursor (RENDER ARGB), drawn at the picture's scale
    /// with its hot spot scaled; none puts the blank cursor back. XFixes is the judge.
    @Test func theHostsPointerIsTheWindowsCursorAtThePicturesScale() throws {
        let x = try XvfbServer.start(width: 1024, height: 600)
        defer { x.stop() }
        let screen = try X11Screen(display: x.display)
        defer { screen.close() }
        #expect(screen.canDrawPointer, "\(screen.pointerRoute)")
        #expect(screen.pointerRoute.hasPrefix("window cursor (RENDER 0."))
        // 16×16 half-transparent magenta with an opaque white top-left pixel, hot spot (3, 4).
        var rgba = [UInt8](repeating: 0, count: 16 * 16 * 4)
        for i in stride(from: 0, to: rgba.count, by: 4) { rgba[i] = 255; rgba[i + 2] = 255; rgba[i + 3] = 128 }
        rgba[0] = 255; rgba[1] = 255; rgba[2] = 255; rgba[3] = 255
        let image = try #require(CursorImage(serial: 7, width: 16, height: 16, hotX: 3, hotY: 4, straightRGBA: rgba))
        // A 512-wide video on the 1024-wide window (no picture yet: the window is its place): × 2.
        screen.setPointer(ScreenPointer(image: image, x: 100, y: 100, videoWidth: 512, videoHeight: 300))
        screen.sync()
        let shown = try #require(Self.shownCursor(display: x.display))
        #expect(shown.width == 32 && shown.height == 32 && shown.xhot == 6 && shown.yhot == 8)
        // Premultiplied: (255·128 + 127)/255 = 128 → 0x80800080; the white pixel covers 2×2.
        #expect(shown.pixels.count == 32 * 32)
        #expect(shown.pixels[0] == 0xFFFF_FFFF && shown.pixels[1] == 0xFFFF_FFFF && shown.pixels[32] == 0xFFFF_FFFF && shown.pixels[33] == 0xFFFF_FFFF)
        #expect(shown.pixels[2] == 0x8080_0080 && shown.pixels[32 * 32 - 1] == 0x8080_0080)
        // A move of the host's pointer is no new cursor (its place is the X pointer's).
        screen.setPointer(ScreenPointer(image: image, x: 300, y: 10, videoWidth: 512, videoHeight: 300))
        screen.setPointer(nil)
        screen.sync()
        let blank = try #require(Self.shownCursor(display: x.display))
        #expect(blank.pixels.allSatisfy { $0 >> 24 == 0 }, "the blank cursor: no pixel with alpha")
    }
}
