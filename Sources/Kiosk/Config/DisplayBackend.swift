import Foundation

/// Which backend of the `Screen` seam shows the kiosk (`--display`, config key `display`).
public enum DisplayBackend: String, Sendable, Equatable, CaseIterable {
    /// Wayland when a compositor is reachable, else KMS.
    case auto
    /// DRM/KMS from a TTY: the kiosk owns the display.
    case kms
    /// A fullscreen window under the compositor that owns the display.
    case wayland

    /// The backend to open for `asked`, and the reason the start-up line gives. Pure: the
    /// environment and the file system are passed in.
    /// - Parameters:
    ///   - environment: the process's (`WAYLAND_DISPLAY`, `XDG_RUNTIME_DIR`).
    ///   - socketExists: whether a Unix socket is at an absolute path.
    public static func decide(_ asked: DisplayBackend, environment: [String: String],
                              socketExists: (String) -> Bool) -> (backend: DisplayBackend, reason: String) {
        switch asked {
        case .kms: return (.kms, "as asked (--display kms)")
        case .wayland: return (.wayland, "as asked (--display wayland)")
        case .auto: break
        }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        if let name = environment["WAYLAND_DISPLAY"], !name.isEmpty {
            // libwayland: an absolute name is the socket itself, else it lives in XDG_RUNTIME_DIR.
            let path = name.hasPrefix("/") ? name : runtime.map { "\($0)/\(name)" }
            if let path, socketExists(path) { return (.wayland, "a compositor is reachable (WAYLAND_DISPLAY=\(name))") }
            return (.kms, "WAYLAND_DISPLAY=\(name) is set but no compositor listens at \(path ?? "it (XDG_RUNTIME_DIR is unset)")")
        }
        if let runtime, socketExists("\(runtime)/wayland-0") {
            return (.wayland, "a compositor is reachable (\(runtime)/wayland-0)")
        }
        return (.kms, "no compositor is reachable (WAYLAND_DISPLAY is unset and there is no $XDG_RUNTIME_DIR/wayland-0)")
    }

    /// Whether `path` is a Unix socket (what a listening compositor leaves).
    public static func isSocket(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK
    }
}
