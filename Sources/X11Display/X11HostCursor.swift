#if canImport(Glibc)
import Glibc
#endif
import Screen
internal import CXCB

/// The host's pointer as the window's cursor: RENDER ≥ 0.5's CreateCursor from a 32-bit ARGB
/// picture (`a8r8g8b8`, premultiplied — what `CursorImage` holds), so the X server draws it
/// where the pointer is, at once, with no round trip. One cursor at a time: the window's, freed
/// when the next replaces it (the window keeps what it shows).
///
/// Made by `X11Screen`; every call on its thread.
final class X11HostCursor {
    /// The largest cursor the server shows (QueryBestSize for cursors), pixels.
    let maxWidth: Int, maxHeight: Int
    private let c: OpaquePointer
    private let root: xcb_window_t
    private let format: xcb_render_pictformat_t
    /// The cursor made last and what it was made of (serial, its drawn size).
    private var current: (cursor: xcb_cursor_t, serial: UInt32, width: Int, height: Int)?

    /// nil when the server cannot show an ARGB cursor: no RENDER ≥ 0.5, no direct a8r8g8b8
    /// picture format, or images in MSB-first byte order (the pixels are little-endian words).
    /// `why` says which.
    static func make(_ connection: X11Connection) -> (cursor: X11HostCursor?, why: String) {
        let c = connection.c
        guard let d = xcb_get_extension_data(c, pf_xcb_render_id()), d.pointee.present != 0 else {
            return (nil, "the X server offers no RENDER extension")
        }
        guard let v = xcb_render_query_version_reply(c, xcb_render_query_version(c, 0, 11), nil) else {
            return (nil, "RENDER did not answer its version")
        }
        let version = (v.pointee.major_version, v.pointee.minor_version)
        free(v)
        guard version >= (0, 5) else { return (nil, "RENDER \(version.0).\(version.1) has no ARGB cursors (0.5 does)") }
        guard let setup = xcb_get_setup(c), setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue) else {
            return (nil, "the X server takes images most significant byte first")
        }
        guard let format = argbFormat(c) else { return (nil, "RENDER offers no a8r8g8b8 picture format") }
        var maxW = 256, maxH = 256
        if let r = xcb_query_best_size_reply(c, xcb_query_best_size(c, UInt8(XCB_QUERY_SHAPE_OF_LARGEST_CURSOR.rawValue),
                                                                   connection.root, 256, 256), nil) {
            if r.pointee.width > 0 && r.pointee.height > 0 { maxW = Int(r.pointee.width); maxH = Int(r.pointee.height) }
            free(r)
        }
        let cursor = X11HostCursor(c: c, root: connection.root, format: format, maxWidth: min(maxW, 256), maxHeight: min(maxH, 256))
        return (cursor, "window cursor (RENDER \(version.0).\(version.1) ARGB, up to \(cursor.maxWidth)x\(cursor.maxHeight))")
    }

    private init(c: OpaquePointer, root: xcb_window_t, format: xcb_render_pictformat_t, maxWidth: Int, maxHeight: Int) {
        self.c = c; self.root = root; self.format = format; self.maxWidth = maxWidth; self.maxHeight = maxHeight
    }

    /// The direct 32-bit format with alpha in bits 24–31, red 16–23, green 8–15, blue 0–7.
    private static func argbFormat(_ c: OpaquePointer) -> xcb_render_pictformat_t? {
        guard let r = xcb_render_query_pict_formats_reply(c, xcb_render_query_pict_formats(c), nil) else { return nil }
        defer { free(r) }
        let n = Int(xcb_render_query_pict_formats_formats_length(r))
        guard n > 0, let base = xcb_render_query_pict_formats_formats(r) else { return nil }
        for f in UnsafeBufferPointer(start: base, count: n) {
            let d = f.direct
            if f.type == UInt8(XCB_RENDER_PICT_TYPE_DIRECT.rawValue), f.depth == 32,
               d.alpha_shift == 24, d.alpha_mask == 0xFF, d.red_shift == 16, d.red_mask == 0xFF,
               d.green_shift == 8, d.green_mask == 0xFF, d.blue_shift == 0, d.blue_mask == 0xFF {
                return f.id
            }
        }
        return nil
    }

    /// The cursor for `source` drawn `scale` times its size (the caller keeps it within
    /// `maxWidth` × `maxHeight`) on `window`: made once per serial and size; the previous one is
    /// freed once the window shows the new one.
    func show(_ source: CursorImage, scale: Double, on window: xcb_window_t) {
        let size = source.scaledSize(by: scale)
        if let cur = current, cur.serial == source.serial, cur.width == size.width, cur.height == size.height { return }
        let image = source.scaled(by: scale)
        let pw = UInt16(image.width), ph = UInt16(image.height)
        let pixmap = xcb_generate_id(c), gc = xcb_generate_id(c), picture = xcb_generate_id(c), cursor = xcb_generate_id(c)
        xcb_create_pixmap(c, 32, pixmap, root, pw, ph)
        xcb_create_gc(c, gc, pixmap, 0, nil)
        image.pixels.withUnsafeBufferPointer { p in
            _ = xcb_put_image(c, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), pixmap, gc, pw, ph, 0, 0, 0, 32,
                              UInt32(p.count), p.baseAddress)
        }
        xcb_render_create_picture(c, picture, pixmap, format, 0, nil)
        xcb_render_create_cursor(c, cursor, picture, UInt16(image.hotX), UInt16(image.hotY))
        xcb_render_free_picture(c, picture)
        xcb_free_gc(c, gc)
        xcb_free_pixmap(c, pixmap)
        setWindowCursor(window, cursor)
        if let old = current { xcb_free_cursor(c, old.cursor) }
        current = (cursor, source.serial, image.width, image.height)
    }

    /// `blank` on `window` instead of the host's pointer (which is freed).
    func hide(on window: xcb_window_t, blank: xcb_cursor_t) {
        guard let old = current else { return }
        setWindowCursor(window, blank)
        xcb_free_cursor(c, old.cursor)
        current = nil
    }

    /// Whether the window shows the host's pointer now.
    var isShown: Bool { current != nil }

    private func setWindowCursor(_ window: xcb_window_t, _ cursor: xcb_cursor_t) {
        var value = cursor
        xcb_change_window_attributes(c, window, XCB_CW_CURSOR.rawValue, &value)
    }
}
