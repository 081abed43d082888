#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Screen
internal import CXCB

/// One connection to an X server and what the X11 backend needs to know about it: the screen
/// (root, its visual and size), the extensions it offers and their versions, their event
/// opcodes, and the atoms the window uses. Made once by `X11Screen`; every call on its thread.
///
/// Required: Present ≥ 1.0 (pacing and glass times) — every X.Org server since 1.15 offers it.
/// Optional: MIT-SHM (else PutImage), DRI3 (dma-buf pixmaps), XInput ≥ 2.2 (else no keyboard or
/// mouse through the server: pads only), XFixes, RandR (the refresh; else unknown).
final class X11Connection {
    let c: OpaquePointer
    /// `DISPLAY` as given (nil: the environment's), for sentences.
    let displayName: String
    let screenNumber: Int32
    let root: xcb_window_t
    let rootVisual: xcb_visualid_t
    let rootDepth: UInt8
    let rootWidth: Int, rootHeight: Int
    let vendor: String
    let release: UInt32

    let presentVersion: (major: UInt32, minor: UInt32)
    let presentOpcode: UInt8
    let shmVersion: (major: UInt32, minor: UInt32)?
    let dri3Version: (major: UInt32, minor: UInt32)?
    /// XInput 2's version when ≥ 2.2, and the extension's opcode (its events come as XGE).
    let xinputVersion: (major: UInt16, minor: UInt16)?
    let xinputOpcode: UInt8
    let hasRandR: Bool
    /// The server is Xwayland (the `XWAYLAND` extension, or outputs named `XWAYLAND<n>`).
    let isXwayland: Bool

    private var atomCache: [String: xcb_atom_t] = [:]

    /// Connects to `display` (nil: `$DISPLAY`) and reads what the server offers.
    /// - Throws: `.unavailable` when no server answers; `.unusable` without Present or with a
    ///   root that is not 24/32-bit TrueColor.
    init(display: String?) throws(ScreenError) {
        let name = display ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        displayName = name
        var screenNum: Int32 = 0
        guard let conn = xcb_connect(name.isEmpty ? nil : name, &screenNum) else {
            throw .unavailable("no X server at DISPLAY=\(name)")
        }
        let err = xcb_connection_has_error(conn)
        if err != 0 {
            xcb_disconnect(conn)
            throw .unavailable("no X server answers at DISPLAY=\(name) (\(Self.connectionErrorName(err)))")
        }
        c = conn
        screenNumber = screenNum
        let setup = xcb_get_setup(conn)!
        var it = xcb_setup_roots_iterator(setup)
        var n = screenNum
        while n > 0, it.rem > 0 { xcb_screen_next(&it); n -= 1 }
        guard it.rem > 0, let s = it.data else { xcb_disconnect(conn); throw .unusable("the X server has no screen \(screenNum)") }
        root = s.pointee.root
        rootVisual = s.pointee.root_visual
        rootDepth = s.pointee.root_depth
        rootWidth = Int(s.pointee.width_in_pixels)
        rootHeight = Int(s.pointee.height_in_pixels)
        let vendorLength = Int(xcb_setup_vendor_length(setup))
        vendor = String(decoding: UnsafeRawBufferPointer(start: xcb_setup_vendor(setup), count: vendorLength), as: UTF8.self)
        release = setup.pointee.release_number
        guard rootDepth == 24 || rootDepth == 32 else {
            xcb_disconnect(conn)
            throw .unusable("the X server's root is \(rootDepth)-bit; the kiosk draws 24-bit TrueColor")
        }

        // Ask for every extension at once, then take the answers.
        xcb_prefetch_extension_data(conn, pf_xcb_present_id())
        xcb_prefetch_extension_data(conn, pf_xcb_shm_id())
        xcb_prefetch_extension_data(conn, pf_xcb_dri3_id())
        xcb_prefetch_extension_data(conn, pf_xcb_input_id())
        xcb_prefetch_extension_data(conn, pf_xcb_randr_id())
        let xwaylandCookie = xcb_query_extension(conn, 8, "XWAYLAND")
        func present(_ ext: UnsafeMutablePointer<xcb_extension_t>) -> UnsafePointer<xcb_query_extension_reply_t>? {
            guard let d = xcb_get_extension_data(conn, ext), d.pointee.present != 0 else { return nil }
            return d
        }
        guard let presentData = present(pf_xcb_present_id()) else {
            xcb_disconnect(conn)
            throw .unusable("the X server offers no Present extension (X.Org 1.15 and later do): the kiosk paces and times pictures with it")
        }
        presentOpcode = presentData.pointee.major_opcode
        let pv = xcb_present_query_version_reply(conn, xcb_present_query_version(conn, 1, 2), nil)
        presentVersion = pv.map { (($0.pointee.major_version, $0.pointee.minor_version)) } ?? (1, 0)
        free(pv)

        if present(pf_xcb_shm_id()) != nil, let r = xcb_shm_query_version_reply(conn, xcb_shm_query_version(conn), nil) {
            shmVersion = (UInt32(r.pointee.major_version), UInt32(r.pointee.minor_version))
            free(r)
        } else {
            shmVersion = nil
        }
        if present(pf_xcb_dri3_id()) != nil, let r = xcb_dri3_query_version_reply(conn, xcb_dri3_query_version(conn, 1, 2), nil) {
            dri3Version = (r.pointee.major_version, r.pointee.minor_version)
            free(r)
        } else {
            dri3Version = nil
        }
        if let d = present(pf_xcb_input_id()) {
            xinputOpcode = d.pointee.major_opcode
            if let r = xcb_input_xi_query_version_reply(conn, xcb_input_xi_query_version(conn, 2, 2), nil) {
                let v = (r.pointee.major_version, r.pointee.minor_version)
                xinputVersion = (v.0, v.1) >= (2, 2) ? v : nil
                free(r)
            } else {
                xinputVersion = nil
            }
        } else {
            xinputOpcode = 0
            xinputVersion = nil
        }
        hasRandR = present(pf_xcb_randr_id()) != nil
        let xw = xcb_query_extension_reply(conn, xwaylandCookie, nil)
        let hasExtension = xw?.pointee.present ?? 0 != 0
        free(xw)
        isXwayland = hasExtension || (hasRandR && Self.outputNames(conn, root: root).contains { $0.hasPrefix("XWAYLAND") })
    }

    /// The RandR output names of the screen (Xwayland names its outputs `XWAYLAND<n>`; Debian 12's
    /// Xwayland 22.1.9 predates the `XWAYLAND` extension of 23.1, so the names are how it is told).
    private static func outputNames(_ c: OpaquePointer, root: xcb_window_t) -> [String] {
        guard let res = xcb_randr_get_screen_resources_current_reply(c, xcb_randr_get_screen_resources_current(c, root), nil)
        else { return [] }
        defer { free(res) }
        let outputs = xcb_randr_get_screen_resources_current_outputs(res)!
        let n = Int(xcb_randr_get_screen_resources_current_outputs_length(res))
        let cookies = (0..<n).map { xcb_randr_get_output_info(c, outputs[$0], res.pointee.config_timestamp) }
        return cookies.compactMap { cookie in
            guard let info = xcb_randr_get_output_info_reply(c, cookie, nil) else { return nil }
            defer { free(info) }
            let length = Int(xcb_randr_get_output_info_name_length(info))
            return String(decoding: UnsafeBufferPointer(start: xcb_randr_get_output_info_name(info), count: length), as: UTF8.self)
        }
    }

    /// The atom named `name`, interned once (a round trip the first time).
    func atom(_ name: String) -> xcb_atom_t {
        if let a = atomCache[name] { return a }
        let r = xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, UInt16(name.utf8.count), name), nil)
        let a = r?.pointee.atom ?? 0
        free(r)
        atomCache[name] = a
        return a
    }

    /// Interns several atoms with one round trip.
    func prefetchAtoms(_ names: [String]) {
        let cookies = names.map { xcb_intern_atom(c, 0, UInt16($0.utf8.count), $0) }
        for (name, cookie) in zip(names, cookies) {
            let r = xcb_intern_atom_reply(c, cookie, nil)
            atomCache[name] = r?.pointee.atom ?? 0
            free(r)
        }
    }

    /// The connection's descriptor, for a poll set.
    var fileDescriptor: Int32 { xcb_get_file_descriptor(c) }

    /// nil while the connection is good; else a sentence.
    var failure: String? {
        let e = xcb_connection_has_error(c)
        guard e != 0 else { return nil }
        return e == 1 ? "the X server closed the connection (DISPLAY=\(displayName))"
            : "the X connection failed: \(Self.connectionErrorName(e)) (DISPLAY=\(displayName))"
    }

    func flush() { _ = xcb_flush(c) }

    /// The refresh of the first active CRTC that shows (`x`, `y`) of the root, millihertz (0:
    /// unknown — no RandR, or a virtual server's mode at 0 Hz such as Xvfb's).
    func refreshMilliHz(atX x: Int, y: Int) -> Int {
        guard hasRandR, let res = xcb_randr_get_screen_resources_current_reply(
            c, xcb_randr_get_screen_resources_current(c, root), nil) else { return 0 }
        defer { free(res) }
        let crtcs = xcb_randr_get_screen_resources_current_crtcs(res)!
        let modes = xcb_randr_get_screen_resources_current_modes(res)!
        let nCrtcs = Int(xcb_randr_get_screen_resources_current_crtcs_length(res))
        let nModes = Int(xcb_randr_get_screen_resources_current_modes_length(res))
        var first = 0
        for i in 0..<nCrtcs {
            guard let info = xcb_randr_get_crtc_info_reply(c, xcb_randr_get_crtc_info(c, crtcs[i], res.pointee.config_timestamp), nil)
            else { continue }
            defer { free(info) }
            guard info.pointee.mode != 0 else { continue }
            var hz = 0
            for m in 0..<nModes where modes[m].id == info.pointee.mode {
                hz = X11Refresh.milliHz(dotClock: modes[m].dot_clock, htotal: modes[m].htotal, vtotal: modes[m].vtotal,
                                        flags: modes[m].mode_flags)
            }
            let cx = Int(info.pointee.x), cy = Int(info.pointee.y)
            if x >= cx, y >= cy, x < cx + Int(info.pointee.width), y < cy + Int(info.pointee.height) { return hz }
            if first == 0 { first = hz }
        }
        return first
    }

    func disconnect() { xcb_disconnect(c) }

    static func connectionErrorName(_ e: Int32) -> String {
        switch e {
        case 1: "connection error"
        case 2: "an extension is not supported"
        case 3: "out of memory"
        case 4: "a request was too long"
        case 5: "DISPLAY could not be parsed"
        case 6: "no such screen"
        case 7: "a file descriptor could not be passed"
        default: "error \(e)"
        }
    }
}

/// A RandR mode's refresh: dot clock / (htotal × vtotal), doubled when interlaced and halved
/// when double-scanned (RandR's mode flags), in millihertz; 0 when the mode gives no clock.
enum X11Refresh {
    static func milliHz(dotClock: UInt32, htotal: UInt16, vtotal: UInt16, flags: UInt32) -> Int {
        guard dotClock > 0, htotal > 0, vtotal > 0 else { return 0 }
        var lines = UInt64(vtotal)
        if flags & 0x10 != 0 { lines /= 2 }   // XCB_RANDR_MODE_FLAG_INTERLACE
        if flags & 0x20 != 0 { lines *= 2 }   // XCB_RANDR_MODE_FLAG_DOUBLE_SCAN
        guard lines > 0 else { return 0 }
        return Int((UInt64(dotClock) * 1000 + (UInt64(htotal) * lines) / 2) / (UInt64(htotal) * lines))
    }
}
