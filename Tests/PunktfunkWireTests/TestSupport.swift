import Foundation
@testable import PunktfunkWire

// Helpers shared by every suite: hex, fixtures, and random values from the seeded
// `SplitMix64` (PunktfunkWire's), so every property test replays the same cases.

/// Bytes from hex text; anything that is not a hex digit (spaces, `|`, `0x`-free separators) is ignored.
func hex<S: StringProtocol>(_ s: S) -> [UInt8] {
    let digits = Array(s.filter(\.isHexDigit))
    precondition(digits.count % 2 == 0, "odd hex length")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// Lowercase hex of bytes.
func hexString(_ b: some Sequence<UInt8>) -> String {
    b.map { String(format: "%02x", $0) }.joined()
}

/// Files under Tests/Fixtures (copies of shared/protocol/vectors, each citing its source).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }
}

extension SplitMix64 {
    mutating func int<T: FixedWidthInteger>(_: T.Type = T.self) -> T { T(truncatingIfNeeded: next()) }
    mutating func int(in r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &self) }
    mutating func bool() -> Bool { next() & 1 == 1 }
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in int(UInt8.self) } }
    mutating func bytes(_ count: ClosedRange<Int>) -> [UInt8] { bytes(int(in: count)) }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(in: 0...(xs.count - 1))] }
    mutating func maybe<T>(_ make: (inout SplitMix64) -> T) -> T? { bool() ? make(&self) : nil }
}
