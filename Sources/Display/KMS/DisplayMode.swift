/// One display timing as the connector offers it, reduced to what mode choice needs. The raw
/// `drmModeModeInfo` stays with the device (`index` into the connector's list).
public struct DisplayMode: Sendable, Equatable {
    /// Position in the connector's mode list.
    public var index: Int
    /// Active pixels.
    public var width: Int
    public var height: Int
    /// Refresh rate in millihertz, from the timing: clock(kHz) × 10⁶ / (htotal × vtotal), rounded
    /// (frame rate; interlaced modes are never chosen, so field rates do not matter).
    public var refreshMilliHz: Int
    /// The kernel's rounded `vrefresh` (Hz), what `WxH@Hz` prints.
    public var vrefresh: Int
    /// `DRM_MODE_TYPE_PREFERRED`.
    public var preferred: Bool
    /// `DRM_MODE_FLAG_INTERLACE`.
    public var interlaced: Bool

    public init(index: Int, width: Int, height: Int, refreshMilliHz: Int, vrefresh: Int,
                preferred: Bool, interlaced: Bool = false) {
        self.index = index; self.width = width; self.height = height
        self.refreshMilliHz = refreshMilliHz; self.vrefresh = vrefresh
        self.preferred = preferred; self.interlaced = interlaced
    }

    /// `WxH@Hz`, the spelling of `--mode` and of the start-up report.
    public var name: String { "\(width)x\(height)@\(vrefresh)" }

    /// One refresh period in CLOCK_MONOTONIC nanoseconds (from the exact timing).
    public var refreshIntervalNs: UInt64 {
        let mhz = refreshMilliHz > 0 ? refreshMilliHz : max(1, vrefresh) * 1000
        return UInt64(1_000_000_000_000 / mhz)
    }

    /// Refresh in mHz from `drmModeModeInfo` fields: clock is in kHz.
    public static func refreshMilliHz(clockKHz: Int, htotal: Int, vtotal: Int) -> Int {
        guard htotal > 0, vtotal > 0 else { return 0 }
        return Int((Int64(clockKHz) * 1_000_000 + Int64(htotal * vtotal) / 2) / Int64(htotal * vtotal))
    }
}

/// `--mode WxH[@Hz]`. `Hz` may carry decimals (`59.94`); it matches a mode whose exact refresh
/// is within 0.5 Hz of it.
public struct ModeRequest: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Requested refresh in mHz, nil = any.
    public var refreshMilliHz: Int?

    public init(width: Int, height: Int, refreshMilliHz: Int? = nil) {
        self.width = width; self.height = height; self.refreshMilliHz = refreshMilliHz
    }

    /// Parses `1920x1080`, `1920x1080@60`, `1280x800@59.94`. Returns nil for anything else
    /// (zero or negative sizes, sizes above 16384, refresh outside 1…1000 Hz).
    public init?(parsing text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]),
              (1...16384).contains(w), (1...16384).contains(h) else { return nil }
        width = w; height = h
        if parts.count == 2 {
            guard let hz = Double(parts[1]), hz.isFinite, hz >= 1, hz <= 1000 else { return nil }
            refreshMilliHz = Int((hz * 1000).rounded())
        } else {
            refreshMilliHz = nil
        }
    }

    public var description: String {
        guard let r = refreshMilliHz else { return "\(width)x\(height)" }
        return r % 1000 == 0 ? "\(width)x\(height)@\(r / 1000)" : "\(width)x\(height)@\(Double(r) / 1000)"
    }
}

/// Mode choice, a pure function of the connector's list and the request.
public enum ModeChoice {
    /// - Returns: with no request, the preferred mode (else the first progressive one, which
    ///   the kernel sorts largest first); with a request, a progressive mode of exactly that size
    ///   whose refresh is within 500 mHz of the request (closest wins; preferred breaks ties),
    ///   or with no refresh given the preferred mode of that size, else its highest refresh.
    ///   nil when nothing matches.
    public static func choose(from modes: [DisplayMode], request: ModeRequest?) -> DisplayMode? {
        let progressive = modes.filter { !$0.interlaced }
        guard let request else {
            return progressive.first(where: \.preferred) ?? progressive.first
        }
        let sized = progressive.filter { $0.width == request.width && $0.height == request.height }
        if let want = request.refreshMilliHz {
            let close = sized.filter { abs($0.refreshMilliHz - want) <= 500 }
            return close.min { a, b in
                let da = abs(a.refreshMilliHz - want), db = abs(b.refreshMilliHz - want)
                return da != db ? da < db : (a.preferred && !b.preferred)
            }
        }
        return sized.first(where: \.preferred) ?? sized.max { $0.refreshMilliHz < $1.refreshMilliHz }
    }
}
