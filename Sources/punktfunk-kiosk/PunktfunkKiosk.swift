import ArgumentParser

/// The kiosk client's executable: option parsing over the `Kiosk` application. With no
/// subcommand it starts the kiosk.
@main
struct PunktfunkKiosk: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "punktfunk-kiosk",
        abstract: "A boot-to-stream client for punktfunk hosts.",
        subcommands: [KioskCommand.self, DemoCommand.self, ConnectCommand.self, PairCommand.self, DiscoverCommand.self, WakeCommand.self, PresentCommand.self, ProbeCommand.self,
                      DecodeCommand.self, SelfTest.self, CheckCommand.self],
        defaultSubcommand: KioskCommand.self)
}
