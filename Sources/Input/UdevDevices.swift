import CUdev
import Foundation
import Glibc

/// One `/dev/input/event*` node as udev describes it, with the controller it belongs to.
public struct InputNode: Sendable, Equatable {
    public var devnode: String
    public var syspath: String
    /// The HID device above it in sysfs (a DualSense's pad, touchpad and motion nodes share
    /// it); nil for non-HID devices (uinput, PS/2).
    public var hidParent: String?
    /// Serial / Bluetooth address (`uniq` of the input device), nil when empty.
    public var uniq: String?
    /// The `hidraw` node of the same HID device, if any.
    public var hidraw: String?
    /// LED class devices under the same HID device (lightbar, player LEDs), sysfs paths.
    public var leds: [String]

    /// The key that groups sibling nodes into one controller: the HID parent, else the uniq.
    public var groupKey: String? { hidParent ?? uniq }
}

/// libudev: enumeration of input nodes and hot-plug through a udev monitor. Without a running
/// udevd (the VM guest, a minimal box) the monitor listens to the kernel's own uevents.
/// Used on the input thread only.
final class UdevDevices {
    private let udev: OpaquePointer
    private var monitor: OpaquePointer?
    /// The monitor's fd for epoll, -1 without hot-plug.
    private(set) var monitorDescriptor: Int32 = -1

    init?() {
        guard let u = udev_new() else { return nil }
        udev = u
        let source = access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel"
        if let m = udev_monitor_new_from_netlink(u, source) {
            udev_monitor_filter_add_match_subsystem_devtype(m, "input", nil)
            if udev_monitor_enable_receiving(m) >= 0 {
                monitor = m
                monitorDescriptor = udev_monitor_get_fd(m)
                // Non-blocking: a burst is drained until nothing is left.
                let flags = fcntl(monitorDescriptor, F_GETFL)
                _ = fcntl(monitorDescriptor, F_SETFL, flags | O_NONBLOCK)
            } else {
                udev_monitor_unref(m)
            }
        }
    }

    deinit {
        if let monitor { udev_monitor_unref(monitor) }
        udev_unref(udev)
    }

    /// Every event node present now.
    func enumerate() -> [InputNode] {
        guard let e = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(e) }
        udev_enumerate_add_match_subsystem(e, "input")
        udev_enumerate_add_match_sysname(e, "event*")
        udev_enumerate_scan_devices(e)
        var nodes: [InputNode] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let en = entry {
            if let path = udev_list_entry_get_name(en), let dev = udev_device_new_from_syspath(udev, path) {
                if let node = describe(dev) { nodes.append(node) }
                udev_device_unref(dev)
            }
            entry = udev_list_entry_get_next(en)
        }
        return nodes.sorted { $0.devnode < $1.devnode }
    }

    enum Change { case added(InputNode), removed(devnode: String) }

    /// The next hot-plug change of an event node, nil when none waits.
    func receive() -> Change?? {
        guard let monitor, let dev = udev_monitor_receive_device(monitor) else { return nil }
        defer { udev_device_unref(dev) }
        guard let sysname = udev_device_get_sysname(dev).map({ String(cString: $0) }), sysname.hasPrefix("event") else {
            return .some(nil)
        }
        let action = udev_device_get_action(dev).map { String(cString: $0) } ?? ""
        switch action {
        case "add":
            return .some(describe(dev).map { .added($0) })
        case "remove":
            let node = udev_device_get_devnode(dev).map { String(cString: $0) } ?? "/dev/input/\(sysname)"
            return .some(.removed(devnode: node))
        default:
            return .some(nil)
        }
    }

    private func describe(_ dev: OpaquePointer) -> InputNode? {
        let sysname = udev_device_get_sysname(dev).map { String(cString: $0) } ?? ""
        let devnode = udev_device_get_devnode(dev).map { String(cString: $0) } ?? "/dev/input/\(sysname)"
        guard sysname.hasPrefix("event") else { return nil }
        let syspath = udev_device_get_syspath(dev).map { String(cString: $0) } ?? ""
        // The input device (inputN) is the event node's parent; it carries `uniq`.
        var uniq: String?
        if let input = udev_device_get_parent_with_subsystem_devtype(dev, "input", nil),
           let u = udev_device_get_sysattr_value(input, "uniq") {
            let s = String(cString: u).trimmingCharacters(in: .whitespacesAndNewlines)
            uniq = s.isEmpty ? nil : s
        }
        var node = InputNode(devnode: devnode, syspath: syspath, hidParent: nil, uniq: uniq, hidraw: nil, leds: [])
        if let hid = udev_device_get_parent_with_subsystem_devtype(dev, "hid", nil),
           let hidPath = udev_device_get_syspath(hid).map({ String(cString: $0) }) {
            node.hidParent = hidPath
            node.hidraw = children(of: hid, subsystem: "hidraw").compactMap(\.devnode).first
            node.leds = children(of: hid, subsystem: "leds").map(\.syspath)
        }
        return node
    }

    private func children(of parent: OpaquePointer, subsystem: String) -> [(devnode: String?, syspath: String)] {
        guard let e = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(e) }
        udev_enumerate_add_match_parent(e, parent)
        udev_enumerate_add_match_subsystem(e, subsystem)
        udev_enumerate_scan_devices(e)
        var out: [(String?, String)] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let en = entry {
            if let path = udev_list_entry_get_name(en), let dev = udev_device_new_from_syspath(udev, path) {
                out.append((udev_device_get_devnode(dev).map { String(cString: $0) }, String(cString: path)))
                udev_device_unref(dev)
            }
            entry = udev_list_entry_get_next(en)
        }
        return out.sorted { $0.1 < $1.1 }
    }
}
