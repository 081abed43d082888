/// How the application behaves around its jobs: the command-line adapters run one job and end
/// the process with its outcome; the kiosk stays, going back to the host list or an error screen.
public struct KioskPolicy: Sendable, Equatable {
    public enum AfterJob: Sendable, Equatable {
        /// End the process when the first job ends: 0 when it finished, 1 when it failed.
        case exitProcess
        /// Go back to the host list (finished) or the error screen (failed).
        case returnToHosts
    }

    public var afterJob: AfterJob
    /// Accept a host's certificate on first use and record it (`--tofu`).
    public var allowFirstUse: Bool
    /// Without a usable display, end with `ExitStatus.noDisplay` (connect or present on glass)
    /// instead of running the session headless (the kiosk says so and goes on).
    public var requiresDisplay: Bool
    /// How long leaving waits for the running stream to stop before ending anyway, ns.
    public var leaveGraceNs: UInt64
    /// Boot-to-stream: with `.returnToHosts`, a failed connect, a lost stream or a stream the host
    /// ended that names a host to retry is retried by itself after this long, ns (the error screen
    /// says when); nil waits for a person. A person's disconnect is never retried.
    public var retryFailedHostAfterNs: UInt64?
    /// Boot-to-stream's host: a wake from standby streams it again (nil: a wake goes back to the
    /// shell).
    public var bootHost: String?
    /// The command line's `--standby-after`, seconds (0: off; nil: the saved setting).
    public var standbyAfterSeconds: Int?

    public init(afterJob: AfterJob, allowFirstUse: Bool = false, requiresDisplay: Bool = false,
                leaveGraceNs: UInt64 = 5_000_000_000) {
        self.afterJob = afterJob; self.allowFirstUse = allowFirstUse
        self.requiresDisplay = requiresDisplay; self.leaveGraceNs = leaveGraceNs
    }
}

/// The process's exit statuses.
public enum ExitStatus {
    /// The job ran its course (the requested time passed, the file played, the host is paired).
    public static let finished: Int32 = 0
    /// The job failed; the sentence was said on stderr.
    public static let failed: Int32 = 1
    /// The job needs a display and there is none (a display that is there but unusable as asked
    /// is a failure, 1).
    public static let noDisplay: Int32 = 2
}
