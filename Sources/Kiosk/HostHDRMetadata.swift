import Foundation
import PunktfunkWire
import VideoFrames

extension HDRStaticMetadata {
    /// The host's ST 2086 + CTA-861.3 body (0xCE datagram, data-plane.md §7.4: primaries G, B, R
    /// in 1/50000, mastering luminance max and min in 0.0001 cd/m², MaxCLL/MaxFALL in cd/m²) in
    /// the HDMI descriptor's units: primaries reordered R, G, B; the peak to whole cd/m².
    public init(wire m: HDRMetadata) {
        let lum = HDRStaticMetadata.descriptorLuminance(max: m.maxMasteringLuminance, min: m.minMasteringLuminance)
        self.init(red: .init(x: m.red.x, y: m.red.y), green: .init(x: m.green.x, y: m.green.y),
                  blue: .init(x: m.blue.x, y: m.blue.y), whitePoint: .init(x: m.whitePoint.x, y: m.whitePoint.y),
                  maxMasteringLuminance: lum.max, minMasteringLuminance: lum.min, maxCLL: m.maxCLL, maxFALL: m.maxFALL)
    }
}

/// The newest static HDR metadata the host sent, handed from the pump thread to the presenting
/// thread: `offer` (any thread) replaces the value, newest wins; `takeNew` (any thread) returns it
/// once per change. Repeats of the same metadata (the host re-sends it on every keyframe) are not
/// changes.
public final class LatestHDRMetadata: @unchecked Sendable {
    private let lock = NSLock()
    private var value: HDRStaticMetadata?
    private var fresh = false

    public init() {}

    public func offer(_ m: HDRStaticMetadata) {
        lock.withLock {
            guard m != value else { return }
            value = m
            fresh = true
        }
    }

    /// The value when it changed since the last call, else nil.
    public func takeNew() -> HDRStaticMetadata? {
        lock.withLock {
            guard fresh else { return nil }
            fresh = false
            return value
        }
    }

    /// The newest value (nil: none yet).
    public var latest: HDRStaticMetadata? { lock.withLock { value } }
}
