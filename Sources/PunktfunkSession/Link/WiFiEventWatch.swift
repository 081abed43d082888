internal import CPunktfunkLinux
import Foundation
import Glibc
import PunktfunkWire
import SystemClock

/// What nl80211 announces about a Wi-Fi interface that can stall a stream: scans (the radio
/// leaves the channel between TRIGGER_SCAN and NEW_SCAN_RESULTS or SCAN_ABORTED), roams and
/// reconnects (ROAM, CONNECT, DISCONNECT), channel switches (CH_SWITCH_STARTED_NOTIFY,
/// CH_SWITCH_NOTIFY) and beacon loss (NOTIFY_CQM with NL80211_ATTR_CQM_BEACON_LOSS_EVENT).
public struct WiFiEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case scanStarted = "scan_started", scanEnded = "scan_ended", roam, channelSwitch = "channel_switch", beaconLoss = "beacon_loss"
    }

    public var kind: Kind
    /// When it was received, CLOCK_MONOTONIC ns.
    public var atNs: UInt64

    public init(kind: Kind, atNs: UInt64) { self.kind = kind; self.atNs = atNs }

    /// The kind of an nl80211 event message for interface `index` (nil: another interface's, or
    /// nothing that stalls). A message naming no interface counts when it names no other.
    public static func kind(command: UInt8, attributes: NetlinkCodec.Attributes, interface index: UInt32) -> Kind? {
        if let i = attributes.u32(UInt16(NL80211_ATTR_IFINDEX.rawValue)), i != index { return nil }
        switch UInt32(command) {
        case NL80211_CMD_TRIGGER_SCAN.rawValue: return .scanStarted
        case NL80211_CMD_NEW_SCAN_RESULTS.rawValue, NL80211_CMD_SCAN_ABORTED.rawValue: return .scanEnded
        case NL80211_CMD_ROAM.rawValue, NL80211_CMD_CONNECT.rawValue, NL80211_CMD_DISCONNECT.rawValue: return .roam
        case NL80211_CMD_CH_SWITCH_STARTED_NOTIFY.rawValue, NL80211_CMD_CH_SWITCH_NOTIFY.rawValue: return .channelSwitch
        case NL80211_CMD_NOTIFY_CQM.rawValue:
            guard let cqm = attributes.nested(UInt16(NL80211_ATTR_CQM.rawValue)),
                  cqm[UInt16(NL80211_ATTR_CQM_BEACON_LOSS_EVENT.rawValue)] != nil else { return nil }
            return .beaconLoss
        default: return nil
        }
    }

    /// The stall cause this event is (or, for a scan, begins and ends).
    public var cause: StallLedger.Cause {
        switch kind {
        case .scanStarted, .scanEnded: .scan
        case .roam: .roam
        case .channelSwitch: .channelSwitch
        case .beaconLoss: .beaconLoss
        }
    }

    /// The ledger's input.
    public func feed(_ ledger: inout StallLedger) {
        switch kind {
        case .scanStarted: ledger.scanStarted(at: atNs)
        case .scanEnded: ledger.scanEnded(at: atNs)
        default: ledger.event(cause, at: atNs)
        }
    }
}

/// A stream's watch over its Wi-Fi interface, on threads of its own: the nl80211 `scan` and
/// `mlme` multicast groups (no privilege needed) as `WiFiEvent`s for the pump to drain, and the
/// link read again every `refreshNs` for the overlay and the stats. Events wait in a bounded
/// queue (the oldest dropped past `capacity`).
public final class WiFiEventWatch: @unchecked Sendable {
    public static let capacity = 64
    public static let refreshNs: UInt64 = 2_000_000_000

    public let interface: String
    private let index: UInt32
    private let events: GenericNetlink
    private let family: UInt16
    private let reader: NL80211
    private let lock = NSLock()
    private var queue: [WiFiEvent] = []
    private var newest: WiFiLink?
    private var running = false
    private var eventsAlive = false, readsAlive = false

    /// - Throws: without nl80211, or when the groups cannot be joined.
    public init(interface: String) throws(GenericNetlink.Failure) {
        self.interface = interface
        index = if_nametoindex(interface)
        guard index > 0 else { throw GenericNetlink.Failure(what: "no interface \(interface)", errno: ENODEV) }
        reader = try NL80211()
        events = try GenericNetlink()
        let (id, groups) = try events.family(NL80211_GENL_NAME)
        family = id
        for name in [NL80211_MULTICAST_GROUP_SCAN, NL80211_MULTICAST_GROUP_MLME] {
            guard let g = groups[name] else { throw GenericNetlink.Failure(what: "nl80211 has no \(name) group", errno: ENOENT) }
            try events.join(group: g)
        }
        newest = try? reader.link(interface)
        queue.reserveCapacity(Self.capacity)
    }

    deinit { stop() }

    /// Starts the watching threads (again after `stop`: a resumed session's stream; a thread
    /// still winding down just carries on): one receives the events, so each is stamped when the
    /// kernel sends it; one reads the link, whose requests may wait on the kernel (up to 500 ms
    /// each while the radio scans or reconnects).
    public func start() {
        let (spawnReceiver, spawnReader) = lock.withLock { () -> (Bool, Bool) in
            running = true
            defer { eventsAlive = true; readsAlive = true }
            return (!eventsAlive, !readsAlive)
        }
        if spawnReceiver { spawn(receiving: true) }
        if spawnReader { spawn(receiving: false) }
    }

    /// The events thread, or the link-reading one.
    private func spawn(receiving: Bool) {
        let t = Thread { [self] in
            // A start that came while the loop was returning keeps this thread.
            repeat { if receiving { receiveEvents() } else { readLink() } } while lock.withLock({ () -> Bool in
                if !running { if receiving { eventsAlive = false } else { readsAlive = false } }
                return running
            })
        }
        t.name = receiving ? "pf-wifi-events" : "pf-wifi-link"
        t.start()
    }

    /// Stops the threads (within their 200 ms polls).
    public func stop() { lock.withLock { running = false } }

    /// The events since the last drain, oldest first (pump thread).
    public func drain(_ body: (WiFiEvent) -> Void) {
        lock.lock()
        guard !queue.isEmpty else { lock.unlock(); return }
        let taken = queue
        queue.removeAll(keepingCapacity: true)
        lock.unlock()
        for e in taken { body(e) }
    }

    /// The newest reading of the link (at most `refreshNs` old while the thread runs).
    public var link: WiFiLink? { lock.withLock { newest } }


    private func receiveEvents() {
        while lock.withLock({ running }) {
            guard let messages = try? events.receive(timeoutMs: 200) else { continue }
            let now = MonotonicClock.nowNs()
            for m in messages where m.type == family {
                guard let g = m.generic, let kind = WiFiEvent.kind(command: g.command, attributes: g.attributes, interface: index) else { continue }
                lock.withLock {
                    if queue.count == Self.capacity { queue.removeFirst() }
                    queue.append(WiFiEvent(kind: kind, atNs: now))
                }
            }
        }
    }

    private func readLink() {
        var nextRead = MonotonicClock.nowNs() &+ Self.refreshNs
        while lock.withLock({ running }) {
            usleep(200_000)
            let now = MonotonicClock.nowNs()
            guard now >= nextRead else { continue }
            nextRead = now &+ Self.refreshNs
            if let l = try? reader.link(interface) { lock.withLock { newest = l } }
        }
    }
}
