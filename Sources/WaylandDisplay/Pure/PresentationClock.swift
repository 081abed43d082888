/// Maps timestamps of the compositor's presentation clock (`wp_presentation.clock_id`) onto
/// CLOCK_MONOTONIC, the clock of the rest of the kiosk. sway and mutter report MONOTONIC (the
/// identity); weston headless reports MONOTONIC_RAW, which runs at a slightly different rate
/// (NTP slews MONOTONIC by up to 500 ppm) — so the offset is re-sampled (`PresentationClockMap
/// .sample`) about once a second, never assumed (wayland.md §4.3).
///
/// Pure: the samples come in as arguments.
public struct PresentationClockMap: Sendable, Equatable {
    /// The compositor's clock id (a POSIX `clockid_t`).
    public let clockID: Int32
    /// CLOCK_MONOTONIC − compositor clock, ns (0 for MONOTONIC itself).
    public let offsetNs: Int64

    public static let monotonicID: Int32 = 1      // CLOCK_MONOTONIC
    public static let monotonicRawID: Int32 = 4   // CLOCK_MONOTONIC_RAW

    public init(clockID: Int32, offsetNs: Int64) {
        self.clockID = clockID
        self.offsetNs = clockID == Self.monotonicID ? 0 : offsetNs
    }

    /// From one reading of the compositor clock bracketed by two CLOCK_MONOTONIC readings: the
    /// compositor reading is taken to lie at the midpoint of the bracket.
    public init(clockID: Int32, monotonicBeforeNs: UInt64, clockNs: UInt64, monotonicAfterNs: UInt64) {
        let mid = monotonicBeforeNs / 2 + monotonicAfterNs / 2 + (monotonicBeforeNs & monotonicAfterNs & 1)
        self.init(clockID: clockID, offsetNs: Int64(bitPattern: mid &- clockNs))
    }

    /// A compositor timestamp as CLOCK_MONOTONIC ns (0 stays 0: "no time").
    public func monotonic(_ clockNs: UInt64) -> UInt64 {
        guard clockNs != 0 else { return 0 }
        let v = Int64(bitPattern: clockNs) &+ offsetNs
        return v > 0 ? UInt64(v) : 0
    }

    /// The clock's name for the start-up line (`MONOTONIC`, `MONOTONIC_RAW`, `clock 7`).
    public var clockName: String {
        switch clockID {
        case 0: "REALTIME"
        case 1: "MONOTONIC"
        case 4: "MONOTONIC_RAW"
        case 7: "BOOTTIME"
        default: "clock \(clockID)"
        }
    }

    /// `wp_presentation_feedback.presented`'s timestamp (tv_sec_hi, tv_sec_lo, tv_nsec) as ns.
    public static func nanoseconds(secondsHigh: UInt32, secondsLow: UInt32, nanoseconds: UInt32) -> UInt64 {
        (UInt64(secondsHigh) << 32 | UInt64(secondsLow)) &* 1_000_000_000 &+ UInt64(nanoseconds)
    }
}
