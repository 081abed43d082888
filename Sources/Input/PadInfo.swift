import Foundation
import PunktfunkWire

/// A pad in use, as the controllers page shows it.
public struct PadInfo: Sendable, Equatable {
    /// The wire slot (0…15), stable for a pad that reconnects.
    public var slot: Int
    public var kind: GamepadKind
    /// The device's name (evdev).
    public var name: String
    /// Charge in percent from the HID device's power supply; nil when the pad reports none.
    public var battery: Int?
    /// Whether it is charging (or full on a cable); nil when unknown.
    public var charging: Bool?

    public init(slot: Int, kind: GamepadKind, name: String, battery: Int? = nil, charging: Bool? = nil) {
        self.slot = slot; self.kind = kind; self.name = name; self.battery = battery; self.charging = charging
    }
}

/// A pad's battery from sysfs: the HID device's `power_supply/<name>/capacity` and `status`
/// (Documentation/ABI/testing/sysfs-class-power: status is one of "Unknown", "Charging",
/// "Discharging", "Not charging", "Full").
public enum PadBattery {
    /// How often the input thread reads the batteries again, ns.
    public static let refreshNs: UInt64 = 30_000_000_000

    /// Reads the first power supply under `hidDevice` (a sysfs directory). nil values when there
    /// is none or it says nothing.
    public static func read(hidDevice: String) -> (percent: Int?, charging: Bool?) {
        let dir = hidDevice + "/power_supply"
        guard let supplies = try? FileManager.default.contentsOfDirectory(atPath: dir), let first = supplies.sorted().first else {
            return (nil, nil)
        }
        func attribute(_ name: String) -> String? {
            (try? String(contentsOfFile: "\(dir)/\(first)/\(name)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let percent = attribute("capacity").flatMap(Int.init).map { min(100, max(0, $0)) }
        return (percent, attribute("status").flatMap(charging(status:)))
    }

    /// Whether a power supply `status` means it is on a charger; nil for "Unknown" and words
    /// the ABI does not list.
    public static func charging(status: String) -> Bool? {
        switch status {
        case "Charging", "Full": true
        case "Discharging", "Not charging": false
        default: nil
        }
    }
}
