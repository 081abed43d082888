import Foundation
import FFmpegOracle
import Testing

/// HEVC fixtures generated at test time with ffmpeg + libx265 (tiny: 192×108, a few frames),
/// together with ffmpeg's `trace_headers` dump of each. Generated once per test process.
struct Fixture: Sendable, CustomTestStringConvertible {
    var name: String
    /// x265 parameters on top of the base set.
    var x265: String
    var pixelFormat = "yuv420p"
    var frames = 8
    /// Extra lavfi filters after the test source (e.g. a fade, for weighted prediction).
    var filter = ""
    /// Picture sizes, encoded one after the other and concatenated (a mid-stream SPS change).
    var sizes = ["192x108"]
    var testDescription: String { name }

    /// The base shape is the host's: low-delay P, repeated headers, short GOP.
    static let base = "keyint=4:bframes=0:repeat-headers=1:log-level=none"

    /// Every fixture the oracle and robustness tests sweep.
    static let all: [Fixture] = [
        Fixture(name: "lowdelay-p", x265: base),
        Fixture(name: "main10-bt2020-pq", x265: base + ":info=0:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:range=full",
                pixelFormat: "yuv420p10le"),
        Fixture(name: "scaling-lists", x265: base + ":info=0:scaling-list=default:no-wpp=1"),
        Fixture(name: "two-slices", x265: base + ":info=0:slices=3:ctu=16"),
        Fixture(name: "no-sao-deblock-offsets", x265: base + ":info=0:no-sao=1:deblock=-2,1"),
        Fixture(name: "b-pyramid-weighted-fade", x265: "keyint=8:bframes=3:b-pyramid=1:weightb=1:ref=3:repeat-headers=1:info=0:log-level=none",
                frames: 10, filter: ",fade=in:0:10"),
        Fixture(name: "p-weighted-fade", x265: base + ":info=0:ref=2", filter: ",fade=out:0:8"),
        Fixture(name: "hrd-vbv", x265: base + ":info=0:vbv-bufsize=200:vbv-maxrate=200:hrd=1"),
        Fixture(name: "intra-refresh", x265: "keyint=8:bframes=0:intra-refresh=1:aud=1:repeat-headers=1:info=0:log-level=none"),
        Fixture(name: "temporal-sub-layers", x265: "keyint=8:bframes=3:b-pyramid=1:temporal-layers=1:repeat-headers=1:info=0:log-level=none"),
        Fixture(name: "rext-444-8bit", x265: base + ":info=0", pixelFormat: "yuv444p", frames: 4),
        Fixture(name: "rext-422-10bit", x265: base + ":info=0", pixelFormat: "yuv422p10le", frames: 4),
        Fixture(name: "monochrome", x265: base + ":info=0", pixelFormat: "gray", frames: 4),
        Fixture(name: "resolution-change", x265: base + ":info=0", frames: 4, sizes: ["192x108", "128x72"]),
        Fixture(name: "amp-pcm-lossless-cu", x265: base + ":info=0:amp=1:rect=1:cu-lossless=1:tskip=1"),
    ]

    /// A generated fixture: the Annex-B bytes and ffmpeg's trace.
    struct Generated: Sendable {
        var bytes: [UInt8]
        var trace: [HeaderTrace.Unit]
        /// Planner fixtures only: the presentation order ffmpeg's decoder produces, as decoding-order
        /// indices of the access units (see `FFmpeg.outputOrder`).
        var outputOrder: [Int] = []
    }

    private static let directory: URL = FileManager.default.temporaryDirectory
        .appendingPathComponent("hevc-fixtures-\(ProcessInfo.processInfo.processIdentifier)")

    /// All fixtures, generated on first use (serially; the machine has two shared cores).
    static let generated: [String: Result<Generated, FixtureError>] = {
        var out: [String: Result<Generated, FixtureError>] = [:]
        for f in all { out[f.name] = f.generate(in: directory.appendingPathComponent("all")) }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("all"))  // everything needed is in memory now
        return out
    }()

    struct FixtureError: Error, CustomStringConvertible { var description: String }

    func load() throws -> Generated {
        guard let r = Fixture.generated[name] else { throw FixtureError(description: "unknown fixture \(name)") }
        return try r.get()
    }

    /// Fixtures for the planner (output order, reference lists): reordering shapes.
    static let planner: [Fixture] = [
        Fixture(name: "lowdelay-p", x265: base),
        Fixture(name: "b-pyramid-reorder", x265: "keyint=16:min-keyint=16:scenecut=0:bframes=3:b-pyramid=1:ref=3:repeat-headers=1:info=0:log-level=none",
                frames: 24),
        Fixture(name: "open-gop-cra", x265: "keyint=8:min-keyint=8:scenecut=0:open-gop=1:bframes=3:repeat-headers=1:info=0:log-level=none",
                frames: 20),
        Fixture(name: "lowdelay-p-ref4", x265: "keyint=30:bframes=0:ref=4:repeat-headers=1:info=0:log-level=none", frames: 12),
        Fixture(name: "temporal-sub-layers", x265: "keyint=8:bframes=3:b-pyramid=1:temporal-layers=1:repeat-headers=1:info=0:log-level=none"),
        Fixture(name: "resolution-change", x265: base + ":info=0", frames: 4, sizes: ["192x108", "128x72"]),
        Fixture(name: "multi-slice-b", x265: "keyint=8:bframes=2:slices=3:ctu=16:repeat-headers=1:info=0:log-level=none"),
    ]

    /// The planner fixtures, generated on first use.
    static let generatedPlanner: [String: Result<Generated, FixtureError>] = {
        var out: [String: Result<Generated, FixtureError>] = [:]
        let dir = directory.appendingPathComponent("planner")
        for f in planner { out[f.name] = f.generate(in: dir, probeOutputOrder: true) }
        try? FileManager.default.removeItem(at: dir)
        return out
    }()

    func loadPlanner() throws -> Generated {
        guard let r = Fixture.generatedPlanner[name] else { throw FixtureError(description: "unknown planner fixture \(name)") }
        return try r.get()
    }

    private func generate(in dir: URL, probeOutputOrder: Bool = false) -> Result<Generated, FixtureError> {
        do {
            let (bytes, path) = try FFmpeg.encodeTestStream(name: name, in: dir, sizes: sizes, frames: frames,
                                                            pixelFormat: pixelFormat, x265: x265, filter: filter)
            let trace = try FFmpeg.traceHeaders(of: path)
            var g = Generated(bytes: bytes, trace: HeaderTrace.parse(trace))
            if probeOutputOrder { g.outputOrder = try FFmpeg.outputOrder(of: path) }
            return .success(g)
        } catch {
            return .failure(FixtureError(description: "\(name): \(error)"))
        }
    }
}
