/// The network section: discovery's port, hosts seen, the media socket's receive buffer.
public struct NetworkObservation: Sendable {
    public enum MDNSSocket: Sendable, Equatable {
        /// Bound to 5353 beside other responders (SO_REUSEPORT).
        case shared
        /// 5353 could not be bound; queries go out from an ephemeral port (unicast answers only).
        case oneShot(reason: String)
        /// No discovery socket at all.
        case failed(reason: String)
    }

    public var mdns: MDNSSocket
    /// Hosts that answered, as "name (address)".
    public var hostsSeen: [String]
    public var browseSeconds: Double
    /// What the media socket asks the kernel for, and what it grants (the usable size: Linux
    /// reports twice the granted size in getsockopt; the gatherer halves it).
    public var receiveBufferAsked: Int
    public var receiveBufferGranted: Int

    public init(mdns: MDNSSocket, hostsSeen: [String], browseSeconds: Double, receiveBufferAsked: Int, receiveBufferGranted: Int) {
        self.mdns = mdns; self.hostsSeen = hostsSeen; self.browseSeconds = browseSeconds
        self.receiveBufferAsked = receiveBufferAsked; self.receiveBufferGranted = receiveBufferGranted
    }
}

public enum NetworkJudge {
    public static func judge(_ o: NetworkObservation) -> Section {
        var findings: [Finding] = []
        switch o.mdns {
        case .shared:
            findings.append(Finding("mDNS port 5353", .ok, "bindable beside other responders (avahi, resolved): discovery hears every announcement."))
        case .oneShot(let reason):
            findings.append(Finding("mDNS port 5353", .degraded,
                                    "not bindable (\(reason)): discovery only sees hosts answering its own queries.",
                                    action: "Let the responder share the port (avahi does; for systemd-resolved set MulticastDNS=no or resolve), or connect by address."))
        case .failed(let reason):
            findings.append(Finding("mDNS port 5353", .failed, "no discovery socket: \(reason).",
                                    action: "Check the network is up; connect by address (`punktfunk-kiosk connect HOST`)."))
        }
        let seconds = "\(Int(o.browseSeconds.rounded())) s"
        if o.hostsSeen.isEmpty {
            findings.append(Finding("hosts", .notAvailable, "no punktfunk host answered in \(seconds).",
                                    action: "Start a host on this network, or connect by address.", informational: true))
        } else {
            findings.append(Finding("hosts", .ok, "\(o.hostsSeen.count) host\(o.hostsSeen.count == 1 ? "" : "s") answered in \(seconds): \(o.hostsSeen.joined(separator: ", ")).",
                                    facts: [Fact("hosts", o.hostsSeen.joined(separator: "; "))]))
        }
        let facts = [Fact("asked", kib(o.receiveBufferAsked)), Fact("granted", kib(o.receiveBufferGranted))]
        if o.receiveBufferGranted >= o.receiveBufferAsked {
            findings.append(Finding("receive buffer", .ok, "the kernel grants the \(kib(o.receiveBufferAsked)) the media socket asks for.", facts: facts))
        } else {
            findings.append(Finding("receive buffer", .degraded,
                                    "the kernel grants \(kib(o.receiveBufferGranted)) of the \(kib(o.receiveBufferAsked)) the media socket asks for: bursts at high bitrates may be dropped.",
                                    action: "Raise it: `sysctl -w net.core.rmem_max=\(o.receiveBufferAsked)` (persist in /etc/sysctl.d).", facts: facts))
        }
        return Section(.network, findings)
    }

    static func kib(_ bytes: Int) -> String { "\(bytes / 1024) KiB" }
}

/// The box section: kernel, distribution, real-time priority, logind, the config file.
public struct BoxObservation: Sendable {
    public var kernel: String
    public var distribution: String
    /// RLIMIT_RTPRIO's soft limit (0: no real-time priority), and whether the process is root.
    public var rtPriorityLimit: Int
    public var isRoot: Bool
    /// logind answers (its D-Bus socket and /run/systemd/seats exist).
    public var logindReachable: Bool
    public var configPath: String
    /// nil: no config file (defaults apply).
    public var configProblems: [String]?

    public init(kernel: String, distribution: String, rtPriorityLimit: Int, isRoot: Bool, logindReachable: Bool,
                configPath: String, configProblems: [String]?) {
        self.kernel = kernel; self.distribution = distribution; self.rtPriorityLimit = rtPriorityLimit; self.isRoot = isRoot
        self.logindReachable = logindReachable; self.configPath = configPath; self.configProblems = configProblems
    }
}

public enum BoxJudge {
    public static func judge(_ o: BoxObservation) -> Section {
        var findings = [Finding("system", .ok, "\(o.distribution), kernel \(o.kernel).")]
        if o.isRoot || o.rtPriorityLimit > 0 {
            findings.append(Finding("real-time priority", .ok,
                                    o.isRoot ? "available (running as root)." : "available up to \(o.rtPriorityLimit) (RLIMIT_RTPRIO)."))
        } else {
            findings.append(Finding("real-time priority", .degraded,
                                    "not available (RLIMIT_RTPRIO is 0): decode and presentation threads may be delayed under load.",
                                    action: "Run the kiosk from the package's systemd unit, which grants it, or set rtprio in /etc/security/limits.d."))
        }
        findings.append(o.logindReachable
            ? Finding("logind", .ok, "reachable: the kiosk can take the seat's devices and follow VT switches.")
            : Finding("logind", .degraded, "not reachable: VT switching and device access fall back to the process's own permissions.",
                      action: "Run on a systemd system with systemd-logind (the package's unit needs it)."))
        switch o.configProblems {
        case nil:
            findings.append(Finding("config", .ok, "no \(o.configPath): the defaults apply."))
        case let problems? where problems.isEmpty:
            findings.append(Finding("config", .ok, "\(o.configPath) reads without problems."))
        case let problems?:
            findings.append(Finding("config", .degraded, "\(o.configPath): \(problems.count) problem\(problems.count == 1 ? "" : "s"), first: \(problems[0]).",
                                    action: "Fix or remove those lines; the kiosk ignores them and uses the defaults.",
                                    facts: problems.enumerated().map { Fact("problem \($0.offset + 1)", $0.element) }))
        }
        return Section(.box, findings)
    }
}
