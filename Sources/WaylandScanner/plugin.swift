import Foundation
import PackagePlugin

/// Runs `/usr/bin/wayland-scanner` (Debian `libwayland-bin`, pulled by `libwayland-dev`) on the
/// system's protocol XML (`wayland-protocols`) at build time; the generated code is never
/// committed.
///
/// Why a prebuild command and a symlink (checked with SwiftPM 6.3.1, native build system, on a
/// throwaway package): a build-tool plugin's generated `.c`/`.h` files are NOT compiled in a C
/// target — SwiftPM warns "C source file generation not enabled" / "C header file generation not
/// enabled", and because nothing consumes those outputs it does not even run the commands. So:
/// - a **prebuild** command (runs before every build plan, also from a clean `.build`) writes
///   `<name>-client-protocol.h` (client-header) and `<name>-protocol.c` (private-code) for each
///   protocol into this plugin's work directory (inside whichever scratch path the build uses),
///   rewriting a file only when its content changed (so nothing recompiles needlessly);
/// - it points the symlink `Sources/CWaylandProtocols/generated` (git-ignored) at that
///   directory; the target's stable sources `#include "../generated/…"`: `protocols.c` the
///   private code, `include/CWaylandProtocols.h` the client headers.
/// The prebuild's declared output directory stays empty, so SwiftPM adds no sources of its own.
/// When SwiftPM compiles generated C (the swiftbuild build system), this becomes an ordinary
/// build command with `outputFiles`.
@main
struct WaylandScanner: BuildToolPlugin {
    /// Protocol XML under /usr/share/wayland-protocols (Debian 12: wayland-protocols 1.31).
    static let protocols = [
        "stable/xdg-shell/xdg-shell.xml",
        "stable/presentation-time/presentation-time.xml",
        "stable/viewporter/viewporter.xml",
        "unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml",
        "unstable/idle-inhibit/idle-inhibit-unstable-v1.xml",
        "staging/content-type/content-type-v1.xml",
        "staging/single-pixel-buffer/single-pixel-buffer-v1.xml",
        "staging/fractional-scale/fractional-scale-v1.xml",
        // For Wayland input (the seat): pointer lock, relative motion, shortcuts inhibit.
        "unstable/relative-pointer/relative-pointer-unstable-v1.xml",
        "unstable/pointer-constraints/pointer-constraints-unstable-v1.xml",
        "unstable/keyboard-shortcuts-inhibit/keyboard-shortcuts-inhibit-unstable-v1.xml",
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let work = context.pluginWorkDirectoryURL
        let generated = work.appendingPathComponent("generated")
        let declared = work.appendingPathComponent("none")  // stays empty: no SwiftPM-managed sources
        let link = URL(fileURLWithPath: target.directory.string).appendingPathComponent("generated")
        let script = #"""
        set -eu
        out="$1"; none="$2"; link="$3"; shift 3
        mkdir -p "$out" "$none"
        put() {  # put MODE XML DEST: generate into a temp file, replace DEST only when it changed
            /usr/bin/wayland-scanner "$1" "$2" "$3.tmp"
            if cmp -s "$3.tmp" "$3"; then rm -f "$3.tmp"; else mv -f "$3.tmp" "$3"; fi
        }
        for xml in "$@"; do
            base=$(basename "$xml" .xml)
            put client-header "/usr/share/wayland-protocols/$xml" "$out/$base-client-protocol.h"
            put private-code "/usr/share/wayland-protocols/$xml" "$out/$base-protocol.c"
        done
        [ "$(readlink "$link" 2>/dev/null)" = "$out" ] || ln -sfn "$out" "$link"
        """#
        return [
            .prebuildCommand(
                displayName: "wayland-scanner: \(Self.protocols.count) protocols",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "wayland-scanner", generated.path, declared.path, link.path] + Self.protocols,
                outputFilesDirectory: declared
            )
        ]
    }
}
