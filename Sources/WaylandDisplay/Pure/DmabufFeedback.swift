/// One (DRM fourcc, modifier) pair a compositor accepts as a dma-buf.
public struct FormatModifier: Sendable, Hashable, CustomStringConvertible {
    public var format: UInt32
    public var modifier: UInt64
    public init(format: UInt32, modifier: UInt64) { self.format = format; self.modifier = modifier }

    public var description: String {
        let chars = (0..<4).map { Character(UnicodeScalar(UInt8(truncatingIfNeeded: format >> (8 * $0)))) }
        return "\(String(chars)):0x\(String(modifier, radix: 16))"
    }
}

/// `zwp_linux_dmabuf_feedback_v1` (linux-dmabuf v4) as a value: the compositor's main device and
/// its tranches in preference order, each with the format/modifier pairs it takes on which
/// device and whether it is the scan-out tranche. Pure; built by `DmabufFeedbackBuilder` from the
/// events, negotiated with `choose`.
public struct DmabufFeedback: Sendable, Equatable {
    public struct Tranche: Sendable, Equatable {
        /// The device the buffers of this tranche should be allocated on (a `dev_t`).
        public var targetDevice: UInt64
        public var pairs: [FormatModifier]
        /// `tranche_flags` SCANOUT (0x1): a buffer from this tranche may go on a plane directly.
        public var scanout: Bool
        public init(targetDevice: UInt64, pairs: [FormatModifier], scanout: Bool) {
            self.targetDevice = targetDevice; self.pairs = pairs; self.scanout = scanout
        }
    }

    /// The compositor's main device (a `dev_t`): buffers not meant for scan-out go there.
    public var mainDevice: UInt64
    /// In the compositor's preference order (most preferred first).
    public var tranches: [Tranche]

    public init(mainDevice: UInt64, tranches: [Tranche]) { self.mainDevice = mainDevice; self.tranches = tranches }

    /// What `choose` picked.
    public struct Choice: Sendable, Equatable {
        public var pair: FormatModifier
        public var trancheIndex: Int
        public var scanout: Bool
        public var targetDevice: UInt64
    }

    /// The first listed pair for `format` among `modifiers` (the producer's, in its own order of
    /// preference), scan-out tranches first, then the rest in the compositor's order. Only listed
    /// pairs are ever chosen (any other import is refused, or is a protocol error). - Returns:
    /// nil when no tranche lists the format with one of the modifiers.
    public func choose(format: UInt32, modifiers: [UInt64]) -> Choice? {
        let order = tranches.indices.filter { tranches[$0].scanout } + tranches.indices.filter { !tranches[$0].scanout }
        for index in order {
            let tranche = tranches[index]
            for modifier in modifiers where tranche.pairs.contains(FormatModifier(format: format, modifier: modifier)) {
                return Choice(pair: FormatModifier(format: format, modifier: modifier), trancheIndex: index,
                              scanout: tranche.scanout, targetDevice: tranche.targetDevice)
            }
        }
        return nil
    }

    /// Whether any tranche lists `format` with `modifier`.
    public func lists(format: UInt32, modifier: UInt64) -> Bool {
        tranches.contains { $0.pairs.contains(FormatModifier(format: format, modifier: modifier)) }
    }

    /// The (major, minor) numbers of a `dev_t` (glibc's encoding, `gnu_dev_major/minor`).
    public static func deviceNumbers(_ dev: UInt64) -> (major: UInt32, minor: UInt32) {
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        return (UInt32(truncatingIfNeeded: major), UInt32(truncatingIfNeeded: minor))
    }

    /// A `dev_t` from (major, minor) (glibc's `gnu_dev_makedev`).
    public static func device(major: UInt32, minor: UInt32) -> UInt64 {
        let ma = UInt64(major), mi = UInt64(minor)
        return (ma & 0xfff) << 8 | (ma & ~0xfff) << 32 | (mi & 0xff) | (mi & ~0xff) << 12
    }
}

/// Why a feedback's bytes could not be read.
public enum DmabufFeedbackError: Error, Sendable, Equatable {
    /// The format table's size is not a whole number of 16-byte entries.
    case formatTableSize(Int)
    /// A `dev_t` array of the wrong size (expected 8 bytes).
    case deviceSize(Int)
    /// A tranche's index array is not a whole number of 16-bit indices.
    case indicesSize(Int)
    /// A tranche names an entry past the end of the format table.
    case indexOutOfRange(index: Int, tableCount: Int)
    /// An event came without the format table it refers to.
    case noFormatTable
}

/// Collects `zwp_linux_dmabuf_feedback_v1` events into `DmabufFeedback` values. Pure: the
/// listener hands it the event payloads as bytes (the mmap'ed format table, the wl_arrays).
///
/// Event order (linux-dmabuf-unstable-v1.xml v4): format_table, main_device, then per tranche
/// tranche_target_device, tranche_formats (any number), tranche_flags, tranche_done; finally
/// done. A later batch (the compositor re-sends on a fullscreen change) may skip format_table
/// and main_device: both carry over.
public struct DmabufFeedbackBuilder: Sendable {
    private var table: [FormatModifier]?
    private var mainDevice: UInt64 = 0
    private var tranches: [DmabufFeedback.Tranche] = []
    private var current = DmabufFeedback.Tranche(targetDevice: 0, pairs: [], scanout: false)
    /// The first malformed payload of this batch (a batch with one is not handed out).
    public private(set) var error: DmabufFeedbackError?

    public init() {}

    /// `format_table(fd, size)`: the mmap'ed table, 16 bytes per entry (u32 format, u32 padding,
    /// u64 modifier), host byte order.
    public mutating func handleFormatTable(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count % 16 == 0 else { error = error ?? .formatTableSize(bytes.count); return }
        var entries: [FormatModifier] = []
        entries.reserveCapacity(bytes.count / 16)
        for i in stride(from: 0, to: bytes.count, by: 16) {
            entries.append(FormatModifier(format: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self),
                                          modifier: bytes.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)))
        }
        table = entries
    }

    public mutating func handleMainDevice(_ bytes: UnsafeRawBufferPointer) {
        guard let dev = readDevice(bytes) else { return }
        mainDevice = dev
    }

    public mutating func handleTrancheTargetDevice(_ bytes: UnsafeRawBufferPointer) {
        guard let dev = readDevice(bytes) else { return }
        current.targetDevice = dev
    }

    /// `tranche_formats(indices)`: 16-bit indices into the format table.
    public mutating func handleTrancheFormats(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count % 2 == 0 else { error = error ?? .indicesSize(bytes.count); return }
        guard let table else { error = error ?? .noFormatTable; return }
        for i in stride(from: 0, to: bytes.count, by: 2) {
            let index = Int(bytes.loadUnaligned(fromByteOffset: i, as: UInt16.self))
            guard index < table.count else {
                error = error ?? .indexOutOfRange(index: index, tableCount: table.count)
                return
            }
            current.pairs.append(table[index])
        }
    }

    public mutating func handleTrancheFlags(_ flags: UInt32) {
        current.scanout = flags & 0x1 != 0
    }

    public mutating func handleTrancheDone() {
        tranches.append(current)
        current = DmabufFeedback.Tranche(targetDevice: current.targetDevice, pairs: [], scanout: false)
    }

    /// `done`: the batch is complete. - Returns: the feedback, or the batch's first error.
    public mutating func handleDone() -> Result<DmabufFeedback, DmabufFeedbackError> {
        defer {
            tranches = []
            error = nil
            current = DmabufFeedback.Tranche(targetDevice: 0, pairs: [], scanout: false)
        }
        if let error { return .failure(error) }
        return .success(DmabufFeedback(mainDevice: mainDevice, tranches: tranches))
    }

    private mutating func readDevice(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count == 8 else { error = error ?? .deviceSize(bytes.count); return nil }
        return bytes.loadUnaligned(as: UInt64.self)
    }
}
