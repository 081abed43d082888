import Screen
import Foundation
import Shell
import SystemClock

/// The shell on the runner's glass: whole screens between streams (`ShellScreen`'s canvas), the
/// panels over a stream (the in-stream menu, toasts), the mouse pointer and what it points at.
/// Runs on the runner's thread like the rest of the runner.
extension KioskRunner {
    /// The glyphs of the hint bar: the controller last used, else the keyboard's.
    var glyphs: GlyphSet { shellInput?.glyphs ?? .keyboard }

    /// A mouse over the shell: the pointer moves (and shows); the entry under it is focused; a
    /// click acts on it. While a stream has the input the host gets the mouse, not the shell.
    func pointer(_ event: PointerEvent) {
        guard let screen else { return }
        pointerAt = (event.x, event.y)
        guard let view = ShellSceneBuilder.view(for: machine.state, glyphs: glyphs) else { return }
        let renderer = shell.renderer(for: screen)
        guard let i = renderer.elementIndex(at: event.x, y: event.y, in: view.scene), let target = view.targets[i] else { return }
        feed(.navigate(.point(target)))
        if event.action == .clicked { feed(.navigate(.activate)) }
    }

    /// `view` with the mouse pointer on top, when it shows.
    func withPointer(_ view: ShellView, screen: any Screen) -> ShellView {
        guard let p = pointerAt, machine.state.power == .on else { return view }
        let at = shell.renderer(for: screen).designPoint(x: p.x, y: p.y)
        var v = view
        v.scene.elements.append(SceneElement(.pointer, frame: SceneRect(x: at.x, y: at.y, width: 26, height: 40)))
        v.targets.append(nil)
        return v
    }

    /// Draws the screen the state asks for when no stream is on glass (between streams, before
    /// the first, after the last). A stream's screens over the video are `updatePanel`'s.
    func refreshShell() {
        guard let screen, exitCode == nil else { return }
        let state = machine.state
        guard let view = ShellSceneBuilder.view(for: state, glyphs: glyphs), view.panel == nil else { return }
        shell.show(withPointer(view, screen: screen), name: Self.screenName(state), on: screen) {
            defer { nextFrameID += 1 }
            return nextFrameID
        }
    }

    /// The panel over the stream: the in-stream menu, else the resuming notice or a toast, else
    /// none (the stats overlay, when on, has the overlay back).
    func updatePanel() {
        guard let screen else { return }
        if let t = toast, MonotonicClock.nowNs() >= t.untilNs { toast = nil }
        let state = machine.state
        var view: ShellView?
        var name = "menu"
        switch state.phase {
        case .inStreamMenu:
            view = ShellSceneBuilder.view(for: state, glyphs: glyphs).map { withPointer($0, screen: screen) }
        case .streaming(let s):
            name = "toast"
            if let attempt = s.resuming {
                view = ShellSceneBuilder.toast("The connection was lost. Reconnecting (attempt \(attempt))…")
            } else if let t = toast {
                view = ShellSceneBuilder.toast(t.text)
            }
        default:
            break
        }
        let image = shell.overlay(for: view, mode: screen.mode)
        guard image?.generation != panelGeneration else { return }
        if image != nil, overlay != nil { overlay = nil }   // the stats overlay waits under the panel
        panelGeneration = image?.generation
        screen.setPanel(image)
        panelTrace = (image == nil ? "streaming" : name, image?.generation)
    }

    /// The trace's name for the screen `state` shows.
    static func screenName(_ state: KioskState) -> String {
        if state.power == .standby {
            if case .leaving = state.phase {} else { return "standby" }
        }
        return phaseName(state)
    }

    private static func phaseName(_ state: KioskState) -> String {
        switch state.phase {
        case .starting: "starting"
        case .choosingHost:
            switch state.shell.top {
            case .home: "home"
            case .host: "host"
            case .pin: "pin"
            case .addHost: "addHost"
            case .settings: "settings"
            case .info: "info"
            case .confirm: "confirm"
            case .waking: "waking"
            case .speedTest: "speedTest"
            }
        case .pairing: "pairing"
        case .connecting: "connecting"
        case .streaming: "streaming"
        case .inStreamMenu: "menu"
        case .error: "error"
        case .leaving: "leaving"
        }
    }
}
