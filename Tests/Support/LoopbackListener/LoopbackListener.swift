import Glibc

/// A UDP socket bound to 127.0.0.1 on an ephemeral port, with a 5 s receive timeout: what a test
/// points a sender at (magic packets) to read the bytes that really left. Shared by the test
/// targets, which cannot import each other.
public final class LoopbackListener {
    public let fd: Int32
    /// The port it was given, host byte order.
    public let port: UInt16

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Errno(errno) }
        self.fd = fd
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let rc = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { let e = errno; close(fd); throw Errno(e) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: sin.sin_port)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// The next datagram (at most 2048 bytes), or nil after 5 s without one.
    public func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n < 0 ? nil : Array(buffer[0..<n])
    }

    /// A socket call failed with this errno.
    public struct Errno: Error { public let code: Int32; init(_ code: Int32) { self.code = code } }
}
