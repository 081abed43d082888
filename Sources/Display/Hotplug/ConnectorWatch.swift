internal import CPunktfunkLinux
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's uevent broadcast, read for DRM hot-plug reports. The kernel socket is used with
/// or without udevd: a DRM `change` creates no device node, so there is nothing to wait for udev
/// on, and one route works on a minimal box and under a desktop alike.
///
/// Ownership: the socket is closed in deinit. `descriptor` is for the owner's poll set
/// (readable = datagrams wait; `drain()` empties it). Used on one thread.
public final class ConnectorWatch {
    /// The socket, non-blocking.
    public let descriptor: Int32
    /// Datagrams read, and those that were not kernel uevents or came from a user process.
    public private(set) var received = 0
    public private(set) var ignored = 0
    private var buffer = [UInt8](repeating: 0, count: 8192)

    /// - Throws: `KMSError.ioctl` naming the refused socket call (a sandbox without netlink).
    public init() throws(KMSError) {
        let fd = pf_uevent_socket()
        guard fd >= 0 else { throw .ioctl("uevent netlink socket", errno: -fd) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Reads every waiting datagram. - Returns: the DRM hot-plug reports among them, in order.
    public func drain() -> [DRMHotplug] {
        var reports: [DRMHotplug] = []
        while true {
            var sender: UInt32 = 0
            let n = buffer.withUnsafeMutableBytes { pf_uevent_receive(descriptor, $0.baseAddress, UInt($0.count), &sender) }
            if n == -Int(EINTR) { continue }
            if n == -Int(ENOBUFS) {
                // The socket overflowed: reports were lost, so any connector may have changed.
                reports.append(DRMHotplug(deviceName: nil, connector: nil))
                continue
            }
            guard n > 0 else { break }   // -EAGAIN: nothing left
            received += 1
            // Only the kernel (port 0) speaks for devices; anything else on the group is ignored.
            guard sender == 0, let event = Uevent(datagram: buffer[0..<n]) else { ignored += 1; continue }
            if let report = DRMHotplug(event) { reports.append(report) }
        }
        return reports
    }
}
