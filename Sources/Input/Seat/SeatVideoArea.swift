/// Where a stream's picture sits on the panel (panel pixels, `PlaneGeometry`'s place) and the
/// size of the video it shows: what turns a seat pointer's place into the host's place. With it,
/// the host gets MouseMoveAbs in video pixels with the video as the reference surface, so a
/// letterboxed or pillarboxed picture points where it is drawn. Pure.
public struct SeatVideoArea: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    public var videoWidth: Int, videoHeight: Int

    public init(x: Int, y: Int, width: Int, height: Int, videoWidth: Int, videoHeight: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
        self.videoWidth = videoWidth; self.videoHeight = videoHeight
    }

    /// The video pixel under panel pixel (`px`, `py`) (its centre), clamped to the video: a place
    /// over the bars around the picture is the picture's nearest edge.
    public func hostPoint(panelX px: Int32, panelY py: Int32) -> (x: Int32, y: Int32) {
        func map(_ v: Int32, _ origin: Int, _ size: Int, _ video: Int) -> Int32 {
            guard video > 0, size > 0 else { return 0 }
            let p = ((Double(v) - Double(origin) + 0.5) * Double(video) / Double(size)).rounded(.down)
            return Int32(min(max(0, p), Double(video - 1)))
        }
        return (map(px, x, width, videoWidth), map(py, y, height, videoHeight))
    }
}
