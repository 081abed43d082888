import Screen
import Foundation
import Glibc
import Shell

/// The shell on glass: draws `ShellView`s into the screen's canvas (whole screens, between
/// streams) and builds the overlay images of the panels over a stream (the in-stream menu, toasts).
///
/// Canvas rule: at most one canvas commit in flight; a view that arrives meanwhile waits and the
/// newest one goes out when the flip completes. Each canvas buffer keeps the scene last drawn into
/// it (per canvas generation), so a redraw repaints only what changed since that buffer's own
/// drawing (`ShellRenderer` damage), whatever the buffers' order of use.
///
/// - Precondition: used only on the runner's (presenting) thread.
final class ShellScreen {
    /// One JSON line per canvas frame that reached glass (`--shell-trace`).
    private let trace: Bool
    private var renderer: ShellRenderer?
    /// What each canvas buffer holds: (generation, index) → scene.
    private var drawn: [BufferName: ShellScene] = [:]
    /// The view committed last, and the frame id showing it (released when replaced).
    private(set) var shown: ShellView?
    private var shownID: UInt64?
    /// The screen name of the commit in flight (traced when its flip completes).
    private var inFlight: String?
    private var flips = 0
    /// Overlay images get increasing generations (equal generation = equal pixels).
    private var overlayGeneration: UInt64 = 1 << 40
    private var overlayView: ShellView?
    private var overlayImage: OverlayImage?
    /// The oldest input not yet answered on glass (CLOCK_MONOTONIC ns), and the one the commit in
    /// flight answers.
    private var pendingInputNs: UInt64?
    private var inFlightInputNs: UInt64?
    /// Input→glass latencies of this run, ns (from the input thread's post to the flip that
    /// showed the screen it led to).
    private(set) var inputToGlassNs: [UInt64] = []

    private struct BufferName: Hashable { var generation: Int, index: Int }

    init(trace: Bool) {
        self.trace = trace
    }

    /// The renderer for `screen`'s mode (the same one while the mode stays).
    func renderer(for screen: any Screen) -> ShellRenderer {
        let mode = screen.mode
        if let r = renderer, r.width == mode.width, r.height == mode.height { return r }
        let r = ShellRenderer(width: mode.width, height: mode.height)
        renderer = r
        return r
    }

    /// Puts `view` (a whole screen) on glass unless it is already there or a flip is pending
    /// (then the caller asks again after `readFlips`). `name` is the screen's name for the trace.
    /// - Returns: false when nothing could be committed now.
    @discardableResult
    func show(_ view: ShellView, name: String, on screen: any Screen, id: () -> UInt64) -> Bool {
        guard screen.canCommitCanvas else { return false }
        if view == shown, screen.showsCanvas {
            pendingInputNs = nil   // the input changed nothing on the screen
            return true
        }
        let frame = id()
        let buffer: ScreenCanvas
        do {
            guard let b = try screen.canvas(id: frame) else { return false }
            buffer = b
        } catch {
            FileHandle.standardError.write(Data("punktfunk-kiosk: the shell cannot be drawn (\(error))\n".utf8))
            return false
        }
        let key = BufferName(generation: buffer.generation, index: buffer.index)
        drawn = drawn.filter { $0.key.generation == buffer.generation }
        renderer(for: screen).draw(view.scene, over: drawn[key], into: buffer.pixels, stride: buffer.pitch)
        drawn[key] = view.scene
        do {
            try screen.commitCanvas(id: frame, damage: nil)
        } catch {
            screen.release(frame: frame)
            drawn[key] = nil
            FileHandle.standardError.write(Data("punktfunk-kiosk: the shell's frame was refused (\(error))\n".utf8))
            return false
        }
        if let old = shownID { screen.release(frame: old) }
        shownID = frame
        shown = view
        inFlight = name
        inFlightInputNs = pendingInputNs
        pendingInputNs = nil
        return true
    }

    /// A person's input arrived at `ns`: the next screen put on glass answers it.
    func noteInput(atNs ns: UInt64) {
        if pendingInputNs == nil { pendingInputNs = ns }
    }

    /// The input noted last is answered elsewhere (a panel over the stream): not counted.
    func dropInput() { pendingInputNs = nil }

    /// Input→glass latency: p50 and max in ms over this run, and the count (nil: none measured).
    var inputToGlassSummary: (p50Ms: Double, maxMs: Double, count: Int)? {
        guard !inputToGlassNs.isEmpty else { return nil }
        let sorted = inputToGlassNs.sorted()
        return (Double(sorted[sorted.count / 2]) / 1e6, Double(sorted[sorted.count - 1]) / 1e6, sorted.count)
    }

    /// The canvas commit in flight reached glass at `glassNs` (nil: nothing new): traces the frame.
    func canvasShown(_ glassNs: UInt64?) {
        guard let flipNs = glassNs, let name = inFlight else { return }
        inFlight = nil
        flips += 1
        var latency = ""
        if let input = inFlightInputNs, flipNs >= input {
            inputToGlassNs.append(flipNs - input)
            latency = ",\"input_to_glass_ms\":\((Double(flipNs - input) / 1e4).rounded() / 100)"
        }
        inFlightInputNs = nil
        note(name, extra: latency)
    }

    /// A video stream takes the display: the canvas frame goes back once the stream's first flip
    /// replaced it; what the canvas buffers held is forgotten when they are remade.
    func yield(to screen: any Screen) {
        if let id = shownID { screen.release(frame: id) }
        (shownID, shown, inFlight, inFlightInputNs, pendingInputNs) = (nil, nil, nil, nil, nil)
        (overlayView, overlayImage) = (nil, nil)
    }

    /// The display was given away and taken back (a VT switch): the next `show` commits again.
    func invalidate() { shown = nil }

    /// Says that `name` is on glass (a screen over the stream: "menu", "streaming").
    func note(_ name: String, extra: String = "") {
        guard trace else { return }
        FileHandle.standardOutput.write(Data("{\"shell\":\"\(name)\",\"flip\":\(flips)\(extra)}\n".utf8))
    }

    /// The overlay image for a panel view over the stream (nil: none), made again only when the
    /// view changed.
    func overlay(for view: ShellView?, mode: ScreenMode) -> OverlayImage? {
        guard view != overlayView else { return overlayImage }
        overlayView = view
        guard let view, let panel = view.panel else {
            overlayImage = nil
            return nil
        }
        let (rect, pixels) = PanelRenderer.draw(view.scene, panel: panel, modeWidth: mode.width, modeHeight: mode.height)
        overlayGeneration += 1
        overlayImage = rect.isEmpty ? nil : OverlayImage(width: rect.width, height: rect.height, x: rect.x, y: rect.y,
                                                         pixels: pixels, generation: overlayGeneration)
        return overlayImage
    }
}
