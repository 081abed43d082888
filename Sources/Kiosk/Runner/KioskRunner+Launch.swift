import PunktfunkSession
import PunktfunkWire

extension KioskRunner {
    /// Chains onto `session` (from the pipeline's `prepare`): what the host grants about launching
    /// (ServerHello tag 20, each AccessUpdate) goes to the machine for the host page, and each
    /// LaunchOutcome of the title asked for becomes a notice — the shell's toast or the overlay's,
    /// and a line on stderr. Pump thread.
    static func followLaunch(_ session: ClientSession, host: HostEntry, launch: String?, events: EventQueue) {
        let established = session.onEstablished
        session.onEstablished = { params in
            established?(params)
            events.post(.launchGrant(hostID: host.id, granted: params.serverHello.grants.contains(.launch)))
        }
        let control = session.onControl
        session.onControl = { message in
            control?(message)
            switch message {
            case .accessUpdate(let update):
                events.post(.launchGrant(hostID: host.id, granted: update.grants.contains(.launch)))
            case .launchOutcome(let outcome):
                let title = launch.map(host.titleName) ?? "the title"
                events.post(.notice(sentence: LaunchNews.sentence(outcome, title: title, host: host.name)))
            default:
                break
            }
        }
    }
}
