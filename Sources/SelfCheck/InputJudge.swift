/// The input section: keyboards, mice and pads, whether they open and grab, the DualSense's
/// hidraw node, the udev rules and CEC adapters.
public struct InputObservation: Sendable {
    public struct Device: Sendable, Equatable {
        public var node: String
        public var name: String
        /// "keyboard", "mouse", "pad", "touchpad" …
        public var kind: String
        /// nil: opened; else why not.
        public var openError: String?
        /// nil: grabbed (EVIOCGRAB) and released; else why not. Unset when it did not open.
        public var grabError: String?
        public init(node: String, name: String, kind: String, openError: String? = nil, grabError: String? = nil) {
            self.node = node; self.name = name; self.kind = kind; self.openError = openError; self.grabError = grabError
        }
    }

    public struct Hidraw: Sendable, Equatable {
        public var node: String
        public var name: String
        public var writable: Bool
        public init(node: String, name: String, writable: Bool) { self.node = node; self.name = name; self.writable = writable }
    }

    /// One `/dev/cec*` node as the kernel reports it (CEC_ADAP_G_CAPS, CEC_ADAP_G_PHYS_ADDR).
    public struct CECAdapter: Sendable, Equatable {
        public var node: String
        /// The driver and adapter name ("vivid: vivid-000-vid-out0"); empty when it did not open.
        public var name: String
        /// nil: opened read/write; else why not.
        public var openError: String?
        /// The HDMI physical address (0x1000 is 1.0.0.0); nil when the adapter has none
        /// (0xffff: no hot-plug or EDID from a sink — the TV is off or on another output).
        public var physicalAddress: UInt16?
        public init(node: String, name: String = "", openError: String? = nil, physicalAddress: UInt16? = nil) {
            self.node = node; self.name = name; self.openError = openError; self.physicalAddress = physicalAddress
        }
    }

    public var devices: [Device]
    public var dualSenseHidraw: [Hidraw]
    /// The rules file the package installs, and whether it is there.
    public var udevRulesPath: String
    public var udevRulesInstalled: Bool
    public var cecAdapters: [CECAdapter]

    public init(devices: [Device], dualSenseHidraw: [Hidraw] = [], udevRulesPath: String, udevRulesInstalled: Bool,
                cecAdapters: [CECAdapter] = []) {
        self.devices = devices; self.dualSenseHidraw = dualSenseHidraw; self.udevRulesPath = udevRulesPath
        self.udevRulesInstalled = udevRulesInstalled; self.cecAdapters = cecAdapters
    }
}

public enum InputJudge {
    public static func judge(_ o: InputObservation) -> Section {
        var findings: [Finding] = []
        if o.devices.isEmpty {
            findings.append(Finding("devices", .notAvailable, "no keyboard, mouse or pad is connected.",
                                    action: "Plug in a pad or keyboard (the shell is driven by either)."))
        } else {
            let byKind = Dictionary(grouping: o.devices, by: \.kind).sorted { $0.key < $1.key }
                .map { "\($0.value.count) \($0.key)\($0.value.count == 1 ? "" : "s")" }.joined(separator: ", ")
            let unopened = o.devices.filter { $0.openError != nil }
            let ungrabbed = o.devices.filter { $0.openError == nil && $0.grabError != nil }
            let facts = o.devices.map { d in
                Fact(d.node, "\(d.name) (\(d.kind)): " + (d.openError.map { "cannot open: \($0)" } ?? d.grabError.map { "opens, cannot grab: \($0)" } ?? "opens and grabs"))
            }
            if !unopened.isEmpty {
                findings.append(Finding("devices", unopened.count == o.devices.count ? .failed : .degraded,
                                        "\(unopened.count) of \(o.devices.count) input devices cannot be opened (\(unopened[0].node): \(unopened[0].openError!)).",
                                        action: "Run the kiosk from its systemd unit, or as a user in the input group; the package's udev rules grant the seat user access.",
                                        facts: facts))
            } else if !ungrabbed.isEmpty {
                findings.append(Finding("devices", .degraded,
                                        "\(ungrabbed.count) input devices are held by another program (\(ungrabbed[0].node): \(ungrabbed[0].grabError!)); keys would reach it too.",
                                        action: "Stop the program that grabs them (a compositor, another kiosk) before streaming.", facts: facts))
            } else {
                findings.append(Finding("devices", .ok, "\(byKind): every one opens and can be grabbed.", facts: facts))
            }
        }
        for h in o.dualSenseHidraw {
            findings.append(h.writable
                ? Finding(h.node, .ok, "\(h.name): hidraw is writable (lightbar, player LEDs, adaptive triggers).")
                : Finding(h.node, .degraded, "\(h.name): hidraw is not writable, so lightbar, LEDs and adaptive triggers stay off.",
                          action: "Install the package (its udev rule \(o.udevRulesPath) grants access) or add the user to the input group."))
        }
        findings.append(o.udevRulesInstalled
            ? Finding("udev rules", .ok, "\(o.udevRulesPath) is installed.")
            : Finding("udev rules", .degraded, "\(o.udevRulesPath) is not installed: pads' hidraw nodes and uinput may not be accessible.",
                      action: "Install the punktfunk-kiosk package, or copy udev/ from the source tree to /etc/udev/rules.d and run `udevadm trigger`."))
        if o.cecAdapters.isEmpty {
            findings.append(Finding("CEC", .notAvailable, "no CEC adapter (/dev/cec*): the TV remote cannot drive the kiosk.", informational: true))
        }
        for a in o.cecAdapters { findings.append(cecFinding(a)) }
        return Section(.input, findings)
    }

    /// An adapter that opens and has a physical address carries the remote; one without an
    /// address waits for the TV (informational: the box is fine); one that does not open is
    /// a permission the package's udev rule gives.
    static func cecFinding(_ a: InputObservation.CECAdapter) -> Finding {
        let label = a.name.isEmpty ? a.node : "\(a.node) (\(a.name))"
        if let error = a.openError {
            return Finding("CEC", .degraded, "\(a.node) cannot be opened (\(error)): the TV remote cannot drive the kiosk.",
                           action: "Install the package (its udev rule gives /dev/cec* to the video group) and add the kiosk's user to video.")
        }
        guard let address = a.physicalAddress else {
            return Finding("CEC", .notAvailable,
                           "\(label) has no physical address: the TV is off or not on this output; the remote works once it is.",
                           informational: true)
        }
        let dotted = (0..<4).map { String(address >> (12 - 4 * $0) & 0xF, radix: 16) }.joined(separator: ".")
        return Finding("CEC", .ok, "\(label) at physical address \(dotted): the TV's remote and power reach the kiosk.",
                       facts: [Fact("physical address", dotted)])
    }
}
