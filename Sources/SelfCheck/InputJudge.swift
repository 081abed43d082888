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

    public var devices: [Device]
    public var dualSenseHidraw: [Hidraw]
    /// The rules file the package installs, and whether it is there.
    public var udevRulesPath: String
    public var udevRulesInstalled: Bool
    /// `/dev/cec*` nodes.
    public var cecAdapters: [String]

    public init(devices: [Device], dualSenseHidraw: [Hidraw] = [], udevRulesPath: String, udevRulesInstalled: Bool,
                cecAdapters: [String] = []) {
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
        findings.append(o.cecAdapters.isEmpty
            ? Finding("CEC", .notAvailable, "no CEC adapter (/dev/cec*): the TV remote cannot drive the kiosk.", informational: true)
            : Finding("CEC", .notAvailable, "\(o.cecAdapters.joined(separator: ", ")) found; CEC support is not built in this version.",
                      facts: [Fact("adapters", o.cecAdapters.joined(separator: ", "))], informational: true))
        return Section(.input, findings)
    }
}
