import Foundation
import PunktfunkSession

/// What `connect` and `pair` load before dialling: the resolved host, this client's identity and
/// the known-hosts store, from the XDG config directory. Every failure is one sentence.
struct ClientProfile {
    let directory: URL
    let remote: SocketAddress
    let identity: TLSIdentity
    var knownHosts: KnownHosts

    static func load(host: String) -> Result<ClientProfile, ProfileError> {
        guard let directory = ConfigDirectory.resolve(environment: ProcessInfo.processInfo.environment) else {
            return .failure(ProfileError("Neither XDG_CONFIG_HOME nor HOME is set, so there is nowhere to keep the client identity."))
        }
        let remote: SocketAddress
        do { remote = try HostResolver.resolve(host) } catch { return .failure(ProfileError(error.description)) }
        do {
            return .success(ClientProfile(directory: directory, remote: remote,
                                          identity: try TLSIdentity.loadOrCreate(in: directory),
                                          knownHosts: try KnownHosts.load(from: directory)))
        } catch {
            return .failure(ProfileError("The client identity or known-hosts store in \(directory.path) is unusable: \(error)"))
        }
    }

    struct ProfileError: Error {
        var sentence: String
        init(_ sentence: String) { self.sentence = sentence }
    }
}
