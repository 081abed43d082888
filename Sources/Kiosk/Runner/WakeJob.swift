import Foundation
import PunktfunkSession
import PunktfunkWire

/// Wake and wait, on its own thread: magic packets (`WakeSender`: each of the host's MACs to every
/// directed broadcast, 255.255.255.255 and the host's last IPv4 address; again every `resendSeconds`: a
/// packet lost on the way or sent before the NIC's link came up does not end the wait), then
/// `.waited` once a second and `.wakeTimedOut` after `limitSeconds`. Whether the host showed is the machine's to see (its
/// `.hostsChanged`); it cancels the job then.
struct WakeJob: Sendable {
    var job: Int
    var host: HostEntry
    /// The saved host's MACs and addresses, used when the entry has none.
    var saved: KioskConfig.SavedHost?
    var port: UInt16
    var limitSeconds: Int
    var resendSeconds = 10

    func start(events: EventQueue, cancellation: JobCancellation) {
        let thread = Thread { run(events: events, cancellation: cancellation) }
        thread.name = "wake"
        thread.start()
    }

    func run(events: EventQueue, cancellation: JobCancellation) {
        func post(_ outcome: ShellOutcome) { events.post(.shell(job: job, outcome)) }
        let sender = WakeSender(macs: host.macs.isEmpty ? saved?.macs ?? [] : host.macs, lastIPv4: lastIPv4, port: port)
        guard !sender.macs.isEmpty else {
            return post(.wakeFailed(sentence: "No Wake-on-LAN address (MAC) is known for \(host.name). It is learnt when discovery "
                                    + "sees the host awake once, or can be saved as host.\(host.id).macs in the config."))
        }
        let send = sender.send
        let (taken, total, refusal) = send()
        guard taken > 0 else {
            return post(.wakeFailed(sentence: "No magic packet could be sent (\(refusal ?? "no destination")). Is the network up?"))
        }
        post(.wakeSent(sent: taken, destinations: total))
        for second in 1...max(1, limitSeconds) {
            guard cancellation.sleep(1, job: job) else { return }
            post(.waited(seconds: second))
            if second % resendSeconds == 0, second < limitSeconds { _ = send() }
        }
        post(.wakeTimedOut)
    }

    /// The host's address when it is an IPv4 literal, else its first saved IPv4 address.
    var lastIPv4: String? {
        if let (name, _) = try? HostResolver.split(host.address), let a = SocketAddress(ip: name, port: 0), !a.isIPv6 { return name }
        return saved?.addresses.first { SocketAddress(ip: $0, port: 0).map { !$0.isIPv6 } ?? false }
    }
}
