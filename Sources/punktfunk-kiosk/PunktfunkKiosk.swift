import ArgumentParser

/// The kiosk client. Until the session layer lands, `selftest` is its main job.
@main
struct PunktfunkKiosk: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "punktfunk-kiosk",
        abstract: "A boot-to-stream client for punktfunk hosts.",
        subcommands: [SelfTest.self, DecodeCommand.self, ConnectCommand.self, PairCommand.self, PresentCommand.self, ProbeCommand.self],
        defaultSubcommand: SelfTest.self)
}
