import Shell
import SystemClock

/// `punktfunk-bench shell`: the couch shell's renderer into memory at 1080p (and 2160p) — a full
/// redraw of the home screen (the baseline) and a focus move between two host cards (a partial
/// redraw of the two cards' rectangles), ms per frame and the move's share of a full redraw.
/// Target: a focus move within one 60 Hz refresh (16.7 ms).
func runShellBench(quick: Bool) -> [String] {
    var lines = ["shell renderer (cairo + pango into XRGB8888 memory; home: heading, 4 host cards, 4 buttons, hint bar)"]
    lines.append(pad("mode", 12) + pad("full redraw ms", 16) + pad("focus move ms", 15) + pad("worst move ms", 15)
                 + pad("move/full", 11) + "moved px")
    let frames = quick ? 20 : 120
    for (w, h) in [(1920, 1080), (3840, 2160)] {
        let renderer = ShellRenderer(width: w, height: h)
        let stride = w * 4
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: stride * h, alignment: 64)
        defer { buffer.deallocate() }
        let scenes = [homeScene(focus: 0), homeScene(focus: 1)]
        // Warm-up: fonts, glyph caches.
        renderer.draw(scenes[0], over: nil, into: buffer, stride: stride)
        var t0 = MonotonicClock.nowNs()
        for i in 0..<frames { renderer.draw(scenes[i & 1], over: nil, into: buffer, stride: stride) }
        let fullMs = Double(MonotonicClock.nowNs() - t0) / Double(frames) / 1e6
        renderer.draw(scenes[0], over: nil, into: buffer, stride: stride)
        var worst: UInt64 = 0
        var damaged = 0
        t0 = MonotonicClock.nowNs()
        for i in 0..<frames {
            let s = MonotonicClock.nowNs()
            let rects = renderer.draw(scenes[(i + 1) & 1], over: scenes[i & 1], into: buffer, stride: stride)
            worst = max(worst, MonotonicClock.nowNs() - s)
            damaged = rects.reduce(0) { $0 + $1.width * $1.height }
        }
        let moveMs = Double(MonotonicClock.nowNs() - t0) / Double(frames) / 1e6
        lines.append(pad("\(w)x\(h)", 12) + pad(fixed(fullMs, 2), 16) + pad(fixed(moveMs, 2), 15)
                     + pad(fixed(Double(worst) / 1e6, 2), 15) + pad(fixed(moveMs / fullMs, 2), 11) + "\(damaged)")
    }
    return lines
}

/// The home screen as the kiosk draws it: four host cards, the action row, the hint bar.
private func homeScene(focus: Int) -> ShellScene {
    var e = [SceneElement(.heading, frame: ShellLayout.headingFrame, title: "Hosts")]
    let names = ["Living room", "Office", "Attic", "Studio"]
    let status: [HostStatus] = [.paired, .needsPairing, .asleep, .online]
    for (i, f) in ShellLayout.cardRow(count: 4, top: ShellLayout.contentTop + 40).enumerated() {
        e.append(SceneElement(.card(status[i]), frame: f, title: names[i], focused: i == focus))
    }
    for (label, f) in zip(["Add host", "Settings", "Power off", "Restart"], ShellLayout.cardRow(count: 4, top: 660, width: 380, height: 96)) {
        e.append(SceneElement(.button, frame: f, title: label))
    }
    e.append(SceneElement(.hints([Hint(.confirm, "Select"), Hint(.menu, "Menu")], .xbox), frame: ShellLayout.hintFrame))
    return ShellScene(elements: e)
}
