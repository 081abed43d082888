import PunktfunkSession

/// What the shell asks of the box beyond streams and pairing; the runner performs these off its
/// thread and answers wake and speed test with `KioskEvent.shell(job:_:)` events of the same job.
public enum ShellRequest: Sendable, Equatable {
    /// Wake-on-LAN `host` (its MACs, else the saved host's) and report each second until
    /// `WakeProgress.limitSeconds`; the machine ends the wait when discovery lists the host.
    case wake(job: Int, host: HostEntry)
    /// A short session with `host` without decoding: a probe burst, its report and the RTT.
    case speedTest(job: Int, host: HostEntry)
    /// Stop the wake wait or speed test of `job` (a late result is ignored anyway).
    case cancel(job: Int)
    /// Remove the host's pins from the trust store and its saved entry from the config.
    case forget(HostEntry)
    /// Save a host typed by address.
    case saveHost(HostEntry)
    /// The settings changed: keep them in the config; they apply to the next stream.
    case saveSettings(ShellSettings, statsOverlay: Bool)
    /// Rumble / flash the lightbar of the controller in this wire slot for a moment.
    case identifyController(slot: Int)
    /// Through logind, where it allows.
    case powerOff
    case restart
}
