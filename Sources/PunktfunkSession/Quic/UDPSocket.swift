import Glibc

/// A nonblocking UDP socket (IPv4 or IPv6) that the session pump owns; QUIC and raw media share it
/// (data-plane.md §8.1). Owns the fd and closes it in `deinit`.
///
/// `send`/`receive` never block: "would block" is a result (`false`/nil), not an error (STYLE.md §3).
public final class UDPSocket {
    /// Kernel buffer size asked for on both directions: a 1 Gbps burst of ~40 ms.
    public static let defaultBufferBytes = 8 << 20

    /// The owned descriptor; -1 after `close()`.
    public private(set) var fileDescriptor: Int32
    /// The bound address (with the kernel-chosen port when bound to port 0).
    public let localAddress: SocketAddress

    /// Creates a socket bound to `address` (port 0 = ephemeral). IPv6 sockets accept IPv4-mapped
    /// traffic too (IPV6_V6ONLY off). Buffer sizes are requested best-effort; the kernel may clamp.
    public init(bind address: SocketAddress, bufferBytes: Int = UDPSocket.defaultBufferBytes) throws(QuicError) {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(errno: errno, call: "socket") }
        // The *FORCE variants pass net.core.{r,w}mem_max but need CAP_NET_ADMIN; without it the
        // plain options are clamped to those sysctls (often 208 KiB — raise them for 1 Gbps bursts).
        var size = Int32(clamping: bufferBytes)
        let intLength = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, intLength) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, intLength)
        }
        if setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, intLength) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, intLength)
        }
        if address.isIPv6 {
            var off: Int32 = 0
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        let rc = address.withSockAddr { Glibc.bind(fd, $0, $1) }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw .socket(errno: e, call: "bind \(address)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard got == 0 else {
            let e = errno
            Glibc.close(fd)
            throw .socket(errno: e, call: "getsockname")
        }
        fileDescriptor = fd  // ownership of fd moves into self here
        localAddress = SocketAddress(storage: storage, length: length)
    }

    deinit { close() }

    /// The kernel's receive and send buffer sizes as granted (Linux reports double the request).
    public var bufferSizes: (receive: Int, send: Int) {
        func get(_ option: Int32) -> Int {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fileDescriptor, SOL_SOCKET, option, &value, &length) == 0 ? Int(value) : 0
        }
        return (get(SO_RCVBUF), get(SO_SNDBUF))
    }

    /// Closes the descriptor (idempotent).
    public func close() {
        if fileDescriptor >= 0 {
            Glibc.close(fileDescriptor)
            fileDescriptor = -1
        }
    }

    /// Sends one datagram with `sendmsg`.
    /// - Returns: false if the socket buffer is full (EAGAIN); the caller keeps the datagram.
    /// - Throws: `QuicError.socket` for any other errno.
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: SocketAddress) throws(QuicError) -> Bool {
        var dest = destination.storage
        var iov = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
        while true {
            let n = withUnsafeMutablePointer(to: &dest) { destPtr in
                withUnsafeMutablePointer(to: &iov) { iovPtr in
                    var msg = msghdr()
                    msg.msg_name = UnsafeMutableRawPointer(destPtr)
                    msg.msg_namelen = destination.length
                    msg.msg_iov = iovPtr
                    msg.msg_iovlen = 1
                    return sendmsg(fileDescriptor, &msg, Int32(MSG_DONTWAIT))
                }
            }
            if n >= 0 { return true }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return false
            default: throw .socket(errno: errno, call: "sendmsg to \(destination)")
            }
        }
    }

    /// Convenience over `send(_:to:)` for an array.
    public func send(_ bytes: [UInt8], to destination: SocketAddress) throws(QuicError) -> Bool {
        // withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        try bytes.withUnsafeBytes { raw in Result { () throws(QuicError) -> Bool in try send(raw, to: destination) } }.get()
    }

    /// Receives one datagram with `recvmsg` into `buffer`.
    /// - Returns: the byte count and sender, or nil when nothing is queued (EAGAIN). A datagram
    ///   longer than `buffer` is truncated (MSG_TRUNC is not reported; size buffers at 64 KiB).
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(QuicError) -> (count: Int, from: SocketAddress)? {
        var storage = sockaddr_storage()
        var iov = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        while true {
            var nameLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let n = withUnsafeMutablePointer(to: &storage) { namePtr in
                withUnsafeMutablePointer(to: &iov) { iovPtr in
                    var msg = msghdr()
                    msg.msg_name = UnsafeMutableRawPointer(namePtr)
                    msg.msg_namelen = nameLength
                    msg.msg_iov = iovPtr
                    msg.msg_iovlen = 1
                    let r = recvmsg(fileDescriptor, &msg, Int32(MSG_DONTWAIT))
                    nameLength = msg.msg_namelen
                    return r
                }
            }
            if n >= 0 { return (n, SocketAddress(storage: storage, length: nameLength)) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw .socket(errno: errno, call: "recvmsg")
            }
        }
    }
}
