import PunktfunkSession

/// What the kiosk asks the runner to do. The machine never performs I/O; the runner performs each
/// effect in order and reports outcomes back as `KioskEvent`s carrying the same `job`.
public enum KioskEffect: Sendable, Equatable {
    /// Resolve `host.address` (getaddrinfo) → `.resolved` / `.unresolvable`.
    case resolve(job: Int, host: HostEntry)
    /// Start a stream: a session with a host, or a file. Its progress comes back as `.stream`.
    case startStream(job: Int, StreamRequest)
    /// End the running stream soon (a deliberate quit, close code 0x51); `.stream(.ended)` follows.
    case stopStream(job: Int)
    /// Run the pairing ceremony or access request → `.pairing` events.
    case startPairing(job: Int, PairingRequest)
    /// Forget the pairing in progress (a late result is ignored).
    case cancelPairing(job: Int)
    /// Record `fingerprint` for `key` (`ip:port`) in the trust store on disk.
    case trustHost(key: String, fingerprint: String)
    /// Show or hide the stats overlay on the stream.
    case setStatsOverlay(Bool)
    /// Something the shell asked for beyond streams and pairing (wake, forget, settings, power).
    case shell(ShellRequest)
    /// The box went to standby or woke (`state.power` says which; the screen follows the state).
    case power(PowerChange)
    /// Restore what is left and end the process with this status.
    case exit(code: Int32)
}

/// What to stream.
public enum StreamRequest: Sendable, Equatable {
    /// A session with `host` at the resolved `key` (`ip:port`), checked as `trust` says, that
    /// starts the title `launch` names (nil: the host's desktop).
    case session(host: HostEntry, key: String, trust: HostTrust, launch: String? = nil)
    case file(FilePlayback)
}

/// What to pair with.
public struct PairingRequest: Sendable, Equatable {
    public var host: HostEntry
    /// The resolved `ip:port` the result is stored under.
    public var key: String
    /// The PIN the host shows, or nil to ask its console.
    public var pin: String?

    public init(host: HostEntry, key: String, pin: String?) {
        self.host = host; self.key = key; self.pin = pin
    }
}
