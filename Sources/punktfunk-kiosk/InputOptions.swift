import ArgumentParser
import Foundation
import Input
import Kiosk

/// The input options of the commands that run a live session, declared once.
struct InputOptions: ParsableArguments {
    @Option(help: "Input: devices (keyboards, mice and pads through evdev, grabbed while the kiosk runs; Ctrl+Alt+Shift+Q or Start+Select+L1+R1 opens the in-stream menu on the display, ends a headless stream) or none.")
    var input = "devices"
    @Option(help: "A file of SDL game-controller mapping lines for pads the kernel maps oddly (SDL_GAMECONTROLLERCONFIG is read too).")
    var padMappings: String?

    func validate() throws {
        if input != "devices" && input != "none" { throw ValidationError("--input must be devices or none") }
    }

    /// Fills the configuration's input field; the config's `input-grab` decides the grab.
    func apply(to configuration: inout RunnerConfiguration, config: KioskConfig) throws {
        guard input == "devices" else { configuration.input = nil; return }
        var options = InputService.Options()
        options.grab = config.inputGrab ?? true
        if let path = padMappings {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw failure("Cannot read \(path).") }
            options.mappings += SDLMapping.parse(text)
        }
        if let env = ProcessInfo.processInfo.environment["SDL_GAMECONTROLLERCONFIG"] { options.mappings += SDLMapping.parse(env) }
        configuration.input = options
    }
}
