internal import CPunktfunkLinux
import Glibc

/// Power save off on a Wi-Fi interface for as long as a stream runs, and as it was afterwards:
/// a dozing radio wakes for the AP's beacon and finds the first packets of a frame buffered (or
/// gone), so a stream on Wi-Fi wants it off. Setting it needs CAP_NET_ADMIN (nl80211's
/// SET_POWER_SAVE is an admin command); without it the box says so and streams on.
///
/// `restore()` is idempotent and is called on every way out of a stream (its end, a failure, the
/// kiosk quitting on SIGTERM/SIGINT); only a hold that turned power save off turns it back on.
public final class WiFiPowerSaveHold {
    public let interface: String
    private let index: UInt32
    private var nl: NL80211?

    private init(interface: String, index: UInt32, nl: NL80211) {
        self.interface = interface; self.index = index; self.nl = nl
    }

    /// Turns power save off on `interface` through `nl` when it is on. - Returns: the hold (nil
    /// when nothing was changed: already off, unknown, or not permitted) and one sentence saying
    /// what happened.
    public static func take(interface: String, nl: NL80211) -> (hold: WiFiPowerSaveHold?, sentence: String) {
        let index = if_nametoindex(interface)
        guard index > 0 else { return (nil, "power save: no interface \(interface)") }
        let state: Bool?
        do { state = try nl.powerSave(index) } catch { return (nil, "power save on \(interface) not read: \(error)") }
        guard let on = state else { return (nil, "power save on \(interface): the driver does not say") }
        guard on else { return (nil, "power save on \(interface) is off already") }
        do {
            try nl.setPowerSave(index, on: false)
        } catch {
            let why = error.errno == EPERM
                ? "turning it off needs CAP_NET_ADMIN (docs/kiosk.md, \"Wi-Fi: the link and its power save\"); streaming on with it"
                : "\(error)"
            return (nil, "power save on \(interface) stays on: \(why)")
        }
        return (WiFiPowerSaveHold(interface: interface, index: index, nl: nl), "power save on \(interface) off while streaming (it was on)")
    }

    /// Turns power save back on. - Returns: a sentence when it could not (nil: restored, or
    /// restored before).
    @discardableResult
    public func restore() -> String? {
        guard let nl else { return nil }
        self.nl = nil
        do {
            try nl.setPowerSave(index, on: true)
            return nil
        } catch {
            return "power save on \(interface) could not be turned back on: \(error)"
        }
    }

    deinit { restore() }
}
