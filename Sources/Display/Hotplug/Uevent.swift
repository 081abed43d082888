/// One kernel uevent as the netlink broadcast carries it: a `ACTION@DEVPATH` header, then
/// NUL-separated `KEY=VALUE` pairs (Documentation/ABI: `ACTION`, `DEVPATH`, `SUBSYSTEM`, `SEQNUM`
/// and per-subsystem keys). Messages udevd re-broadcasts start with `libudev` and are not this.
public struct Uevent: Sendable, Equatable {
    public var properties: [String: String]

    public init(properties: [String: String]) { self.properties = properties }

    /// Parses one datagram. - Returns: nil for anything that is not a kernel uevent (no
    /// `ACTION@DEVPATH` header, no `ACTION`/`SUBSYSTEM`, a udev-daemon message).
    public init?(datagram bytes: some Collection<UInt8>) {
        var fields: [String] = []
        var current: [UInt8] = []
        for b in bytes {
            if b == 0 {
                if !current.isEmpty { fields.append(String(decoding: current, as: UTF8.self)) }
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(b)
            }
        }
        if !current.isEmpty { fields.append(String(decoding: current, as: UTF8.self)) }
        guard let header = fields.first, header.contains("@"), !header.hasPrefix("libudev") else { return nil }
        var properties: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let eq = field.firstIndex(of: "=") else { continue }
            properties[String(field[..<eq])] = String(field[field.index(after: eq)...])
        }
        guard properties["ACTION"] != nil, properties["SUBSYSTEM"] != nil else { return nil }
        self.properties = properties
    }

    public subscript(key: String) -> String? { properties[key] }
}

/// A DRM hot-plug report: the kernel sends `ACTION=change`, `SUBSYSTEM=drm`, `HOTPLUG=1` on the
/// card's minor (`DEVNAME=dri/cardN`) when a connector's status may have changed; kernels since
/// 5.x add `CONNECTOR=<id>` when one connector is known to be the one.
public struct DRMHotplug: Sendable, Equatable {
    /// `dri/card0` (the node under /dev).
    public var deviceName: String?
    /// The connector the kernel names, nil = any may have changed.
    public var connector: UInt32?

    public init(deviceName: String?, connector: UInt32?) {
        self.deviceName = deviceName; self.connector = connector
    }

    /// nil unless `event` is a DRM hot-plug report.
    public init?(_ event: Uevent) {
        guard event["ACTION"] == "change", event["SUBSYSTEM"] == "drm", event["HOTPLUG"] == "1" else { return nil }
        deviceName = event["DEVNAME"]
        connector = event["CONNECTOR"].flatMap { UInt32($0) }
    }

    /// Whether the report may concern `connector` on the card at `devicePath` (`/dev/dri/card0`):
    /// a report without a device name or without a connector id concerns every one.
    public func concerns(devicePath: String, connector id: UInt32) -> Bool {
        if let deviceName, "/dev/\(deviceName)" != devicePath { return false }
        return connector.map { $0 == id } ?? true
    }
}
