import Foundation

/// Which backend of the `Screen` seam shows the kiosk (`--display`, config key `display`).
public enum DisplayBackend: String, Sendable, Equatable, CaseIterable {
    /// Wayland when a compositor is reachable, else X11 when an X server is, else KMS.
    case auto
    /// DRM/KMS from a TTY: the kiosk owns the display.
    case kms
    /// A fullscreen window under the compositor that owns the display.
    case wayland
    /// A fullscreen window on an X server (an X11 desktop, gamescope's Xwayland in Steam's Game Mode).
    case x11

    /// The backend to open for `asked`, and the reason the start-up line gives: the first of
    /// `candidates`. Pure: the environment and the file system are passed in.
    public static func decide(_ asked: DisplayBackend, environment: [String: String],
                              socketExists: (String) -> Bool) -> (backend: DisplayBackend, reason: String) {
        candidates(asked, environment: environment, socketExists: socketExists)[0]
    }

    /// The backends to try in order, each with the reason the start-up line gives when it is the
    /// one that opens: a backend named is the only one; `auto` is Wayland when a compositor is
    /// reachable, then X11 when an X server is, then KMS — a candidate that is reachable but does not
    /// open (gamescope's own Wayland socket offers no xdg-shell) gives way to the next.
    /// - Parameters:
    ///   - environment: the process's (`WAYLAND_DISPLAY`, `XDG_RUNTIME_DIR`, `DISPLAY`).
    ///   - socketExists: whether a Unix socket is at an absolute path.
    public static func candidates(_ asked: DisplayBackend, environment: [String: String],
                                  socketExists: (String) -> Bool) -> [(backend: DisplayBackend, reason: String)] {
        switch asked {
        case .kms: return [(.kms, "as asked (--display kms)")]
        case .wayland: return [(.wayland, "as asked (--display wayland)")]
        case .x11: return [(.x11, "as asked (--display x11)")]
        case .auto: break
        }
        var out: [(DisplayBackend, String)] = []
        var missing: [String] = []
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        if let name = environment["WAYLAND_DISPLAY"], !name.isEmpty {
            // libwayland: an absolute name is the socket itself, else it lives in XDG_RUNTIME_DIR.
            let path = name.hasPrefix("/") ? name : runtime.map { "\($0)/\(name)" }
            if let path, socketExists(path) {
                out.append((.wayland, "a compositor is reachable (WAYLAND_DISPLAY=\(name))"))
            } else {
                missing.append("WAYLAND_DISPLAY=\(name) is set but no compositor listens at \(path ?? "it (XDG_RUNTIME_DIR is unset)")")
            }
        } else if let runtime, socketExists("\(runtime)/wayland-0") {
            out.append((.wayland, "a compositor is reachable (\(runtime)/wayland-0)"))
        } else {
            missing.append("no compositor is reachable (WAYLAND_DISPLAY is unset and there is no $XDG_RUNTIME_DIR/wayland-0)")
        }
        let noWayland = out.isEmpty ? missing.joined(separator: "; ") + "; " : ""
        if let x = environment["DISPLAY"], !x.isEmpty {
            switch X11DisplayName(x) {
            case .local(let socket) where socketExists(socket):
                out.append((.x11, "\(noWayland)an X server is reachable (DISPLAY=\(x))"))
            case .local(let socket):
                missing.append("DISPLAY=\(x) is set but no X server listens at \(socket)")
            case .remote(let host):
                out.append((.x11, "\(noWayland)DISPLAY=\(x) names an X server on \(host) (over TCP)"))
            case nil:
                missing.append("DISPLAY=\(x) is not a display name")
            }
        } else {
            missing.append("DISPLAY is unset")
        }
        out.append((.kms, missing.joined(separator: "; ")))
        return out
    }

    /// Whether `path` is a Unix socket (what a listening compositor or X server leaves).
    public static func isSocket(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK
    }
}

/// Where an X11 display name points, as libxcb reads it (`xcb_parse_display`): `:N[.S]` and
/// `unix:N[.S]` are the local socket `/tmp/.X11-unix/XN`; an absolute path is a socket itself;
/// `host:N` is TCP port 6000 + N on `host`. nil: not a display name.
public enum X11DisplayName: Equatable, Sendable {
    case local(socket: String)
    case remote(host: String)

    public init?(_ name: String) {
        if name.hasPrefix("/") {
            // A socket path, optionally followed by `:N` (launchd-style names); the path is what exists.
            let path = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name
            self = .local(socket: path)
            return
        }
        guard let colon = name.lastIndex(of: ":") else { return nil }
        let host = String(name[..<colon])
        let rest = name[name.index(after: colon)...]
        let number = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard !number.isEmpty, number.allSatisfy(\.isNumber), let n = Int(number) else { return nil }
        if host.isEmpty || host == "unix" {
            self = .local(socket: "/tmp/.X11-unix/X\(n)")
        } else {
            self = .remote(host: host)
        }
    }
}
