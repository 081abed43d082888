#if canImport(Glibc)
import Glibc
#endif

/// The presenter's stats overlay: the newest image and the way it reaches glass.
///
/// Routes: `.plane` — an ARGB8888 plane above the video, two dumb buffers (one on screen, one
/// written for the next commit), updated only inside a video commit (never a commit of its own);
/// `.composite` — blended into each XRGB slot after conversion; `.none` — a YUV video plane and
/// no spare plane (the reason is in `Presenter.overlayRouteName`; the command says it once). Buffer rule as for video: a buffer is rewritten only when
/// it is neither on screen nor in the commit in flight; replaced buffers live until the next flip.
final class OverlayLayer {
    enum Route: Equatable { case none(String), plane(UInt32), composite }

    /// The image to show; nil = no overlay (nothing is touched).
    private(set) var image: OverlayImage?
    private(set) var route: Route = .none("off")
    /// False until a route was chosen for the current pipeline and image size.
    private(set) var routed = false

    private var plan: OverlayPlanePlan?
    private var props: ObjectProperties?
    private var buffers: [DumbBuffer] = []
    /// What each buffer holds.
    private var held: [OverlayImage?] = [nil, nil]
    private var current: Int?, queued: Int?, staged: Int?
    /// Buffers of an earlier route, kept until the next completed flip.
    private var retired: [DumbBuffer] = []

    /// The overlay plane in use (excluded from "every other plane off").
    var planeID: UInt32? { if case .plane(let id) = route { id } else { nil } }

    /// New image; a size change (or the first image) needs a new route.
    func set(_ new: OverlayImage?) {
        if new?.width != image?.width || new?.height != image?.height { routed = false }
        image = new
    }

    /// A new video pipeline: the route is chosen again.
    func invalidate() { routed = false }

    /// Chooses the route for `video`: the first candidate plane whose TEST_ONLY commit (built by
    /// `test`, which calls `addState` with modeset) passes; else compositing on the XRGB path;
    /// else none. Buffers of the previous route retire until the next flip.
    func route(video: PlanePlan, planes: [PlaneDescription], crtcIndex: Int, device: DRMDevice,
               planeProps: [UInt32: ObjectProperties], test: (OverlayLayer) -> Bool) {
        routed = true
        retireBuffers()
        guard let image else { route = .none("off"); return }
        for candidate in OverlayPlaneChoice.candidates(planes: planes, crtcIndex: crtcIndex, video: video) {
            guard let pp = planeProps[candidate.plane],
                  let a = try? DumbBuffer(device: device, width: image.width, height: image.height, format: .argb8888),
                  let b = try? DumbBuffer(device: device, width: image.width, height: image.height, format: .argb8888)
            else { continue }
            plan = candidate; props = pp; buffers = [a, b]; held = [nil, nil]
            route = .plane(candidate.plane)
            write(image, into: 0)
            staged = 0
            let ok = test(self)
            staged = nil
            if ok { return }
            plan = nil; props = nil; buffers = []; held = [nil, nil]
        }
        if video.format == .xrgb8888 {
            route = .composite
        } else {
            route = .none("the video plane takes \(video.format) and no plane on the CRTC scans out AR24 above it")
        }
    }

    // MARK: plane route

    /// Before a commit is built: writes a newer image into the buffer that is neither on screen
    /// nor queued. - Precondition: no commit in flight.
    func stage() {
        guard case .plane = route, let image, buffers.count == 2 else { return }
        if let c = current, held[c]?.generation == image.generation { return }
        let free = current == 0 ? 1 : 0
        write(image, into: free)
        staged = free
    }

    /// Adds the overlay plane's state: the staged buffer, or with `modeset` the one on screen
    /// (off when there is none). Nothing when no plane is used or nothing changed.
    func addState(to req: inout AtomicRequest, crtc: UInt32, modeset: Bool) {
        guard case .plane = route, let props, let plan else { return }
        guard let i = staged ?? (modeset ? current : nil) else {
            if modeset { req.add(props, "FB_ID", 0); req.add(props, "CRTC_ID", 0) }
            return
        }
        let b = buffers[i]
        let src = FixedPointRect(PixelRect(x: 0, y: 0, width: b.width, height: b.height))
        let at = held[i]?.rect ?? PixelRect(x: 0, y: 0, width: b.width, height: b.height)
        req.add(props, "FB_ID", UInt64(b.framebuffer)); req.add(props, "CRTC_ID", UInt64(crtc))
        req.add(props, "SRC_X", 0); req.add(props, "SRC_Y", 0)
        req.add(props, "SRC_W", src.width); req.add(props, "SRC_H", src.height)
        req.add(props, "CRTC_X", UInt64(at.x)); req.add(props, "CRTC_Y", UInt64(at.y))
        req.add(props, "CRTC_W", UInt64(at.width)); req.add(props, "CRTC_H", UInt64(at.height))
        if let z = plan.zpos { req.add(props, "zpos", z) }
    }

    /// The commit carrying the staged buffer was accepted.
    func committed() {
        if let s = staged { queued = s }
        staged = nil
    }

    /// The commit failed: the staged buffer is free again (the image is staged anew next time).
    func commitFailed() { staged = nil }

    /// A flip completed: the queued buffer is on screen; retired buffers are freed.
    func flipCompleted() {
        if let q = queued { current = q; queued = nil }
        retired.removeAll()
    }

    /// Drops every buffer (after the saved state was restored).
    func releaseAll() {
        buffers = []; retired = []; held = [nil, nil]
        current = nil; queued = nil; staged = nil
        route = .none("off"); routed = false
    }

    // MARK: composite route

    /// Blends the image into an XRGB slot when compositing. - Returns: the image blended (nil = none).
    func composite(into buffer: DumbBuffer, video: PixelRect) -> OverlayImage? {
        guard case .composite = route, let image else { return nil }
        image.blend(into: buffer.map, pitch: buffer.pitch, bufferWidth: buffer.width, bufferHeight: buffer.height, video: video)
        return image
    }

    /// The image on glass: the plane's current buffer, or `slotImage` (what the slot on screen
    /// was blended with) when compositing.
    func onGlass(slotImage: OverlayImage?) -> OverlayImage? {
        switch route {
        case .plane: return current.flatMap { held[$0] }
        case .composite: return slotImage
        case .none: return nil
        }
    }

    private func write(_ image: OverlayImage, into i: Int) {
        let b = buffers[i]
        image.pixels.withUnsafeBytes { src in
            for r in 0..<min(image.height, b.height) {
                memcpy(b.map + r * b.pitch, src.baseAddress! + r * image.width * 4, min(image.width, b.width) * 4)
            }
        }
        held[i] = image
    }

    private func retireBuffers() {
        retired += buffers
        buffers = []; held = [nil, nil]
        current = nil; queued = nil; staged = nil
        plan = nil; props = nil
    }
}
