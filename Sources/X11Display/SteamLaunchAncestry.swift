#if canImport(Glibc)
import Glibc
#endif

/// Reads this process's ancestry the way gamescope reads a window's (`get_appid_from_pid` in
/// gamescope's `src/steamcompmgr.cpp`): parent by parent through `/proc/<pid>/stat` up to pid 1,
/// and for each process named `reaper` its `/proc/<pid>/cmdline`. The id it finds is the one
/// gamescope computes itself, so `STEAM_GAME` set to it can never clash with gamescope's own.
/// Read-only; a process that vanishes or cannot be read ends the walk.
public enum SteamLaunchAncestry {
    /// The `AppId` of the outermost `reaper SteamLaunch AppId=N` ancestor (nil: none, e.g. not
    /// started by Steam, or the reaper lives outside this PID namespace).
    public static func appID() -> UInt32? {
        var pid = getppid()
        var found: UInt32?
        // A chain is short; the bound only guards against a /proc that loops.
        for _ in 0..<256 where pid > 0 {
            guard let stat = read("/proc/\(pid)/stat"), let (name, parent) = parseStat(stat) else { break }
            if name == "reaper", let cmdline = read("/proc/\(pid)/cmdline"),
               let id = GamescopeProperties.appID(reaperCommandLine: cmdline) {
                found = id  // an outer reaper replaces an inner one, as in gamescope's walk
            }
            pid = parent
        }
        return found
    }

    /// The process name (between the first `(` and the last `)`) and the parent pid (the second
    /// field after the name) of a `/proc/<pid>/stat` line.
    static func parseStat(_ bytes: [UInt8]) -> (name: String, parent: Int32)? {
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), let close = bytes.lastIndex(of: UInt8(ascii: ")")),
              open < close else { return nil }
        let name = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        let rest = String(decoding: bytes[(close + 1)...], as: UTF8.self).split(separator: " ")
        guard rest.count >= 2, let parent = Int32(rest[1]) else { return nil }
        return (name, parent)
    }

    /// The whole file (at most 64 KiB: a stat line or a command line), nil when unreadable.
    static func read(_ path: String) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while out.count < 65_536 {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            out += chunk[0..<n]
        }
        return out
    }
}
