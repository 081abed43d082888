import Foundation
import Input
import PunktfunkSession
import PunktfunkWire
import Shell

/// The process-lived input: one `InputService` from the runner's start to its exit, whose route
/// follows the phase — the shell (navigation posted to the runner's `EventQueue` as
/// `.navigate`, `.pointer`, `.controllersChanged`) or the streaming session's host (its sink,
/// policy, grants and feedback; the escape chord posts `.user(.escapeChord)`).
///
/// The shell route's timing (a held direction's auto-repeat, coalesced pointer motion) runs on
/// the input thread (`NavigationHandler.tick`), so it keeps time while the runner is busy.
///
/// Thread contract: `start`, `stop`, `follow`, `attach`, `chain`, `suspendPolicy`, `detach`,
/// `identify`, `setPanel` on the runner's thread; `glyphs`, `pointer`, `pads`, `counters` from
/// any thread; `onConsoleSwitch` is called on the input thread (set it before `start`).
final class ShellInput: NavigationHandler, @unchecked Sendable {
    let service: InputService
    private let events: EventQueue
    private let lock = NSLock()
    /// Guarded by `lock` (the input thread writes, the runner reads glyphs and the pointer).
    private var feed = ShellInputFeed()
    /// The route asked for last (runner's thread).
    private var route: InputRoute = .shell
    /// Ctrl+Alt+F`n` in the shell: switch to VT `n` (input thread).
    var onConsoleSwitch: (Int) -> Void = { _ in }
    /// HDMI-CEC as configured (nil: off).
    private let cec: CECOptions?
    /// The TV was asked to show the running connection (runner's thread).
    private var shownOnTV = false

    init(options: InputService.Options, events: EventQueue) {
        self.events = events
        cec = options.cec
        service = InputService(options: options)
        service.navigationHandler = self
        service.onEscape = { events.post(.user(.escapeChord)) }
        service.onPadsChanged = { pads in events.post(.controllersChanged(pads.map(ShellInput.controller))) }
        service.onCEC = { notice in
            switch notice {
            case .standby: events.post(.tvStandby)
            case .wake: events.post(.tvWake)
            case .ready, .gone: break
            }
        }
    }

    /// - Returns: a sentence when input cannot run at all.
    func start() -> String? { service.start() }

    /// Releases everything, resets the pads' feedback, ungrabs, joins the input thread. With
    /// HDMI-CEC the TV goes to standby first (`cec-tv-off`), else it hears we are inactive.
    func stop() {
        if let cec { service.cec(cec.standbyTV ? .standbyTV : .idle) }
        service.stop()
    }

    // MARK: - Power

    /// The box went to standby or woke: the TV hears what `change` says, and the bus is told
    /// the power status (before the phase's own One Touch Play in `follow`).
    func power(_ change: PowerChange) {
        guard let cec else { return }
        switch change {
        case .standby(let tell):
            switch tell {
            case .standby: service.cec(.standbyTV)
            case .inactiveSource: service.cec(.idle)
            case .nothing: break
            }
            service.cec(.power(standby: true))
        case .on(let oneTouchPlay):
            service.cec(.power(standby: false))
            if oneTouchPlay { service.cec(.streamStarted(wakeTV: cec.wakeTV)) }
        }
    }

    /// The bus asked for a power change and the machine decided: the bus is told where the box
    /// is (which ends the transition the request began, also when nothing changed).
    func settle(_ power: BoxPower) {
        guard cec != nil else { return }
        service.cec(.power(standby: power == .standby))
    }

    // MARK: - Route

    /// Streaming → the host route; anything else (the in-stream menu, the shell's pages,
    /// connecting) → the shell route. Cheap when the route does not change.
    func follow(phase: KioskPhase) {
        followOnTV(phase)
        let next: InputRoute = if case .streaming = phase { .host } else { .shell }
        guard next != route else { return }
        route = next
        service.setRoute(next)
    }

    /// The session of `pipeline` takes the host route's events (its policy follows in `chain`).
    /// - Returns: the sink, for `detach`.
    func attach(_ pipeline: StreamPipeline) -> InputSink {
        let sink = SessionInputSink(pipeline: pipeline)
        service.attach(sink: sink)
        return sink
    }

    /// Chains the policy, access updates and the host's feedback onto `session`'s handlers (call
    /// from the pipeline's `prepare`, after the pipeline's own handlers are installed).
    func chain(_ session: ClientSession, askedPadKind: GamepadKind) {
        let service = self.service
        let established = session.onEstablished
        session.onEstablished = { params in
            established?(params)
            service.setPolicy(InputPolicy(serverHello: params.serverHello, askedPadKind: askedPadKind))
        }
        let control = session.onControl
        session.onControl = { message in
            control?(message)
            if case .accessUpdate(let update) = message { service.updateGrants(update.grants) }
        }
        let hostDatagram = session.onHostDatagram
        session.onHostDatagram = { datagram in
            hostDatagram?(datagram)
            service.feedback(datagram)
        }
    }

    /// The connection is being resumed: input is held back; the resumed session first gets the
    /// releases.
    func suspendPolicy() { service.setPolicy(nil) }

    /// The session of `sink` ends: its host gets its releases now (before the quit).
    func detach(_ sink: InputSink) { service.detach(sink) }

    /// A connection starting (or boot-to-stream's) wakes the TV and switches it to our input
    /// (One Touch Play: <Image View On>, <Active Source>), once per connection. (A wake into the
    /// shell asks through `power`.)
    private func followOnTV(_ phase: KioskPhase) {
        guard let cec else { return }
        switch phase {
        case .connecting, .streaming, .inStreamMenu:
            guard !shownOnTV else { return }
            shownOnTV = true
            service.cec(.streamStarted(wakeTV: cec.wakeTV))
        case .leaving:
            break
        default:
            shownOnTV = false
        }
    }

    // MARK: - The shell's view

    /// The glyphs of the device used last (a mouse keeps the previous). Read on each redraw: a
    /// change always comes with the press that posted the redraw's event.
    var glyphs: GlyphSet { lock.withLock { feed.glyphs } }

    /// The pointer in panel pixels.
    var pointer: (x: Int, y: Int) { lock.withLock { (feed.pointerX, feed.pointerY) } }

    /// The panel's mode: the pointer is kept inside it.
    func setPanel(width: Int, height: Int) { lock.withLock { feed.setPanel(width: width, height: height) } }

    /// Rumble / lightbar flash on the pad in `slot` for 300 ms.
    func identify(slot: Int) { service.identify(slot: slot) }

    var counters: InputCounters { service.counters }

    // MARK: - NavigationHandler (input thread)

    func navigate(_ event: NavigationEvent, nowNs: UInt64) {
        if case .switchConsole(let vt) = event { onConsoleSwitch(vt); return }
        let events = self.events
        lock.withLock { feed.take(event, now: nowNs) { events.post($0) } }
    }

    func tick(nowNs: UInt64) -> UInt64? {
        let events = self.events
        return lock.withLock {
            if let due = feed.nextDeadline, nowNs >= due { feed.tick(now: nowNs) { events.post($0) } }
            return feed.nextDeadline
        }
    }

    static func controller(_ pad: PadInfo) -> ControllerInfo {
        let kind = switch pad.kind {
        case .dualSense: "DualSense"
        case .dualSenseEdge: "DualSense Edge"
        case .dualShock4: "DualShock 4"
        case .xbox360: "Xbox 360"
        case .xboxOne, .xboxElite: "Xbox"
        case .switchPro, .switch2Pro: "Switch Pro"
        default: "Controller"
        }
        return ControllerInfo(slot: pad.slot, kind: kind, name: pad.name, battery: pad.battery, charging: pad.charging)
    }
}
