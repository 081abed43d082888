internal import CPunktfunkLinux
import Glibc
import PunktfunkWire

/// A generic netlink socket (`AF_NETLINK`, `NETLINK_GENERIC`): a family's id and multicast groups
/// from the controller, requests answered by their replies (a dump's parts until `NLMSG_DONE`,
/// an `NLMSG_ERROR` as a thrown errno), and multicast events for a listener. Blocking with a
/// deadline per request; one owner thread.
public final class GenericNetlink {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var what: String
        public var errno: Int32
        public var description: String { "\(what): \(String(cString: strerror(errno)))" }
    }

    public let fd: Int32
    private var sequence: UInt32 = 1
    private var buffer = [UInt8](repeating: 0, count: 32768)

    public init() throws(Failure) {
        fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_GENERIC)
        guard fd >= 0 else { throw Failure(what: "socket(AF_NETLINK, NETLINK_GENERIC)", errno: errno) }
        var local = sockaddr_nl()
        local.nl_family = sa_family_t(AF_NETLINK)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        guard bound == 0 else {
            let e = errno
            close(fd)
            throw Failure(what: "bind(AF_NETLINK)", errno: e)
        }
    }

    deinit { close(fd) }

    /// A family's id and its multicast groups by name (CTRL_CMD_GETFAMILY).
    public func family(_ name: String) throws(Failure) -> (id: UInt16, groups: [String: UInt32]) {
        let replies = try request(family: UInt16(GENL_ID_CTRL), command: UInt8(CTRL_CMD_GETFAMILY), dump: false,
                                  attributes: [(UInt16(CTRL_ATTR_FAMILY_NAME), Array(name.utf8) + [0])])
        guard let a = replies.first, let id = a.u16(UInt16(CTRL_ATTR_FAMILY_ID)) else {
            throw Failure(what: "the controller named no id for \(name)", errno: ENOENT)
        }
        var groups: [String: UInt32] = [:]
        if let list = a.nested(UInt16(CTRL_ATTR_MCAST_GROUPS)) {
            for (_, entry) in list.values {
                let g = NetlinkCodec.Attributes(entry)
                if let n = g.string(UInt16(CTRL_ATTR_MCAST_GRP_NAME)), let gid = g.u32(UInt16(CTRL_ATTR_MCAST_GRP_ID)) {
                    groups[n] = gid
                }
            }
        }
        return (id, groups)
    }

    /// Sends one request and collects the attributes of its replies (a dump's every part).
    /// - Throws: the kernel's errno from `NLMSG_ERROR`, or ETIMEDOUT after `timeoutMs`.
    public func request(family: UInt16, command: UInt8, dump: Bool, attributes: [(UInt16, [UInt8])],
                        timeoutMs: Int32 = 500) throws(Failure) -> [NetlinkCodec.Attributes] {
        sequence &+= 1
        let seq = sequence
        let flags = NetlinkCodec.request | NetlinkCodec.ack | (dump ? NetlinkCodec.dump : 0)
        let message = NetlinkCodec.generic(family: family, command: command, flags: flags, sequence: seq, attributes: attributes)
        guard message.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == message.count else {
            throw Failure(what: "send(netlink)", errno: errno)
        }
        var out: [NetlinkCodec.Attributes] = []
        while true {
            for m in try receive(timeoutMs: timeoutMs, what: "the reply to netlink command \(command)") where m.sequence == seq {
                if let e = m.errorCode {
                    if e == 0 { if !dump { return out } else { continue } }
                    throw Failure(what: "netlink command \(command)", errno: -e)
                }
                if m.type == NetlinkCodec.done { return out }
                if let g = m.generic { out.append(g.attributes) }
            }
        }
    }

    /// Joins multicast group `id` (NETLINK_ADD_MEMBERSHIP): its events arrive through `receive`.
    public func join(group id: UInt32) throws(Failure) {
        var g = id
        guard setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, socklen_t(4)) == 0 else {
            throw Failure(what: "NETLINK_ADD_MEMBERSHIP \(id)", errno: errno)
        }
    }

    /// The messages of the next datagram, waiting up to `timeoutMs` (0: whatever is there).
    public func receive(timeoutMs: Int32, what: String = "netlink") throws(Failure) -> [NetlinkCodec.Message] {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, timeoutMs)
        guard ready > 0 else {
            if ready < 0 && errno != EINTR { throw Failure(what: "poll(netlink)", errno: errno) }
            throw Failure(what: what, errno: ETIMEDOUT)
        }
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw Failure(what: "recv(netlink)", errno: n < 0 ? errno : EPIPE) }
        return NetlinkCodec.messages(buffer[0..<n])
    }
}
