import Display

/// Opens the Wayland backend of the `Screen` seam.
enum WaylandBackend {
    static func open(modeRequest: ModeRequest?, realtimePriority: Int32) throws(ScreenError) -> any Screen {
        throw .unavailable("This build has no Wayland backend.")
    }
}
