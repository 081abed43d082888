import Foundation
import FFmpegOracle
import HEVC
import Testing

/// x265 streams for the VA-API rung tests, each with ffmpeg's trace_headers dump (the oracle for
/// every recorded parameter buffer) and ffmpeg's output order. Generated once per process.
struct VAFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var x265: String
    var pixelFormat = "yuv420p"
    var frames = 8
    var filter = ""
    var sizes = ["192x108"]
    var testDescription: String { name }

    static let base = "keyint=4:bframes=0:repeat-headers=1:info=0:log-level=none"

    static let all: [VAFixture] = [
        VAFixture(name: "lowdelay-p", x265: base),
        VAFixture(name: "lowdelay-40", x265: base, frames: 40),
        VAFixture(name: "main10", x265: base, pixelFormat: "yuv420p10le"),
        VAFixture(name: "scaling-lists", x265: base + ":scaling-list=default"),
        VAFixture(name: "three-slices", x265: base + ":slices=3:ctu=16"),
        VAFixture(name: "wpp-entry-points", x265: base + ":wpp=1:ctu=16"),
        VAFixture(name: "b-pyramid-weighted", x265: "keyint=8:bframes=3:b-pyramid=1:weightb=1:ref=3:repeat-headers=1:info=0:log-level=none",
                  frames: 10, filter: ",fade=in:0:10"),
        VAFixture(name: "p-weighted-ref2", x265: base + ":ref=2", filter: ",fade=out:0:8"),
        VAFixture(name: "resolution-change", x265: base, frames: 4, sizes: ["192x108", "128x72"]),
        VAFixture(name: "no-sao-deblock-offsets", x265: base + ":no-sao=1:deblock=-2,1"),
    ]

    struct Generated: Sendable {
        var bytes: [UInt8]
        var trace: [HeaderTrace.Unit]
        /// The NAL units of the file (escaped, no start codes), aligned with `trace`.
        var nalUnits: [[UInt8]]
        /// Output order as decoding-order indices of the access units (`FFmpeg.outputOrder`).
        var outputOrder: [Int]
    }

    struct FixtureError: Error, CustomStringConvertible { var description: String }

    private static let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("va-fixtures-\(ProcessInfo.processInfo.processIdentifier)")

    static let generated: [String: Result<Generated, FixtureError>] = {
        var out: [String: Result<Generated, FixtureError>] = [:]
        for f in all { out[f.name] = f.generate() }
        try? FileManager.default.removeItem(at: directory)
        return out
    }()

    func load() throws -> Generated {
        guard let r = VAFixture.generated[name] else { throw FixtureError(description: "unknown fixture \(name)") }
        return try r.get()
    }

    private func generate() -> Result<Generated, FixtureError> {
        let dir = VAFixture.directory
        do {
            let (bytes, path) = try FFmpeg.encodeTestStream(name: name, in: dir, sizes: sizes, frames: frames,
                                                            pixelFormat: pixelFormat, x265: x265, filter: filter)
            let trace = try FFmpeg.traceHeaders(of: path)
            let order = try FFmpeg.outputOrder(of: path)
            return .success(Generated(bytes: bytes, trace: HeaderTrace.parse(trace),
                                      nalUnits: AnnexB.nalUnits(in: bytes), outputOrder: order))
        } catch {
            return .failure(FixtureError(description: "\(name): \(error)"))
        }
    }
}
