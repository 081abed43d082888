import Foundation
import Glibc
import PunktfunkWire
import SystemClock

/// The host's feedback onto the pads, on the input thread: rumble (0xCA) through FF_RUMBLE or,
/// on a DualSense with its hidraw node, through the output report with the lightbar, player
/// LEDs, trigger effects and mic LED (0xCD). State is kept per wire slot, so a pad that
/// reconnects into its slot gets it all again. At the end: motors off, trigger effects off,
/// LEDs handed back (the driver's own LED class values written back).
struct PadFeedback {
    /// Per slot: what the host asked for.
    private var wanted = [DualSenseOutput](repeating: DualSenseOutput(), count: Gamepad.maxPads)
    /// Per slot: rumble reorder gate.
    private var lastRumbleSeq = [UInt8?](repeating: nil, count: Gamepad.maxPads)
    /// Per slot: when a DualSense rumble lease runs out (ns), nil when none.
    private var rumbleDeadline = [UInt64?](repeating: nil, count: Gamepad.maxPads)
    /// Per slot: when an identify flash ends (ns), nil when none.
    private var identifyDeadline = [UInt64?](repeating: nil, count: Gamepad.maxPads)
    private var outputs: [Int: DualSenseLink] = [:]
    private(set) var reportsWritten = 0
    private(set) var writeErrors = 0

    /// A DualSense's hidraw link.
    final class DualSenseLink {
        let fd: Int32
        let path: String
        let transport: DualSenseOutput.Transport
        var sequence: UInt8 = 0
        /// What the pad has (nil: nothing sent yet — the next report carries everything).
        var applied: DualSenseOutput?
        /// LED class attribute files and their values when we found them.
        var savedLEDs: [(path: String, value: String)] = []
        var slot: Int
        /// When to re-apply the slot's state (after the driver's own start-up reports), ns.
        var reapplyAt: UInt64?

        init(fd: Int32, path: String, transport: DualSenseOutput.Transport, slot: Int) {
            self.fd = fd; self.path = path; self.transport = transport; self.slot = slot
        }

        deinit { close(fd) }
    }

    init() {}

    private func say(_ line: String) { FileHandle.standardError.write(Data("punktfunk-kiosk: input: \(line)\n".utf8)) }

    /// A pad arrived in `slot`: a DualSense gets its hidraw link and the slot's state again.
    mutating func attach(pad id: Int, node: InputNode, device: EvdevDevice, slot: Int?, devices: InputServiceLoopAccess) {
        guard let slot, case .dualSense = PadDescription.kind(vendor: device.vendor, product: device.product),
              let hidraw = node.hidraw else { return }
        let fd = open(hidraw, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            say("cannot open \(hidraw) for the DualSense's lightbar, LEDs and triggers: \(String(cString: strerror(errno))) (see udev/ in the docs)")
            return
        }
        let link = DualSenseLink(fd: fd, path: hidraw, transport: device.bustype == 0x05 ? .bluetooth : .usb, slot: slot)
        for led in node.leds {
            for attr in ["multi_intensity", "brightness"] {
                let p = led + "/" + attr
                if let v = try? String(contentsOfFile: p, encoding: .utf8) { link.savedLEDs.append((p, v.trimmingCharacters(in: .whitespacesAndNewlines))) }
            }
        }
        outputs[id] = link
        // The driver writes its own lightbar and player LEDs as it finishes binding; the slot's
        // state goes after them.
        if wanted[slot] != DualSenseOutput() { link.reapplyAt = MonotonicClock.nowNs() + Self.reapplyDelayNs }
    }

    /// How long after a pad appears its state is re-applied.
    static let reapplyDelayNs: UInt64 = 300_000_000

    mutating func detach(pad id: Int) { outputs[id] = nil }

    /// Applies one host datagram.
    mutating func apply(_ datagram: HostDatagram, nowNs: UInt64, devices: InputServiceLoopAccess) {
        let loop = devices
        switch datagram {
        case .rumble(let r):
            let slot = Int(r.pad)
            guard slot < Gamepad.maxPads else { return }
            if let env = r.envelope {
                guard GamepadSnapshot.isNewer(env.seq, than: lastRumbleSeq[slot]) else { return }
                lastRumbleSeq[slot] = env.seq
            }
            let ttl = r.envelope?.ttlMs ?? 0
            // The lease: when it runs out without a renewal, the motors stop (the FF effect's own
            // length does the same on drivers that honour it).
            rumbleDeadline[slot] = ttl > 0 && (r.low != 0 || r.high != 0) ? nowNs + UInt64(ttl) * 1_000_000 : nil
            if let (id, _) = loop.padDevice(slot: slot), let link = outputs[id] {
                wanted[slot].rumble(low: r.low, high: r.high)
                write(link, wanted[slot])
            } else if let (_, device) = loop.padDevice(slot: slot), let why = device.rumble(strong: r.low, weak: r.high, lengthMs: ttl) {
                say(why)
            }
        case .hidOutput(let h):
            let slot = Int(h.pad)
            guard slot < Gamepad.maxPads else { return }
            if case .hidRaw(_, let reportKind, let data) = h {
                if let (id, _) = loop.padDevice(slot: slot), let link = outputs[id], reportKind == 0 {
                    let n = data.withUnsafeBytes { Glibc.write(link.fd, $0.baseAddress, $0.count) }
                    if n < 0 { writeErrors += 1; say("\(link.path) refused a raw report: \(String(cString: strerror(errno)))") }
                }
                return
            }
            guard wanted[slot].apply(h) else { return }
            if let (id, _) = loop.padDevice(slot: slot), let link = outputs[id] { write(link, wanted[slot]) }
        default: break
        }
    }

    /// How long an identify rumble and lightbar flash last, ns.
    static let identifyNs: UInt64 = 300_000_000

    /// Makes the pad in `slot` known: a rumble on FF pads; a rumble and a white lightbar on a
    /// DualSense with its hidraw link. Both end after `identifyNs` (the host's state, or the
    /// driver's own LEDs, come back).
    mutating func identify(slot: Int, nowNs: UInt64, devices: InputServiceLoopAccess) {
        guard slot >= 0, slot < Gamepad.maxPads, let (id, device) = devices.padDevice(slot: slot) else { return }
        let strength: UInt16 = 0xC000
        if let link = outputs[id] {
            var flash = wanted[slot]
            flash.rumble(low: strength, high: strength)
            flash.lightbar = (255, 255, 255)
            write(link, flash)
            identifyDeadline[slot] = nowNs + Self.identifyNs
        } else if device.hasRumble {
            if let why = device.rumble(strong: strength, weak: strength, lengthMs: UInt16(Self.identifyNs / 1_000_000)) { say(why) }
        } else {
            say("\(device.node.devnode) has no rumble or lightbar to identify it by")
            return
        }
        rumbleDeadline[slot] = nowNs + Self.identifyNs
    }

    /// Stops DualSense motors whose lease ran out.
    mutating func tick(nowNs: UInt64, devices: InputServiceLoopAccess) {
        let loop = devices
        for slot in 0..<Gamepad.maxPads {
            guard let d = identifyDeadline[slot], nowNs >= d else { continue }
            identifyDeadline[slot] = nil
            guard let (id, _) = loop.padDevice(slot: slot), let link = outputs[id] else { continue }
            // The flash ends: the driver's own LEDs when the host set no lightbar, then the
            // slot's whole state again.
            if wanted[slot].lightbar == nil { restoreLEDs(link) }
            link.applied = nil
            write(link, wanted[slot])
        }
        for link in outputs.values {
            if let at = link.reapplyAt, nowNs >= at {
                link.reapplyAt = nil
                link.applied = nil
                write(link, wanted[link.slot])
            }
        }
        for slot in 0..<Gamepad.maxPads {
            guard let d = rumbleDeadline[slot], nowNs >= d else { continue }
            rumbleDeadline[slot] = nil
            guard let (id, device) = loop.padDevice(slot: slot) else { continue }
            if let link = outputs[id] {
                wanted[slot].rumble(low: 0, high: 0)
                write(link, wanted[slot])
            } else if let why = device.rumble(strong: 0, weak: 0, lengthMs: 0) {
                say(why)
            }
        }
    }

    /// Milliseconds until the next lease runs out (for the epoll timeout), capped at 100.
    func nextDeadlineMs(nowNs: UInt64) -> Int32 {
        var ms: Int32 = 100
        for d in identifyDeadline { if let d { ms = min(ms, Int32(clamping: (d > nowNs ? d - nowNs : 0) / 1_000_000 + 1)) } }
        for link in outputs.values { if let d = link.reapplyAt { ms = min(ms, Int32(clamping: (d > nowNs ? d - nowNs : 0) / 1_000_000 + 1)) } }
        for d in rumbleDeadline { if let d { ms = min(ms, Int32(clamping: (d > nowNs ? d - nowNs : 0) / 1_000_000 + 1)) } }
        return ms
    }

    /// Session end: every pad's motors off (FF and report), trigger effects off, LEDs back.
    mutating func reset(devices: InputServiceLoopAccess) {
        for link in outputs.values {
            send(link, DualSenseOutput.sessionEndBlock())
            restoreLEDs(link)
        }
        do { let loop = devices
            for slot in 0..<Gamepad.maxPads {
                if let (id, device) = loop.padDevice(slot: slot), outputs[id] == nil { _ = device.rumble(strong: 0, weak: 0, lengthMs: 0) }
            }
        }
        wanted = [DualSenseOutput](repeating: DualSenseOutput(), count: Gamepad.maxPads)
        rumbleDeadline = [UInt64?](repeating: nil, count: Gamepad.maxPads)
        identifyDeadline = [UInt64?](repeating: nil, count: Gamepad.maxPads)
    }

    /// Writes the driver's LED class values found at attach back (the driver sends them).
    private func restoreLEDs(_ link: DualSenseLink) {
        for (path, value) in link.savedLEDs {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = value.withCString { Glibc.write(fd, $0, strlen($0)) }
                close(fd)
            }
        }
    }

    private mutating func write(_ link: DualSenseLink, _ state: DualSenseOutput) {
        let block = state.commonBlock(since: link.applied)
        guard !DualSenseOutput.isEmpty(block) else { return }
        if send(link, block) { link.applied = state }
    }

    @discardableResult
    private mutating func send(_ link: DualSenseLink, _ block: [UInt8]) -> Bool {
        let report = DualSenseOutput.report(block, transport: link.transport, sequence: link.sequence)
        link.sequence = (link.sequence + 1) & 0x0F
        let n = report.withUnsafeBytes { Glibc.write(link.fd, $0.baseAddress, $0.count) }
        guard n == report.count else {
            writeErrors += 1
            say("\(link.path) refused an output report: \(n < 0 ? String(cString: strerror(errno)) : "short write")")
            return false
        }
        reportsWritten += 1
        return true
    }
}

/// What PadFeedback needs from the input loop.
protocol InputServiceLoopAccess: AnyObject {
    func padDevice(slot: Int) -> (id: Int, device: EvdevDevice)?
}
