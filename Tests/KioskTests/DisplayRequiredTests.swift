import Testing
import Screen
@testable import Kiosk

/// A display named with `--display kms|wayland` (or the config's `display`) that cannot open ends
/// the process with exit 2 instead of running headless — only `auto` may fall back (issue 29,
/// item 5). The open fails before anything else starts, so the runner returns at once.
@Suite struct DisplayRequiredTests {
    @Test func aDisplayAskedForByNameThatCannotOpenEndsWithExitTwo() throws {
        var opened = 0
        let choice = RunnerConfiguration.DisplayChoice.screen(reason: "as asked (--display wayland)", required: true) {
            () throws(ScreenError) -> RunnerConfiguration.OpenedScreen in
            opened += 1
            throw .unavailable("There is no Wayland compositor at /run/user/1000/wayland-9 (No such file or directory).")
        }
        let runner = try KioskRunner(configuration: RunnerConfiguration(display: choice, profile: .anonymous))
        #expect(runner.run(KioskMachine(policy: KioskPolicy(afterJob: .exitProcess))) == ExitStatus.noDisplay)
        #expect(opened == 1)
    }
}
