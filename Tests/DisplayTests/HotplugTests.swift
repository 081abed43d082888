import Foundation
import Glibc
import Testing
@testable import Display

/// Hot-plug: the kernel's uevent datagrams, DRM hot-plug reports, and what a re-read connector
/// means for the mode on glass.
@Suite struct HotplugTests {
    /// A datagram as the kernel broadcasts it for a DRM connector change (drm_sysfs_hotplug_event /
    /// drm_sysfs_connector_hotplug_event): header, then NUL-terminated KEY=VALUE pairs.
    static func datagram(_ header: String, _ pairs: [String]) -> [UInt8] {
        ([header] + pairs).flatMap { Array($0.utf8) + [0] }
    }

    static let cardChange = datagram("change@/devices/pci0000:00/0000:00:02.0/drm/card0",
                                     ["ACTION=change", "DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0",
                                      "SUBSYSTEM=drm", "HOTPLUG=1", "CONNECTOR=77", "DEVNAME=dri/card0",
                                      "DEVTYPE=drm_minor", "SEQNUM=4242", "MAJOR=226", "MINOR=0"])

    @Test func aKernelDatagramParsesIntoItsProperties() throws {
        let event = try #require(Uevent(datagram: Self.cardChange))
        #expect(event["ACTION"] == "change")
        #expect(event["SUBSYSTEM"] == "drm")
        #expect(event["DEVNAME"] == "dri/card0")
        #expect(event["SEQNUM"] == "4242")
        #expect(event.properties.count == 10)
    }

    @Test func notAKernelUeventIsRefused() {
        // udevd's re-broadcast (its own binary header), no header, no ACTION/SUBSYSTEM, empty.
        #expect(Uevent(datagram: Array("libudev".utf8) + [0, 0xfe, 0xed, 0xca, 0xfe]) == nil)
        #expect(Uevent(datagram: Self.datagram("ACTION=change", ["SUBSYSTEM=drm"])) == nil)
        #expect(Uevent(datagram: Self.datagram("change@/devices/x", ["SUBSYSTEM=drm"])) == nil)
        #expect(Uevent(datagram: [UInt8]()) == nil)
        // A value may hold '=' and the last pair may lack its NUL.
        let event = Uevent(datagram: Array("add@/x\0ACTION=add\0SUBSYSTEM=input\0NAME=\"a=b\"".utf8))
        #expect(event?["NAME"] == "\"a=b\"")
    }

    @Test func aDRMHotplugReportNamesItsCardAndConnector() throws {
        let event = try #require(Uevent(datagram: Self.cardChange))
        let report = try #require(DRMHotplug(event))
        #expect(report == DRMHotplug(deviceName: "dri/card0", connector: 77))
        #expect(report.concerns(devicePath: "/dev/dri/card0", connector: 77))
        #expect(!report.concerns(devicePath: "/dev/dri/card0", connector: 78))
        #expect(!report.concerns(devicePath: "/dev/dri/card1", connector: 77))
        // Older kernels name no connector: every connector of the card may have changed.
        let any = DRMHotplug(deviceName: "dri/card0", connector: nil)
        #expect(any.concerns(devicePath: "/dev/dri/card0", connector: 5))
        #expect(DRMHotplug(deviceName: nil, connector: nil).concerns(devicePath: "/dev/dri/card3", connector: 5))
    }

    @Test func onlyAChangeOfTheDRMSubsystemWithHotplugIsAReport() throws {
        func report(_ pairs: [String]) -> DRMHotplug? {
            Uevent(datagram: Self.datagram("x@/devices/y", pairs)).flatMap(DRMHotplug.init)
        }
        #expect(report(["ACTION=change", "SUBSYSTEM=drm", "HOTPLUG=1"]) == DRMHotplug(deviceName: nil, connector: nil))
        #expect(report(["ACTION=add", "SUBSYSTEM=drm", "HOTPLUG=1"]) == nil)
        #expect(report(["ACTION=change", "SUBSYSTEM=input", "HOTPLUG=1"]) == nil)
        // A lease or content-protection change on the card carries no HOTPLUG=1.
        #expect(report(["ACTION=change", "SUBSYSTEM=drm", "LEASE=1"]) == nil)
        #expect(report(["ACTION=change", "SUBSYSTEM=drm", "HOTPLUG=0"]) == nil)
        // A connector id that is not a number names none.
        #expect(report(["ACTION=change", "SUBSYSTEM=drm", "HOTPLUG=1", "CONNECTOR=x"])?.connector == nil)
    }

    // MARK: the connector re-read

    static func mode(_ index: Int, _ w: Int, _ h: Int, _ mhz: Int, preferred: Bool = false) -> DisplayMode {
        DisplayMode(index: index, width: w, height: h, refreshMilliHz: mhz, vrefresh: (mhz + 500) / 1000, preferred: preferred)
    }
    static let tv1080 = [mode(0, 1920, 1080, 60_000, preferred: true), mode(1, 1280, 720, 60_000), mode(2, 1920, 1080, 50_000)]
    static let tv4k = [mode(0, 3840, 2160, 60_000, preferred: true), mode(1, 1920, 1080, 60_000), mode(2, 1280, 720, 60_000)]
    static let current = tv1080[0]

    @Test func theSameDisplayStillThereIsNoChange() {
        let v = ConnectorVerdict.classify(wasConnected: true, current: Self.current, connected: true, modes: Self.tv1080, request: nil)
        #expect(v == .unchanged)
        // Another index for the same timing (another list order) is the same mode.
        let reordered = [Self.mode(0, 1280, 720, 60_000), Self.mode(1, 1920, 1080, 60_000, preferred: true)]
        #expect(ConnectorVerdict.classify(wasConnected: true, current: Self.current, connected: true, modes: reordered,
                                          request: nil) == .unchanged)
    }

    @Test func theDisplaySwitchedOffIsDisconnectedOnce() {
        #expect(ConnectorVerdict.classify(wasConnected: true, current: Self.current, connected: false, modes: [],
                                          request: nil) == .disconnected)
        // Still off at the next report: nothing new.
        #expect(ConnectorVerdict.classify(wasConnected: false, current: Self.current, connected: false, modes: [],
                                          request: nil) == .unchanged)
        // Connected without a single progressive mode is as good as off.
        let interlacedOnly = [DisplayMode(index: 0, width: 1920, height: 1080, refreshMilliHz: 60_000, vrefresh: 60,
                                          preferred: true, interlaced: true)]
        #expect(ConnectorVerdict.classify(wasConnected: true, current: Self.current, connected: true, modes: interlacedOnly,
                                          request: nil) == .noModes)
    }

    @Test func theDisplayBackAtItsModeIsUsedAgain() {
        // Off before: the same mode back is used (the runner re-sets it with the next commit).
        #expect(ConnectorVerdict.classify(wasConnected: false, current: Self.current, connected: true, modes: Self.tv1080,
                                          request: nil) == .use(Self.current))
    }

    @Test func anotherDisplayWithAnotherPreferredModeIsANewMode() {
        let v = ConnectorVerdict.classify(wasConnected: true, current: Self.current, connected: true, modes: Self.tv4k, request: nil)
        #expect(v == .use(Self.tv4k[0]))
        let afterOff = ConnectorVerdict.classify(wasConnected: false, current: Self.current, connected: true, modes: Self.tv4k,
                                                 request: nil)
        #expect(afterOff == .use(Self.tv4k[0]))
    }

    @Test func anExplicitModeIsKeptWhileTheDisplayOffersIt() throws {
        let request = try #require(ModeRequest(parsing: "1920x1080@60"))
        // The 4K TV prefers 3840x2160 but offers 1920x1080@60: the request holds, nothing changes.
        #expect(ConnectorVerdict.classify(wasConnected: true, current: Self.current, connected: true, modes: Self.tv4k,
                                          request: request) == .unchanged)
        // A display without it: its preferred mode takes over.
        let small = [Self.mode(0, 1280, 800, 60_000, preferred: true), Self.mode(1, 1024, 768, 60_000)]
        #expect(ConnectorVerdict.classify(wasConnected: true, current: Self.current, connected: true, modes: small,
                                          request: request) == .use(small[0]))
        // …and when the requested mode is offered again, it comes back.
        #expect(ConnectorVerdict.classify(wasConnected: true, current: small[0], connected: true, modes: Self.tv4k,
                                          request: request) == .use(Self.tv4k[1]))
    }

    // MARK: the kernel socket

    /// The watch reads what the kernel broadcasts: a synthetic `change` written to a device's
    /// `uevent` file (root only) arrives from port 0 and parses, and is not a DRM report.
    @Test(.enabled(if: getuid() == 0 && access("/sys/class/mem/null/uevent", W_OK) == 0,
                   "writing a device's uevent file needs root and /sys/class/mem/null (CI runs as root)"))
    func theWatchReadsTheKernelsBroadcast() throws {
        let watch = try ConnectorWatch()
        _ = watch.drain()
        let before = watch.received
        try "change".write(toFile: "/sys/class/mem/null/uevent", atomically: false, encoding: .utf8)
        var pfd = pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&pfd, 1, 2_000) == 1, "no uevent within 2 s (a network namespace that gets no kernel uevents?)")
        let reports = watch.drain()
        #expect(reports.isEmpty)
        #expect(watch.received > before)
        #expect(watch.ignored == 0)
        // Drained: nothing left to read.
        pfd.revents = 0
        #expect(poll(&pfd, 1, 0) == 0)
    }
}
