import Foundation
import PunktfunkSession

/// The shell's changes to the profile directory: forgetting a host (trust store and config),
/// saving a typed host, saving the settings. Each reads the file fresh and writes it atomically
/// (`KnownHosts.store`, `ConfigFile.store`). - Returns: a sentence when something could not be
/// done, else nil.
struct ProfileWrites: Sendable {
    let directory: URL

    /// Removes every pin of `host` — the one for its resolved address, and any carrying its given
    /// or saved fingerprint — and its saved entry. - Returns: the trust store as written, and a
    /// problem sentence.
    func forget(_ host: HostEntry) -> (KnownHosts?, String?) {
        var problems: [String] = []
        var config: KioskConfig?
        do { config = try ConfigFile.load(from: directory) } catch { problems.append("the config could not be read: \(error)") }
        var keys: Set<String> = []
        if let (name, port) = try? HostResolver.split(host.address) {
            keys.insert(name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)")
        }
        if let resolved = try? HostResolver.resolve(host.address) { keys.insert(resolved.description) }
        let fingerprints = Set([host.givenFingerprint, config?.host(host.id)?.fingerprint].compactMap { $0?.lowercased() })
        var written: KnownHosts?
        do {
            var known = try KnownHosts.load(from: directory)
            let doomed = known.entries.filter { keys.contains($0.key) || fingerprints.contains($0.value) }.map(\.key)
            for key in doomed { known.forget(host: key) }
            if !doomed.isEmpty { try known.store(in: directory) }
            written = known
        } catch {
            problems.append("the trust store could not be changed: \(error)")
        }
        if var config, config.host(host.id) != nil {
            config.hosts.removeAll { $0.id == host.id }
            if config.autoconnect == host.id { config.autoconnect = nil }
            do { try ConfigFile.store(config, in: directory) } catch { problems.append("the config could not be written: \(error)") }
        }
        return (written, problems.isEmpty ? nil : "Forgetting \(host.name): \(problems.joined(separator: "; ")).")
    }

    /// Saves a host typed by address: its id and name are the text; an IP literal is its address,
    /// a name is resolved now (the config keeps IP literals).
    func save(_ host: HostEntry) -> String? {
        do {
            var config = try ConfigFile.load(from: directory)
            guard config.host(host.id) == nil else { return nil }
            var saved = KioskConfig.SavedHost(id: host.id, name: host.name)
            if let (name, port) = try? HostResolver.split(host.address) {
                saved.port = port == HostResolver.defaultPort ? nil : port
                if SocketAddress(ip: name, port: 0) != nil {
                    saved.addresses = [name]
                } else if let resolved = try? HostResolver.resolve(host.address) {
                    saved.addresses = [resolved.host]
                }
            }
            config.save(saved)
            try ConfigFile.store(config, in: directory)
            return nil
        } catch {
            return "\(host.name) could not be saved: \(error)"
        }
    }

    func save(_ settings: ShellSettings, statsOverlay: Bool) -> String? {
        do {
            var config = settings.stored(in: try ConfigFile.load(from: directory))
            config.statsOverlay = statsOverlay
            try ConfigFile.store(config, in: directory)
            return nil
        } catch {
            return "The settings could not be saved: \(error)"
        }
    }
}
