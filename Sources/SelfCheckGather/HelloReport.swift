import Display
import Foundation
import Kiosk
import PunktfunkSession
import PunktfunkWire
import SelfCheck
import VideoDecode

/// The hello this box would send a host now, for `probe` and `check`: the config's settings, the
/// decoder `auto` would use, the sink the display backend would show on (read without taking it),
/// the sound device the kiosk would choose. The same `HelloPlan` a session builds.
public enum HelloReport {
    public static func plan(config: KioskConfig, card: String? = nil) -> HelloPlan {
        let decoder = BoxAbilities.decoder(rungs: DecoderChoice(config.decoder ?? "auto")?.rungs ?? DecoderRungKind.automatic)
        let panel: BoxAbilities.Panel
        let backend = DisplayBackend.decide(config.display ?? .auto, environment: ProcessInfo.processInfo.environment,
                                            socketExists: DisplayBackend.isSocket(_:))
        var connector: (card: String, name: String)?
        var pointer: BoxAbilities.Fact<Bool>
        if backend.backend == .wayland {
            panel = .sdr(why: "under a compositor the kiosk binds no colour-management protocol")
            pointer = BoxAbilities.Fact(true, "the compositor draws it as the seat's cursor (wl_pointer.set_cursor) when it offers a seat with wl_shm (the display section names wl_seat); the session's hello says for sure")
        } else if backend.backend == .x11 {
            panel = .sdr(why: "an X11 window cannot signal HDR to the display")
            pointer = BoxAbilities.Fact(true, "the X server draws it as the window's cursor when it offers RENDER ≥ 0.5 (ARGB cursors) and XInput 2.2; the session's hello says for sure")
        } else {
            let cursor = KMSProbe.sinkPointer(card: card)
            pointer = BoxAbilities.Fact(cursor.draws, cursor.draws ? "the screen draws it over the stream (\(cursor.why))"
                                                                   : "the screen cannot draw it (\(cursor.why)): the host draws it into the pictures")
            let sink = KMSProbe.sinkHDR(card: card)
            if let c = sink.card, let n = sink.connector { connector = (c, n) }
            switch sink.capability {
            case .hdr10(let m): panel = .hdr10(HDRMetadata(panel: m), why: "\(sink.connector ?? "the connector"): the TV's EDID lists PQ and the connector takes HDR_OUTPUT_METADATA")
            case .none(let reason): panel = .sdr(why: reason)
            }
        }
        let audio = SessionAudio.choose(explicit: config.audioDevice, drmNode: connector?.card, connector: connector?.name)
        let facts = BoxAbilities(main10: decoder.main10, multiSlice: decoder.multiSlice, panel: panel,
                                 soundChannels: BoxAbilities.soundChannels(device: audio.device),
                                 aesInHardware: BoxAbilities.aesInHardware(), hostName: BoxAbilities.hostName(),
                                 drawsPointer: pointer)
        return HelloPlan(base: ClientSession.defaultHello, facts: facts, settings: config.helloSettings)
    }

    /// The check's section: one informational finding per decision.
    public static func section(_ plan: HelloPlan) -> Section {
        Section(.hello, plan.decisions.map { d in
            Finding(d.title, .ok, "\(d.value) — \(d.why)", informational: true)
        })
    }
}
