import Foundation
@testable import PunktfunkWire

/// Shared helpers for the FEC tests: the golden-vector fixture, the vector shard pattern,
/// hex, and a seeded RNG so property tests are reproducible.
enum FECTestSupport {
    /// Tests/Fixtures/fec-vectors.txt — a verbatim copy of
    /// /work/shared/protocol/vectors/fec-vectors.txt (parity produced by the real
    /// reed-solomon-simd 3.1.0 crate; see data-plane.md §9.2 and vectors/README.md).
    static func fixture() throws -> String {
        try Fixtures.text("fec-vectors.txt")
    }

    /// The vector file's data pattern: `shard[i][b] = (i*31 + b*7) mod 256`.
    static func patternShards(k: Int, p: Int) -> [[UInt8]] {
        (0..<k).map { i in (0..<p).map { b in UInt8((i * 31 + b * 7) % 256) } }
    }

    static func hasKernel(_ name: String) -> Bool { LeopardFEC.availableKernels.contains(name) }
}

/// One golden case of fec-vectors.txt: encode `data` with (k, m) and compare parity shard
/// `index` (or its first `bytes.count` bytes, for the abbreviated k=200 line) with `bytes`.
struct FECVectorCase: CustomStringConvertible {
    var name: String
    var k: Int
    var m: Int
    var p: Int
    var data: [[UInt8]]
    var expected: [(index: Int, bytes: [UInt8])]
    var description: String { name }
}

enum FECVectorParser {
    /// Parses every case in the fixture (four line formats, see the file).
    static func parse(_ text: String) -> [FECVectorCase] {
        var cases: [FECVectorCase] = []
        var current: FECVectorCase?
        // e2e section: explicit data and parity per block.
        var blocks: [Int: (data: [Int: [UInt8]], parity: [Int: [UInt8]])] = [:]
        var inE2E = false, inExtra = false

        func flush() {
            if let c = current { cases.append(c) }
            current = nil
        }

        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("## ") {
                flush()
                inE2E = line.contains("e2e")
                inExtra = line.contains("extra")
                continue
            }
            let fields = line.split(separator: " ")
            if line.hasPrefix("k=") && line.contains("parity[0][..32]=") {
                // k=200 m=30 shard=1408 parity[0][..32]=… parity[29][..32]=… fnv-ish=…
                flush(); inE2E = false
                let kv = keyValues(fields)
                let k = Int(kv["k"]!)!, m = Int(kv["m"]!)!, p = Int(kv["shard"]!)!
                var expected: [(Int, [UInt8])] = []
                for (key, value) in kv where key.hasPrefix("parity[") {
                    let idx = Int(key.dropFirst(7).prefix { $0 != "]" })!
                    expected.append((idx, hex(value[...])))
                }
                cases.append(FECVectorCase(name: "k=\(k) m=\(m) P=\(p) (prefixes)", k: k, m: m, p: p,
                                           data: FECTestSupport.patternShards(k: k, p: p),
                                           expected: expected.sorted { $0.0 < $1.0 }))
            } else if line.hasPrefix("k=") {
                // k=… m=… shard_bytes=…
                flush()
                let kv = keyValues(fields)
                let k = Int(kv["k"]!)!, m = Int(kv["m"]!)!, p = Int(kv["shard_bytes"]!)!
                current = FECVectorCase(name: "k=\(k) m=\(m) P=\(p)", k: k, m: m, p: p,
                                        data: FECTestSupport.patternShards(k: k, p: p), expected: [])
            } else if line.hasPrefix("parity["), current != nil {
                // parity[j] = hex
                let idx = Int(line.dropFirst(7).prefix { $0 != "]" })!
                current!.expected.append((idx, hex(fields.last!)))
            } else if inE2E, line.hasPrefix("block") {
                // blockB data[i] = hex | blockB parity[j] = hex
                let b = Int(fields[0].dropFirst(5))!
                let isData = fields[1].hasPrefix("data")
                let idx = Int(fields[1].drop { $0 != "[" }.dropFirst().prefix { $0 != "]" })!
                var entry = blocks[b] ?? (data: [:], parity: [:])
                if isData { entry.data[idx] = hex(fields.last!) }
                else { entry.parity[idx] = hex(fields.last!) }
                blocks[b] = entry
            } else if inExtra, fields.count == 4, let k = Int(fields[0]), let m = Int(fields[1]), let p = Int(fields[2]) {
                // k m P parity0,parity1,…
                let parity = fields[3].split(separator: ",").map { hex($0) }
                cases.append(FECVectorCase(name: "k=\(k) m=\(m) P=\(p) (extra)", k: k, m: m, p: p,
                                           data: FECTestSupport.patternShards(k: k, p: p),
                                           expected: parity.enumerated().map { ($0.offset, $0.element) }))
            }
        }
        flush()
        for b in blocks.keys.sorted() {
            let entry = blocks[b]!
            let data = (0..<entry.data.count).map { entry.data[$0]! }
            cases.append(FECVectorCase(name: "e2e AU block \(b)", k: data.count, m: entry.parity.count,
                                       p: data[0].count, data: data,
                                       expected: entry.parity.keys.sorted().map { ($0, entry.parity[$0]!) }))
        }
        return cases
    }

    private static func keyValues(_ fields: [Substring]) -> [String: String] {
        var kv: [String: String] = [:]
        for f in fields {
            guard let eq = f.firstIndex(of: "=") else { continue }
            kv[String(f[..<eq])] = String(f[f.index(after: eq)...])
        }
        return kv
    }
}
