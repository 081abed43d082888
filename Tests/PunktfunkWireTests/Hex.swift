import Foundation

/// Test helpers shared by the suites: hex, fixtures and a seeded generator.
enum Hex {
    static func bytes(_ s: String) -> [UInt8] {
        let clean = s.filter { $0.isHexDigit }
        precondition(clean.count % 2 == 0, "odd hex length")
        var out: [UInt8] = []
        out.reserveCapacity(clean.count / 2)
        var it = clean.makeIterator()
        while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
        return out
    }

    static func string(_ b: some Sequence<UInt8>) -> String {
        b.map { String(format: "%02x", $0) }.joined()
    }
}

enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }
}

typealias SeededRNG = SplitMix64
