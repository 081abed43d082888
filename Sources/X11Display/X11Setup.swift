import Screen
internal import CXCB

/// A new connection to an X server and what its connection setup says: the screen `DISPLAY`
/// names, the vendor and release. What `X11Connection` (the screen's) and `X11Probe` (`check`'s)
/// both start from; neither sends a request for it.
struct X11Setup {
    let c: OpaquePointer
    /// `DISPLAY` as used ("" = xcb's default).
    let displayName: String
    let screenNumber: Int32
    /// The screen `DISPLAY` names; nil when the server has no such screen.
    let screen: xcb_screen_t?
    /// The server's vendor string and release number (X.Org 21.1.7: "The X.Org Foundation", 12101007).
    let vendor: String
    let release: UInt32

    /// Connects to `displayName` ("" = xcb's default). The caller owns `c` and disconnects it.
    /// - Throws: `.unavailable` when no server answers there.
    static func connect(displayName name: String) throws(ScreenError) -> X11Setup {
        var screenNumber: Int32 = 0
        guard let c = xcb_connect(name.isEmpty ? nil : name, &screenNumber) else {
            throw .unavailable("no X server at DISPLAY=\(name)")
        }
        let failure = xcb_connection_has_error(c)
        guard failure == 0 else {
            xcb_disconnect(c)
            throw .unavailable("no X server answers at DISPLAY=\(name) (\(connectionErrorName(failure)))")
        }
        let setup = xcb_get_setup(c)!
        var it = xcb_setup_roots_iterator(setup)
        var n = screenNumber
        while n > 0, it.rem > 0 { xcb_screen_next(&it); n -= 1 }
        let vendor = String(decoding: UnsafeRawBufferPointer(start: xcb_setup_vendor(setup), count: Int(xcb_setup_vendor_length(setup))),
                            as: UTF8.self)
        return X11Setup(c: c, displayName: name, screenNumber: screenNumber, screen: it.rem > 0 ? it.data?.pointee : nil,
                        vendor: vendor, release: setup.pointee.release_number)
    }

    /// xcb_connection_has_error's code as words.
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
