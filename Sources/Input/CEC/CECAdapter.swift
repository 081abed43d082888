import CPunktfunkLinux
import Foundation
import Glibc

/// One `/dev/cecN` adapter, opened non-blocking: its capabilities and addresses, transmit and
/// receive. Owns the fd (closed in `deinit`). No thread: the input loop reads it when epoll
/// says so.
final class CECAdapter {
    let path: String
    /// Owned; closed in deinit.
    let fd: Int32
    private(set) var info: pf_cec_info

    struct Received {
        var bytes: [UInt8]
        /// A transmit result (not a frame from the bus).
        var isTransmitResult: Bool
        var transmitOK: Bool
        var nacked: Bool
    }

    /// Opens `path`. - Returns: the adapter, or a sentence saying why not.
    static func open(_ path: String) -> Result<CECAdapter, CECAdapterError> {
        let fd = pf_cec_open(path)
        guard fd >= 0 else { return .failure(CECAdapterError("cannot open \(path): \(String(cString: strerror(-fd)))")) }
        var info = pf_cec_info()
        let r = pf_cec_info(fd, &info)
        guard r == 0 else {
            close(fd)
            return .failure(CECAdapterError("\(path) is not a CEC adapter: \(String(cString: strerror(-r)))"))
        }
        return .success(CECAdapter(path: path, fd: fd, info: info))
    }

    private init(path: String, fd: Int32, info: pf_cec_info) {
        self.path = path
        self.fd = fd
        self.info = info
    }

    deinit { close(fd) }

    var driver: String { withUnsafeBytes(of: info.driver) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
    var name: String { withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
    var physicalAddress: UInt16 { info.phys_addr }
    /// The DRM connector the kernel says the adapter belongs to.
    var connector: (card: UInt32, connector: UInt32)? {
        info.connector_type == 1 ? (info.card_no, info.connector_id) : nil
    }
    /// Whether this adapter can send at all (CEC_CAP_TRANSMIT) and claim addresses (CEC_CAP_LOG_ADDRS).
    var canTransmit: Bool { info.capabilities & 0x4 != 0 }
    var needsLogicalAddresses: Bool { info.capabilities & 0x2 != 0 }

    func refresh() -> Int32 { pf_cec_info(fd, &info) }

    /// Initiator + follower (exclusive when nobody else follows; shared otherwise). nil or a sentence.
    func becomeFollower() -> String? {
        if pf_cec_set_mode(fd, 1) == 0 { return nil }
        let r = pf_cec_set_mode(fd, 0)
        return r == 0 ? nil : "cannot follow \(path): \(String(cString: strerror(-r)))"
    }

    /// Claims a Playback address, unless one is claimed already (another process configured the
    /// adapter as a playback device: we share it). nil or a sentence.
    func claimPlayback(osdName: String, cecVersion: UInt8) -> String? {
        guard needsLogicalAddresses else { return nil }
        if info.num_log_addrs > 0 {
            // Configured already: reuse it when it is a playback device, else refuse.
            let playback: UInt16 = 1 << 4 | 1 << 8 | 1 << 11
            if info.log_addr_mask & playback != 0 || info.log_addr_mask == 0 { return nil }
            return "\(path) is configured as another kind of device already"
        }
        let r = osdName.withCString { pf_cec_claim_playback(fd, $0, cecVersion, 0xFFFF_FFFF) }
        return r == 0 ? nil : "cannot claim a playback address on \(path): \(String(cString: strerror(-r)))"
    }

    /// Queues a frame. - Returns: 0 or -errno.
    func transmit(_ bytes: [UInt8]) -> Int32 {
        var seq: UInt32 = 0
        return bytes.withUnsafeBufferPointer { pf_cec_transmit(fd, $0.baseAddress, Int32($0.count), &seq) }
    }

    /// One waiting message or transmit result. - Returns: nil when nothing waits (`error` set
    /// to the errno for anything but EAGAIN).
    func receive(error: inout Int32) -> Received? {
        var buf = [UInt8](repeating: 0, count: 16)
        var len: Int32 = 0
        var seq: UInt32 = 0
        var tx: UInt8 = 0, rx: UInt8 = 0, nacks: UInt8 = 0
        let r = buf.withUnsafeMutableBufferPointer { pf_cec_receive(fd, $0.baseAddress, &len, &seq, &tx, &rx, &nacks) }
        guard r == 0 else { error = r == -EAGAIN ? 0 : -r; return nil }
        let n = max(0, min(16, Int(len)))
        let isTx = seq != 0 && tx != 0 && rx == 0
        return Received(bytes: Array(buf[..<n]), isTransmitResult: isTx, transmitOK: tx & 0x1 != 0, nacked: tx & 0x4 != 0 || nacks > 0)
    }

    enum Event { case stateChange(physical: UInt16, logicalMask: UInt16), lost(UInt32), other }

    /// One waiting event. - Returns: nil when none (`error` as for `receive`).
    func dequeueEvent(error: inout Int32) -> Event? {
        var ev: UInt32 = 0, pa: UInt16 = 0, mask: UInt16 = 0, lost: UInt32 = 0
        let r = pf_cec_dqevent(fd, &ev, &pa, &mask, &lost)
        guard r == 0 else { error = r == -EAGAIN ? 0 : -r; return nil }
        switch ev {
        case 1: return .stateChange(physical: pa, logicalMask: mask)
        case 2: return .lost(lost)
        default: return .other
        }
    }

    /// The adapter nodes present (`/dev/cec0`, …), sorted.
    static func nodes() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return names.filter { $0.hasPrefix("cec") && $0.dropFirst(3).allSatisfy(\.isNumber) && $0.count > 3 }
            .sorted { Int($0.dropFirst(3)) ?? 0 < Int($1.dropFirst(3)) ?? 0 }
            .map { "/dev/" + $0 }
    }
}

struct CECAdapterError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// One adapter as `probe` lists it.
public struct CECAdapterSummary: Sendable, Equatable {
    public var path: String
    public var driver: String
    public var name: String
    public var physicalAddress: UInt16
    /// "card0 connector 77", nil when the kernel does not say.
    public var connector: String?
    /// The logical addresses claimed now (bit n = address n).
    public var logicalMask: UInt16
    /// Why it could not be read (nil: read).
    public var problem: String?

    /// Every adapter present, read without claiming anything.
    public static func list() -> [CECAdapterSummary] {
        CECAdapter.nodes().map { path in
            switch CECAdapter.open(path) {
            case .success(let a):
                return CECAdapterSummary(path: path, driver: a.driver, name: a.name, physicalAddress: a.physicalAddress,
                                         connector: a.connector.map { "card\($0.card) connector \($0.connector)" },
                                         logicalMask: a.info.log_addr_mask, problem: nil)
            case .failure(let e):
                return CECAdapterSummary(path: path, driver: "", name: "", physicalAddress: 0xFFFF, connector: nil,
                                         logicalMask: 0, problem: e.description)
            }
        }
    }
}
