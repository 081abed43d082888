import Foundation
import Kiosk
import SelfCheck
import SelfCheckDecode
import VideoDecode

/// `punktfunk-kiosk check` as a whole: each section's observations gathered from this box
/// (`CheckGather`, `DecodeCheck`, `CheckDisplayRun` with `takeScreen`), judged by `SelfCheck`, in
/// the report's order.
public enum CheckRun {
    /// - Parameters:
    ///   - takeScreen: take the screen for TEST_ONLY plane checks and a flip run of `seconds`.
    ///   - seconds: the flip run's and the host browse's length.
    ///   - card: the DRM card to check (nil: the one the kiosk would pick).
    ///   - config: the profile's config; `directory`: where it lives (nil: no profile directory).
    public static func report(takeScreen: Bool, seconds: Double, card: String?, config: KioskConfig, directory: URL?) -> Report {
        let sync = config.decodeSync.flatMap(DecodeSyncSetting.init(rawValue:)) ?? .auto
        let decode = DecodeCheck.observe(decodeSync: sync)
        var displayObservation = CheckGather.display()
        if let card {
            let listed = displayObservation.cards.map(\.path)
            displayObservation.cards.removeAll { $0.path != card }
            if displayObservation.cards.isEmpty {
                displayObservation.cards = [.init(path: card, openError: "not a DRM card of this box (cards: \(listed.isEmpty ? "none" : listed.joined(separator: ", ")))")]
            }
        }
        (displayObservation.vaExports, displayObservation.vaUnavailable) = CheckGather.vaExports(decode)
        if takeScreen { CheckDisplayRun.run(into: &displayObservation, seconds: seconds) }
        let connector = DisplayJudge.chosenConnector(displayObservation.cards)
        // Wi-Fi events are heard from here through the host browse.
        let wifi = CheckGather.WiFiListen()
        let network = NetworkJudge.judge(CheckGather.network(seconds: seconds))
        let sections = [
            DecodeJudge.judge(decode),
            DisplayJudge.judge(displayObservation),
            SoundJudge.judge(CheckGather.sound(card: connector?.0.path, connector: connector?.1.name, config: config)),
            InputJudge.judge(CheckGather.input()),
            network,
            WiFiJudge.judge(wifi.finish(directory: directory)),
            BoxJudge.judge(CheckGather.box(directory: directory)),
            HelloReport.section(HelloReport.plan(config: config, card: card)),
        ]
        return Report(program: "punktfunk-kiosk", sections: sections)
    }
}
