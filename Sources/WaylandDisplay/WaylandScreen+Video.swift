#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Screen
import SystemClock
import VideoFrames
internal import CWaylandClient
internal import CWaylandProtocols

/// Where the newest picture went: nowhere yet (or the canvas), the toplevel's own surface, or
/// the video subsurface at a logical rectangle.
enum VideoPlacement: Equatable {
    case none
    case onToplevel
    case onSubsurface(PixelRect)

    var onSubsurface: Bool { if case .onSubsurface = self { true } else { false } }
}

/// The last source and destination sent on one `wp_viewport`, so a commit sends only changes.
final class ViewportState {
    private var source: FrameCrop??
    private var bufferSize = (0, 0)
    private var destination: (Int, Int)?

    /// `source` nil: the whole buffer (-1 … -1); else the visible window of a `bufferWidth` ×
    /// `bufferHeight` buffer. `destination` in surface units.
    func set(_ viewport: OpaquePointer, source crop: FrameCrop?, bufferWidth: Int, bufferHeight: Int,
             destination dest: (Int, Int)) {
        if destination.map({ $0 != dest }) ?? true {
            wp_viewport_set_destination(viewport, Int32(dest.0), Int32(dest.1))
            destination = dest
        }
        let crop = crop == FrameCrop() ? nil : crop
        if source.map({ $0 != crop }) ?? true || (crop != nil && bufferSize != (bufferWidth, bufferHeight)) {
            if let crop {
                wp_viewport_set_source(viewport, wl_fixed_from_int(Int32(crop.left)), wl_fixed_from_int(Int32(crop.top)),
                                       wl_fixed_from_int(Int32(bufferWidth - crop.left - crop.right)),
                                       wl_fixed_from_int(Int32(bufferHeight - crop.top - crop.bottom)))
            } else {
                wp_viewport_set_source(viewport, wl_fixed_from_int(-1), wl_fixed_from_int(-1),
                                       wl_fixed_from_int(-1), wl_fixed_from_int(-1))
            }
            source = .some(crop)
            bufferSize = (bufferWidth, bufferHeight)
        }
    }
}

extension WaylandScreen {
    // MARK: The video subsurface

    /// The subsurface that shows a picture smaller than the screen, above the toplevel's black
    /// and below the panel (subsurfaces stack in the order they are made). Desynchronized: a
    /// picture's commit is shown on its own; a change of place goes out with the toplevel's
    /// commit (`showVideo`).
    func createVideoSurface(_ sub: OpaquePointer) {
        guard let vp = connection.viewporter, let s = wl_compositor_create_surface(connection.compositor) else { return }
        videoSurface = s
        videoSubsurface = wl_subcompositor_get_subsurface(sub, s, surface)
        wl_subsurface_set_desync(videoSubsurface)
        videoViewport = wp_viewporter_get_viewport(vp, s)
        // Empty input region: the pointer goes to the toplevel underneath.
        let region = wl_compositor_create_region(connection.compositor)
        wl_surface_set_input_region(s, region)
        wl_region_destroy(region)
    }

    /// Shows `buffer` (a picture of `bufferWidth` × `bufferHeight` with its visible window
    /// `crop`) at its place, scaled by a viewport: on the toplevel when the place is the whole
    /// window (or there is no video subsurface), else on the subsurface above black. Commits and
    /// flushes.
    func showVideo(_ buffer: OpaquePointer, bufferWidth: Int, bufferHeight: Int, crop: FrameCrop,
                   frameID: UInt64, readyNs: UInt64) {
        let vw = bufferWidth - crop.left - crop.right, vh = bufferHeight - crop.top - crop.bottom
        guard let place = layout.place(width: vw, height: vh, scaling: scaling), let viewport else { return }
        let full = PixelRect(x: 0, y: 0, width: layout.pixelWidth, height: layout.pixelHeight)
        let logical = layout.logical(place)
        fitState = CPUFitPlacer.Placement(picture: "\(vw)x\(vh)", place: place,
                            scaler: place.width == vw && place.height == vh ? "none" : "compositor", why: nil)
        tellSeat(place, width: vw, height: vh)
        guard place != full, let video = videoSurface, let sub = videoSubsurface, let videoViewport else {
            // The whole window: the picture on the toplevel itself.
            let wasOnSubsurface = videoPlacement.onSubsurface
            if wasOnSubsurface { unmapVideoSubsurface() }
            wl_surface_attach(surface, buffer, 0, 0)
            wl_surface_set_buffer_scale(surface, 1)
            viewportState.set(viewport, source: crop, bufferWidth: bufferWidth, bufferHeight: bufferHeight,
                              destination: (logical.width, logical.height))
            wl_surface_damage_buffer(surface, 0, 0, Int32(bufferWidth), Int32(bufferHeight))
            videoPlacement = .onToplevel
            commit(surface, frameID: frameID, readyNs: readyNs, canvas: false)
            if wasOnSubsurface, let sub = videoSubsurface { wl_subsurface_set_desync(sub) }
            flushOrFail()
            return
        }
        let moved = videoPlacement != .onSubsurface(logical)
        // A new place goes out with the toplevel's commit (the position is its state): the
        // subsurface is synchronized for it, so both apply at once.
        if moved { wl_subsurface_set_sync(sub) }
        wl_surface_attach(video, buffer, 0, 0)
        videoViewportState.set(videoViewport, source: crop, bufferWidth: bufferWidth, bufferHeight: bufferHeight,
                               destination: (logical.width, logical.height))
        wl_surface_damage_buffer(video, 0, 0, Int32(bufferWidth), Int32(bufferHeight))
        commit(video, frameID: frameID, readyNs: readyNs, canvas: false)
        if moved {
            wl_subsurface_set_position(sub, Int32(logical.x), Int32(logical.y))
            if !videoPlacement.onSubsurface { attachBlack() }
            wl_surface_commit(surface)
            wl_subsurface_set_desync(sub)
            videoPlacement = .onSubsurface(logical)
        }
        flushOrFail()
    }

    /// Unmaps the video subsurface with the toplevel's next commit (the caller commits the
    /// toplevel, then sets the subsurface desynchronized again).
    func unmapVideoSubsurface() {
        guard let video = videoSurface, let sub = videoSubsurface else { return }
        wl_subsurface_set_sync(sub)
        wl_surface_attach(video, nil, 0, 0)
        wl_surface_commit(video)
    }

    /// The toplevel's geometry for a buffer that covers the whole window: a viewport onto the
    /// configured size, else the integer buffer scale.
    func fillSurface(bufferWidth: Int, bufferHeight: Int) {
        if let viewport {
            wl_surface_set_buffer_scale(surface, 1)
            viewportState.set(viewport, source: nil, bufferWidth: bufferWidth, bufferHeight: bufferHeight,
                              destination: (layout.logicalWidth, layout.logicalHeight))
        } else {
            wl_surface_set_buffer_scale(surface, Int32(layout.scale))
        }
    }

    /// Black on the whole toplevel: a single-pixel buffer, else a 1×1 XRGB8888 wl_shm buffer,
    /// stretched by the viewport. Never released early: its one pixel never changes.
    private func attachBlack() {
        if blackBuffer == nil, let m = connection.singlePixelManager {
            blackBuffer = wp_single_pixel_buffer_manager_v1_create_u32_rgba_buffer(m, 0, 0, 0, UInt32.max)
        }
        var buffer = blackBuffer
        if buffer == nil {
            if blackPool == nil, let shm = connection.shm,
               let pool = try? ShmBufferPool(shm: shm, width: 1, height: 1, format: 1, count: 1, generation: 0) {
                memset(pool.pixels(0), 0, pool.stride)
                blackPool = pool
            }
            buffer = blackPool.map { $0.attach(0) }
        }
        guard let buffer, let viewport else { return }
        wl_surface_attach(surface, buffer, 0, 0)
        wl_surface_set_buffer_scale(surface, 1)
        viewportState.set(viewport, source: nil, bufferWidth: 1, bufferHeight: 1,
                          destination: (layout.logicalWidth, layout.logicalHeight))
        wl_surface_damage_buffer(surface, 0, 0, 1, 1)
    }

    // MARK: The CPU's place (no viewporter)

    /// Where the conversion draws a `width` × `height` picture in the window-sized buffer
    /// (`CPUFitPlacer`: `scaling`'s place, or 1:1 once the CPU scale went over its budget).
    func cpuPlace(width: Int, height: Int) -> PixelRect? {
        let r = cpuFit.place(width: width, height: height, bufferWidth: layout.bufferWidth, bufferHeight: layout.bufferHeight,
                             scaling: scaling, refreshIntervalNs: mode.refreshIntervalNs)
        if let r {
            fitState = cpuFit.placement
            // (the buffer's pixels → the panel's: they differ only at a fractional scale)
            let sx = Double(layout.pixelWidth) / Double(max(1, layout.bufferWidth))
            let sy = Double(layout.pixelHeight) / Double(max(1, layout.bufferHeight))
            tellSeat(PixelRect(x: Int(Double(r.x) * sx), y: Int(Double(r.y) * sy),
                               width: Int(Double(r.width) * sx), height: Int(Double(r.height) * sy)), width: width, height: height)
        }
        return r
    }

    /// Counts one CPU conversion of the current placement; one that puts it over budget is said
    /// once on stderr (1:1 from the next picture on).
    func judgeCPUFit(ns: UInt64) {
        if let line = cpuFit.record(ns: ns) { FileHandle.standardError.write(Data(line.utf8)) }
    }
}
