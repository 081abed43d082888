/// What one `wl_output` said about itself (geometry, mode, scale, name), applied on `done`.
/// Pure.
public struct OutputState: Sendable, Equatable {
    /// The registry name of the global (to follow `global_remove`).
    public var globalName: UInt32
    /// `wl_output.name` (v4) or the make/model from `geometry`; "" until known.
    public var name: String = ""
    /// The current mode in pixels (`mode` event with the CURRENT flag).
    public var width: Int = 0
    public var height: Int = 0
    /// mHz; 0 when the output does not say (virtual outputs, VRR) — callers assume 60 Hz then.
    public var refreshMilliHz: Int = 0
    /// Integer buffer scale (`scale`, v2), 1 until told.
    public var scale: Int = 1
    /// `wl_output.transform` from `geometry` (0 normal, 1 90°, 2 180°, 3 270°, 4–7 flipped).
    public var transform: Int32 = 0
    /// Whether a `done` arrived since the last change (the values above are consistent).
    public var complete = false

    public init(globalName: UInt32) { self.globalName = globalName }

    /// `mode(flags, width, height, refresh)`: only the current mode counts.
    public mutating func handleMode(flags: UInt32, width: Int32, height: Int32, refreshMilliHz: Int32) {
        guard flags & 0x1 != 0 else { return }  // WL_OUTPUT_MODE_CURRENT
        self.width = Int(max(0, width)); self.height = Int(max(0, height))
        self.refreshMilliHz = Int(max(0, refreshMilliHz))
        complete = false
    }

    public mutating func handleScale(_ factor: Int32) {
        scale = max(1, Int(factor)); complete = false
    }

    /// `geometry`'s make and model name the output until `name` (v4) does; its transform turns
    /// the mode.
    public mutating func handleGeometry(make: String, model: String, transform: Int32 = 0) {
        if name.isEmpty || name.hasPrefix("geometry:") { name = "geometry:\(make) \(model)" }
        if transform != self.transform { self.transform = transform; complete = false }
    }

    /// The current mode as the output shows it: turned a quarter (transforms 90°, 270° and their
    /// flipped forms, wayland.xml `wl_output.transform`) swaps width and height.
    public var shownWidth: Int { transform & 1 == 1 ? height : width }
    public var shownHeight: Int { transform & 1 == 1 ? width : height }

    public mutating func handleName(_ name: String) { self.name = name }

    public mutating func handleDone() { complete = true }

    /// The name for logs (without the `geometry:` marker).
    public var displayName: String {
        name.hasPrefix("geometry:") ? String(name.dropFirst("geometry:".count)) : (name.isEmpty ? "output" : name)
    }

    /// One refresh period, ns (16.67 ms when unknown).
    public var refreshIntervalNs: UInt64 {
        UInt64(1_000_000_000_000 / (refreshMilliHz > 0 ? refreshMilliHz : 60_000))
    }
}
