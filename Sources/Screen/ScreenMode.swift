/// What a screen shows at: pixels (the buffer size a full-screen picture needs, scale applied)
/// and the refresh it repaints at. The host is asked for exactly this.
public struct ScreenMode: Sendable, Equatable, Hashable {
    public var width: Int
    public var height: Int
    /// Refresh in millihertz; 0 when the screen does not say (a virtual output, VRR).
    public var refreshMilliHz: Int

    public init(width: Int, height: Int, refreshMilliHz: Int) {
        self.width = width; self.height = height; self.refreshMilliHz = refreshMilliHz
    }

    /// Whole hertz as `WxH@Hz` prints it (60 when unknown: what a host is asked for then).
    public var vrefresh: Int { refreshMilliHz > 0 ? (refreshMilliHz + 500) / 1000 : 60 }

    /// `WxH@Hz`, the spelling of `--mode` and of the start-up report.
    public var name: String { "\(width)x\(height)@\(vrefresh)" }

    /// One refresh period, ns (16.67 ms when the refresh is unknown).
    public var refreshIntervalNs: UInt64 {
        UInt64(1_000_000_000_000 / (refreshMilliHz > 0 ? refreshMilliHz : 60_000))
    }
}
