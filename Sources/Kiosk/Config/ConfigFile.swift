import Foundation
import Glibc

/// Reads and writes the kiosk's `config` in the profile directory (`ConfigDirectory`).
///
/// Writes are atomic: the text goes to `config.tmp` in the same directory, is fsynced, renamed
/// over `config`, and the directory is fsynced, so after a power cut the file is either the old
/// one or the new one, never a truncated mix.
public enum ConfigFile {
    public static let fileName = "config"

    /// The config in `directory`; an absent file is an empty config. Problems are in `.problems`.
    public static func load(from directory: URL) throws -> KioskConfig {
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return KioskConfig() }
        return KioskConfig(text: try String(contentsOf: url, encoding: .utf8))
    }

    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func store(_ config: KioskConfig, in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let url = directory.appendingPathComponent(fileName)
        let tmp = url.path + ".tmp"
        unlink(tmp)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WriteError(description: "cannot create \(tmp): \(String(cString: strerror(errno)))") }
        let bytes = Array(config.text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(tmp)
                throw WriteError(description: "cannot write \(tmp): \(reason)")
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(tmp)
            throw WriteError(description: "cannot sync \(tmp): \(reason)")
        }
        close(fd)
        guard rename(tmp, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw WriteError(description: "cannot rename \(tmp) to \(url.path): \(reason)")
        }
        let dir = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }
}
