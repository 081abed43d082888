import ArgumentParser
import Display
import Foundation
import VideoDecode

/// `punktfunk-kiosk probe`: prints one JSON object describing what this box offers for streaming
/// — `"kms"`: every DRM card's connectors, modes, CRTCs and planes with formats and modifiers;
/// `"vaapi"`: the render nodes, VA drivers and HEVC profiles (`VAAPIProbe`) — so a user can paste
/// it into a bug report. Read-only; works beside a running compositor.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Print the display (KMS planes, formats, modifiers) and VA-API decode capabilities as JSON.")

    func run() throws {
        let kms = KMSProbe.describeAll()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let vaapi = (try? encoder.encode(VAAPIProbe.report())).map { String(decoding: $0, as: UTF8.self) }
            ?? "{\"error\":\"VA-API report could not be encoded\"}"
        print("{\"kms\":[\(kms.joined(separator: ","))],\"vaapi\":\(vaapi)}")
    }
}
