/// Why a pairing ceremony step failed (control-plane.md §6.1–§6.2).
///
/// None of these carry the PIN or any secret. A wrong PIN never shows up as its own case: SPAKE2
/// then simply yields a different key, which surfaces as `.confirmationMismatch` (§6.1).
public enum PairingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The PIN was not exactly four ASCII digits after trimming surrounding whitespace.
    case invalidPIN
    /// A certificate fingerprint was not 32 bytes (SHA-256 of the certificate DER).
    case invalidFingerprint(role: String, byteCount: Int)
    /// The peer's SPAKE2 message was not 33 bytes (side byte ‖ 32-byte point).
    case malformedMessage(byteCount: Int)
    /// The peer's SPAKE2 message carried the wrong side byte (ours, or neither 'A' nor 'B').
    case wrongSide(UInt8)
    /// The peer's point is not a canonical encoding of a point in the prime-order subgroup
    /// (not on the curve, non-canonical, small order or the identity).
    case invalidPoint
    /// The peer sent our own SPAKE2 message back to us.
    case reflectedMessage
    /// libsodium refused a scalar multiplication because its result (or input) was the identity
    /// or of small order: only a peer crafting its message from our password blinding can cause it.
    case degenerateExchange
    /// A key confirmation was not 32 bytes.
    case malformedConfirmation(byteCount: Int)
    /// The peer's key confirmation did not match: wrong PIN, or someone in the middle.
    case confirmationMismatch
    /// A ceremony method was called out of order or twice.
    case outOfOrder(String)
    /// `sodium_init()` failed, so no secret could be drawn.
    case sodiumUnavailable

    public var description: String {
        switch self {
        case .invalidPIN:
            return "The pairing PIN must be exactly four digits (0–9), for example 0042."
        case .invalidFingerprint(let role, let count):
            return "The \(role) fingerprint must be 32 bytes (SHA-256 of the certificate), not \(count)."
        case .malformedMessage(let count):
            return "The peer's SPAKE2 message is \(count) bytes; a side byte and a 32-byte point (33 bytes) were expected."
        case .wrongSide(let byte):
            return "The peer's SPAKE2 message claims side 0x\(String(byte, radix: 16)), not the opposite side of this party."
        case .invalidPoint:
            return "The peer's SPAKE2 point is not a valid prime-order Ed25519 point."
        case .reflectedMessage:
            return "The peer sent this party's own SPAKE2 message back."
        case .degenerateExchange:
            return "The SPAKE2 exchange produced a degenerate (identity or small-order) point; the peer's message is crafted."
        case .malformedConfirmation(let count):
            return "The key confirmation is \(count) bytes; 32 were expected."
        case .confirmationMismatch:
            return "The key confirmation does not match: the PIN is wrong or someone is in the middle."
        case .outOfOrder(let step):
            return "The pairing step \(step) was called out of order or more than once."
        case .sodiumUnavailable:
            return "The libsodium library failed to initialise, so pairing cannot draw its secret."
        }
    }
}
