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
    @Option(help: "HDMI-CEC (the TV's remote and power): on or off (config: cec, default on).")
    var cec: String?
    @Option(help: "The HDMI-CEC adapter to use, e.g. /dev/cec1 (config: cec-device; default: the only one).")
    var cecDevice: String?

    /// The CEC options from the config and the command line (nil: CEC off).
    func cecOptions(config: KioskConfig) -> CECOptions? {
        let on = cec.map { $0 == "on" } ?? config.cec ?? true
        guard on else { return nil }
        var o = CECOptions(device: cecDevice ?? config.cecDevice, name: config.cecName ?? "punktfunk")
        o.wakeTV = config.cecTVOn ?? true
        o.standbyTV = config.cecTVOff ?? true
        return o
    }

    func validate() throws {
        if input != "devices" && input != "none" { throw ValidationError("--input must be devices or none") }
        if let cec, cec != "on" && cec != "off" { throw ValidationError("--cec must be on or off") }
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
        options.cec = cecOptions(config: config)
        configuration.input = options
    }
}
