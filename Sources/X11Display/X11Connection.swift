#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Screen
import SystemClock
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
    /// The active RandR CRTCs at connect (`X11Probe.crtcs`; empty without RandR 1.3).
    let crtcs: [X11ProbeResult.CRTC]
    /// The server is Xwayland (`X11Probe.isXwayland`).
    let isXwayland: Bool

    private var atomCache: [String: xcb_atom_t] = [:]

    /// Connects to `display` (nil: `$DISPLAY`) and reads what the server offers.
    /// - Throws: `.unavailable` when no server answers; `.unusable` without Present or with a
    ///   root that is not 24/32-bit TrueColor.
    init(display: String?) throws(ScreenError) {
        let opened = try X11Setup.connect(displayName: display ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? "")
        let conn = opened.c
        guard let s = opened.screen else {
            xcb_disconnect(conn)
            throw .unusable("the X server has no screen \(opened.screenNumber)")
        }
        c = conn
        displayName = opened.displayName
        screenNumber = opened.screenNumber
        root = s.root
        rootVisual = s.root_visual
        rootDepth = s.root_depth
        rootWidth = Int(s.width_in_pixels)
        rootHeight = Int(s.height_in_pixels)
        vendor = opened.vendor
        release = opened.release
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
        var active: [X11ProbeResult.CRTC] = []
        if hasRandR, let v = xcb_randr_query_version_reply(conn, xcb_randr_query_version(conn, 1, 3), nil) {
            // GetScreenResourcesCurrent is RandR 1.3; read as `check` reads it, within 3 s.
            let current = (v.pointee.major_version, v.pointee.minor_version) >= (1, 3)
            free(v)
            if current {
                active = (try? X11Probe.crtcs(ProbeLink(c: conn, deadlineNs: MonotonicClock.nowNs() + 3_000_000_000), root: root)) ?? []
            }
        }
        crtcs = active
        isXwayland = X11Probe.isXwayland(extensionOffered: hasExtension, crtcs: active)
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
            : "the X connection failed: \(X11Setup.connectionErrorName(e)) (DISPLAY=\(displayName))"
    }

    func flush() { _ = xcb_flush(c) }

    /// The refresh of the active CRTC that shows (`x`, `y`) of the root (else the first one),
    /// millihertz (0: unknown — no RandR 1.3, or a virtual server's mode at 0 Hz such as Xvfb's).
    func refreshMilliHz(atX x: Int, y: Int) -> Int {
        let showing = crtcs.first { x >= $0.x && y >= $0.y && x < $0.x + $0.width && y < $0.y + $0.height }
        return (showing ?? crtcs.first)?.refreshMilliHz ?? 0
    }

    func disconnect() { xcb_disconnect(c) }
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
