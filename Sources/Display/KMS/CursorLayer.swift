#if canImport(Glibc)
import Glibc
#endif
internal import CDRM
import Screen

/// The host's pointer on the CRTC's cursor plane (a plane of type CURSOR usable on the CRTC):
/// two ARGB8888 dumb buffers of the size the driver asks for (`DRM_CAP_CURSOR_WIDTH/HEIGHT`, 64
/// when it does not say), the image at their top-left and transparent elsewhere; the plane's
/// CRTC_X/Y (signed) put the image's top-left where its hot spot lands. A new place is only new
/// plane coordinates; a new image (another shape, another scale) is written into the buffer
/// that is neither on screen nor queued. Updated inside the commits the presenter makes (a
/// video frame's, or one of its own when the pointer moved over a still picture).
///
/// Buffer rule as for video: a buffer is rewritten only when it is neither on screen nor in the
/// commit in flight.
final class CursorLayer {
    /// The plane, its properties and the buffers' size; nil when the CRTC has no cursor plane
    /// (or its buffers could not be made).
    let planeID: UInt32?
    private let props: ObjectProperties?
    let bufferWidth: Int, bufferHeight: Int
    private var buffers: [DumbBuffer] = []
    /// The image each buffer holds (nil: none written).
    private var held: [CursorImage?] = [nil, nil]
    private var current: Int?, queued: Int?
    /// What to show: the image (already at the picture's scale) and its top-left on the CRTC.
    private var want: (image: CursorImage, x: Int, y: Int)?
    /// What the last accepted commit put on the plane (nil: off).
    private var shown: (buffer: Int, x: Int, y: Int)?
    /// What the commit being built puts there (`.some(nil)`: off; nil: nothing staged).
    private var staged: (buffer: Int, x: Int, y: Int)??
    /// Why there is no cursor plane (for the start-up line), nil when there is one.
    let unavailableReason: String?

    init(device: DRMDevice, planes: [PlaneDescription], crtcIndex: Int, planeProps: [UInt32: ObjectProperties]) {
        let w = Int(device.capability(UInt64(DRM_CAP_CURSOR_WIDTH)) ?? 64)
        let h = Int(device.capability(UInt64(DRM_CAP_CURSOR_HEIGHT)) ?? 64)
        bufferWidth = min(max(w, 1), 512); bufferHeight = min(max(h, 1), 512)
        guard let plane = Self.plane(in: planes, crtcIndex: crtcIndex), let pp = planeProps[plane.id] else {
            planeID = nil; props = nil
            unavailableReason = "the CRTC has no cursor plane that scans out AR24"
            return
        }
        guard let a = try? DumbBuffer(device: device, width: bufferWidth, height: bufferHeight, format: .argb8888),
              let b = try? DumbBuffer(device: device, width: bufferWidth, height: bufferHeight, format: .argb8888) else {
            planeID = nil; props = nil
            unavailableReason = "no \(bufferWidth)x\(bufferHeight) dumb buffer for the cursor plane"
            return
        }
        planeID = plane.id; props = pp; buffers = [a, b]
        unavailableReason = nil
    }

    /// The cursor plane the pointer is drawn on: of type CURSOR, usable on the CRTC with index
    /// `crtcIndex`, scanning out AR24. nil when there is none.
    static func plane(in planes: some Sequence<PlaneDescription>, crtcIndex: Int) -> PlaneDescription? {
        let bit = UInt32(1) << UInt32(crtcIndex)
        return planes.first { $0.kind == .cursor && $0.possibleCRTCs & bit != 0 && $0.formats[.argb8888] != nil }
    }

    /// Whether what is wanted differs from what the last accepted commit put on the plane.
    var changePending: Bool {
        guard planeID != nil else { return false }
        switch (want, shown) {
        case (nil, nil): return false
        case (nil, _?), (_?, nil): return true
        case let (w?, s?): return held[s.buffer] != w.image || s.x != w.x || s.y != w.y
        }
    }

    /// The image to show with its top-left at (`x`, `y`) on the CRTC (nil: none). An image
    /// larger than the buffer is clipped to it.
    func set(_ image: CursorImage?, x: Int, y: Int) {
        want = image.map { ($0, x, y) }
    }

    /// Before a real commit is built: decides what it puts on the plane, writing a new image into
    /// the buffer that is not on screen — nothing when the plane already shows it, unless the
    /// commit is a modeset (which states every plane). - Precondition: no commit in flight.
    func stage(modeset: Bool) {
        guard planeID != nil else { return }
        guard modeset || changePending else { staged = nil; return }
        guard let want else { staged = .some(nil); return }
        let i: Int
        if let c = current, held[c] == want.image {
            i = c
        } else {
            i = current == 0 ? 1 : 0
            if held[i] != want.image { write(want.image, into: i) }
        }
        staged = .some((i, want.x, want.y))
    }

    /// Adds the staged state (the image at its place, or the plane off). Nothing when nothing was
    /// staged (a TEST_ONLY commit of another plane's plan leaves the cursor as it is).
    func addState(to req: inout AtomicRequest, crtc: UInt32) {
        guard let props, planeID != nil, let next = staged else { return }
        guard let n = next else {
            req.add(props, "FB_ID", 0); req.add(props, "CRTC_ID", 0)
            return
        }
        let b = buffers[n.buffer]
        let src = FixedPointRect(PixelRect(x: 0, y: 0, width: b.width, height: b.height))
        req.add(props, "FB_ID", UInt64(b.framebuffer)); req.add(props, "CRTC_ID", UInt64(crtc))
        req.add(props, "SRC_X", 0); req.add(props, "SRC_Y", 0)
        req.add(props, "SRC_W", src.width); req.add(props, "SRC_H", src.height)
        // CRTC_X/Y are signed 32-bit properties (a pointer half off the left edge is negative).
        req.add(props, "CRTC_X", UInt64(bitPattern: Int64(n.x))); req.add(props, "CRTC_Y", UInt64(bitPattern: Int64(n.y)))
        req.add(props, "CRTC_W", UInt64(b.width)); req.add(props, "CRTC_H", UInt64(b.height))
    }

    /// Where the staged state puts the pointer's top-left on the CRTC (nil: nothing staged, or the
    /// plane off).
    var stagedPlace: (x: Int, y: Int)? {
        guard let s = staged, let n = s else { return nil }
        return (n.x, n.y)
    }

    /// The commit carrying the staged state was accepted.
    func committed() {
        guard let s = staged else { return }
        shown = s
        if let n = s, n.buffer != current { queued = n.buffer }
        staged = nil
    }

    /// The commit failed: nothing changed on the plane.
    func commitFailed() { staged = nil }

    /// A flip completed: the queued buffer is on screen.
    func flipCompleted() {
        if let q = queued { current = q; queued = nil }
    }

    /// After the saved state was restored: the plane is as it was, the buffers are dropped.
    func releaseAll() {
        buffers = []; held = [nil, nil]
        current = nil; queued = nil; staged = nil; shown = nil; want = nil
    }

    private func write(_ image: CursorImage, into i: Int) {
        let b = buffers[i]
        for r in 0..<b.height { memset(b.map + r * b.pitch, 0, b.width * 4) }
        let rows = min(image.height, b.height), bytes = min(image.width, b.width) * 4
        image.pixels.withUnsafeBytes { src in
            for r in 0..<rows { memcpy(b.map + r * b.pitch, src.baseAddress! + r * image.width * 4, bytes) }
        }
        held[i] = image
    }
}
