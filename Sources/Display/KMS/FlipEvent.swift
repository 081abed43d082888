/// A page-flip completion read from the DRM fd.
public struct FlipEvent: Sendable, Equatable {
    /// Vblank counter at the flip (0 on drivers without vblank, e.g. bochs-drm, virtio-gpu).
    public var sequence: UInt32
    /// When the flip happened, CLOCK_MONOTONIC ns (DRM_CAP_TIMESTAMP_MONOTONIC is always 1 since
    /// Linux 4.15).
    public var timestampNs: UInt64
    public var crtc: UInt32
    public var userData: UInt64

    public init(sequence: UInt32, timestampNs: UInt64, crtc: UInt32, userData: UInt64) {
        self.sequence = sequence; self.timestampNs = timestampNs; self.crtc = crtc; self.userData = userData
    }
}

/// Parser for the byte stream `read(2)` returns on a DRM fd (drm.h): a sequence of
/// `struct drm_event { u32 type; u32 length; }` records, `length` including the header. Flip
/// completions (`DRM_EVENT_FLIP_COMPLETE` = 2) are `struct drm_event_vblank`:
/// `user_data u64 @8, tv_sec u32 @16, tv_usec u32 @20, sequence u32 @24, crtc_id u32 @28` (32 bytes).
/// Other event types are skipped by their length.
public enum DRMEventParser {
    public static let flipComplete: UInt32 = 2

    /// Appends every flip completion in `bytes` to `events` (caller-owned, reused).
    /// Stops at a truncated or zero-length record (never traps).
    public static func parse(_ bytes: UnsafeRawBufferPointer, into events: inout [FlipEvent]) {
        var at = 0
        while at + 8 <= bytes.count {
            let type = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))
            guard length >= 8, at + length <= bytes.count else { return }
            if type == flipComplete, length >= 32 {
                let user = bytes.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)
                let sec = bytes.loadUnaligned(fromByteOffset: at + 16, as: UInt32.self)
                let usec = bytes.loadUnaligned(fromByteOffset: at + 20, as: UInt32.self)
                let seq = bytes.loadUnaligned(fromByteOffset: at + 24, as: UInt32.self)
                let crtc = bytes.loadUnaligned(fromByteOffset: at + 28, as: UInt32.self)
                events.append(FlipEvent(sequence: seq, timestampNs: UInt64(sec) * 1_000_000_000 + UInt64(usec) * 1000,
                                        crtc: crtc, userData: user))
            }
            at += length
        }
    }
}
