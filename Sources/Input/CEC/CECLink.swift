import CPunktfunkLinux
import Foundation
import Glibc
import PunktfunkWire

/// The HDMI-CEC bus on the input thread: one adapter (`CECAdapter`), the playback follower
/// (`CECFollower`, pure) and the remote's keys fed to the mappers as a keyboard's
/// (`CECRemoteKeys`). No thread of its own: the input loop calls `readable` when epoll reports
/// the adapter's fd, `tick` on every pass (the auto-release and the held-Back deadline), and
/// `command` for what the runner asks of the TV.
///
/// Failure is never fatal: an adapter that was named but is missing, refuses, or vanishes is one
/// line on stderr and the box goes on without CEC (`readable` returns false; the loop drops the
/// link). No adapter at all (none named) is silent: the box is as it was without CEC.
final class CECLink {
    /// The adapter fd's epoll tag (device ids are 0…, tags 0/1 are the loop's own).
    static let epollTag = UInt64.max
    /// The remote's id as a device of the mappers (a keyboard).
    static let deviceID = Int.max

    /// What the link needs of the loop.
    struct Hooks {
        /// A key edge (evdev code) of the remote to the host's mapper (acts in the host route).
        var hostKey: (UInt16, Bool) -> Void
        /// A key edge to the shell's mapper (acts in the shell route). The remote taps the shell:
        /// press and release at once on each press and each repeat of a direction — the TV's
        /// repeats pace a held key, not the shell's own auto-repeat.
        var shellKey: (UInt16, Bool) -> Void
        /// Open the in-stream menu (the escape chord's meaning).
        var openMenu: () -> Void
        /// Where input goes now.
        var route: () -> InputRoute
        var notify: (CECNotice) -> Void
        var say: (String) -> Void
    }

    let adapter: CECAdapter
    private(set) var follower: CECFollower
    private let hooks: Hooks
    /// Transmit results that failed, were NACKed, and messages the kernel dropped.
    private(set) var transmitFailed = 0, nacked = 0, lost = 0
    /// The key fed to the mappers now (pressed, not yet released).
    private var fed: UInt16?
    /// Back went down while streaming at this time (held 1 s: the menu).
    private var backSince: UInt64?
    /// Commands that came before the adapter had its addresses.
    private var deferred: [CECCommand] = []
    private var keyLines = 0

    /// Finds, opens and configures the adapter. - Returns: nil (after one line through
    /// `hooks.say`) when there is none or it refuses.
    static func start(_ options: CECOptions, epoll: Int32, hooks: Hooks) -> CECLink? {
        let path: String
        if let d = options.device {
            path = d
        } else {
            let nodes = CECAdapter.nodes()
            guard !nodes.isEmpty else { return nil }   // no adapter: exactly as without CEC, not a word
            if nodes.count == 1 {
                path = nodes[0]
            } else if let want = options.connector, let match = nodes.first(where: { n in
                if case .success(let a) = CECAdapter.open(n), let c = a.connector { return c.card == want.card && c.connector == want.connector }
                return false
            }) {
                path = match
            } else {
                path = nodes[0]
                hooks.say("cec: \(nodes.count) adapters (\(nodes.joined(separator: ", "))); using \(path) (set cec-device to choose)")
            }
        }
        let adapter: CECAdapter
        switch CECAdapter.open(path) {
        case .success(let a): adapter = a
        case .failure(let e): hooks.say("cec: \(e); going on without CEC"); return nil
        }
        guard adapter.canTransmit else { hooks.say("cec: \(path) cannot transmit; going on without CEC"); return nil }
        if let why = adapter.becomeFollower() ?? adapter.claimPlayback(osdName: String(decoding: CECMessage.osdName(options.name), as: UTF8.self),
                                                                         cecVersion: CECVersion.v1_4) {
            hooks.say("cec: \(why); going on without CEC")
            return nil
        }
        let rc = pf_cec_epoll_add(epoll, adapter.fd, epollTag)
        guard rc == 0 else { hooks.say("cec: cannot watch \(path): \(String(cString: strerror(-rc)))"); return nil }
        let link = CECLink(adapter: adapter, name: options.name, hooks: hooks)
        _ = adapter.refresh()
        link.follow(physical: adapter.physicalAddress, mask: adapter.info.log_addr_mask)
        return link
    }

    private init(adapter: CECAdapter, name: String, hooks: Hooks) {
        self.adapter = adapter
        self.hooks = hooks
        follower = CECFollower(identity: .init(osdName: name))
    }

    /// The adapter's fd is readable (messages, transmit results) or has events.
    /// - Returns: false when the adapter is gone (the loop drops the link).
    func readable(now: UInt64) -> Bool {
        var error: Int32 = 0
        while let ev = adapter.dequeueEvent(error: &error) {
            switch ev {
            case .stateChange(let pa, let mask): follow(physical: pa, mask: mask)
            case .lost(let n): lost += Int(n)
            case .other: break
            }
        }
        if error != 0 && error != ENOTTY { return gone(error) }
        for _ in 0..<64 {   // a flood waits for the next pass instead of starving the devices
            guard let m = adapter.receive(error: &error) else { break }
            if m.isTransmitResult {
                pendingTransmits = max(0, pendingTransmits - 1)
                if !m.transmitOK { transmitFailed += 1 }
                if m.nacked { nacked += 1 }
            } else {
                if keyLines < 500 {   // the bus's traffic to us, for the log (bounded: a flood is not logged whole)
                    keyLines += 1
                    say("received " + m.bytes.map { String(format: "%02x", $0) }.joined(separator: ":"))
                }
                follower.handle(m.bytes, now: now)
            }
        }
        if error != 0 { return gone(error) }
        act(now: now)
        return true
    }

    /// The auto-release and the held Back. - Returns: when to be called next (nil: nothing due).
    func tick(now: UInt64) -> UInt64? {
        if let due = follower.nextDeadline, now >= due {
            follower.handleTimeout(now: now)
            act(now: now)
        }
        if let since = backSince, now >= since &+ CECRemoteKeys.backHoldNs {
            backSince = nil
            if fed == CECRemoteKeys.keyEsc { fed = nil; hooks.hostKey(CECRemoteKeys.keyEsc, false) }
            say("held back opens the in-stream menu")
            hooks.openMenu()
        }
        let hold = backSince.map { $0 &+ CECRemoteKeys.backHoldNs }
        switch (follower.nextDeadline, hold) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    func command(_ c: CECCommand, now: UInt64) {
        guard follower.logicalAddress != CECLogicalAddress.unregistered, follower.physicalAddress != CECPhysicalAddress.invalid else {
            // Kept in order for the claim (a power status after the <Standby> the box sends
            // before it; only the newest power status counts).
            if case .power = c { deferred.removeAll { if case .power = $0 { true } else { false } } }
            if deferred.count < 8 { deferred.append(c) }
            return
        }
        switch c {
        case .streamStarted(let wake): follower.becomeActiveSource(wakeTV: wake)
        case .idle: follower.becomeInactive()
        case .standbyTV: follower.standbyTV()
        case .power(let standby): follower.setPower(standby: standby)   // no frame: the status the bus is told
        }
        act(now: now)
    }

    /// The loop ends: the held key goes up; frames still queued get up to `waitMs` to leave.
    func shutdown(waitMs: Int32 = 400) {
        follower.releaseHeld()
        act(now: 0)
        var waited: Int32 = 0
        var error: Int32 = 0
        while pendingTransmits > 0 && waited < waitMs {
            usleep(20_000)
            waited += 20
            while let m = adapter.receive(error: &error) {
                guard m.isTransmitResult else { continue }   // frames from the bus: too late now
                pendingTransmits = max(0, pendingTransmits - 1)
                if !m.transmitOK { transmitFailed += 1 }
            }
            if error != 0 { break }
        }
        say("counters " + countersLine)
    }

    var countersLine: String {
        let c = follower.counters
        return "received=\(c.received) malformed=\(c.malformed) ignored=\(c.ignored) unknown=\(c.unknown) keys=\(c.keys) "
            + "auto-released=\(c.autoReleases) sent=\(c.sent) replies-dropped=\(c.repliesDropped) tx-failed=\(transmitFailed) "
            + "nacked=\(nacked) lost=\(lost) unanswerable=\(c.unanswerable)"
    }

    // MARK: - Private

    private var pendingTransmits = 0

    private func say(_ s: String) { hooks.say("cec: \(s)") }

    private func gone(_ errno: Int32) -> Bool {
        follower.releaseHeld()
        act(now: 0)
        let why = "\(adapter.path) went away (\(String(cString: strerror(errno)))); going on without CEC"
        say(why)
        hooks.notify(.gone(why))
        return false
    }

    private func follow(physical: UInt16, mask: UInt16) {
        var logical = CECLogicalAddress.unregistered
        for a in 0..<15 where mask & (1 << a) != 0 { logical = UInt8(a); break }
        let changed = logical != follower.logicalAddress || physical != follower.physicalAddress
        follower.setAddresses(logical: logical, physical: physical)
        guard changed else { return }
        if logical != CECLogicalAddress.unregistered, physical != CECPhysicalAddress.invalid {
            let line = "\(adapter.path) \"\(adapter.name)\" (\(adapter.driver)) at \(CECPhysicalAddress.text(physical)) as logical address \(logical)"
            say(line)
            hooks.notify(.ready(line))
            let waiting = deferred
            deferred.removeAll()
            for c in waiting { command(c, now: 0) }
        } else {
            say("\(adapter.path) has no address yet (physical \(CECPhysicalAddress.text(physical)))")
        }
    }

    private func act(now: UInt64) {
        while let a = follower.poll() {
            switch a {
            case .transmit(let frame):
                let r = adapter.transmit(frame.encoded)
                if r == 0 { pendingTransmits += 1 } else { transmitFailed += 1 }
                if keyLines < 500 {
                    keyLines += 1
                    say("sent \(frame)\(r == 0 ? "" : " (failed: \(String(cString: strerror(-r))))")")
                }
            case .keyPressed(let command): pressed(command, now: now)
            case .keyReleased(let command, let timedOut):
                backSince = nil
                if keyLines < 500 { keyLines += 1; say("remote \(CECRemoteKeys.name(command)) released\(timedOut ? " (no release came: auto-release)" : "")") }
                if let code = fed { fed = nil; hooks.hostKey(code, false) }
            case .keyRepeated(let command):
                // A held direction moves again in the shell at the remote's pace.
                if hooks.route() == .shell, let code = CECRemoteKeys.evdevCode(command), [103, 108, 105, 106].contains(code) {
                    hooks.shellKey(code, true)
                    hooks.shellKey(code, false)
                }
            case .standby(let cause):
                say("\(cause) asks for standby")
                hooks.notify(.standby("\(cause)"))
            case .wake(let cause):
                say("\(cause) asks the box to wake")
                hooks.notify(.wake("\(cause)"))
            case .lostActiveSource:
                say("another source is active")
            }
        }
        // Transmit results free their slots as they arrive in `readable`; keep the count bounded.
        if pendingTransmits > 64 { pendingTransmits = 64 }
    }

    private func pressed(_ command: UInt8, now: UInt64) {
        let route = hooks.route()
        if keyLines < 500 { keyLines += 1; say("remote \(CECRemoteKeys.name(command)) pressed (\(route == .host ? "host" : "shell"))") }
        guard let code = CECRemoteKeys.evdevCode(command) else { return }
        if code == CECRemoteKeys.keyMenu, route == .host {
            hooks.openMenu()
            return
        }
        if code == CECRemoteKeys.keyEsc, route == .host { backSince = now }
        fed = code
        hooks.hostKey(code, true)
        hooks.shellKey(code, true)
        hooks.shellKey(code, false)
    }
}
