/// Pairing ceremony and browser-plane auth messages (control-plane.md §6.2, §1.5).
///
/// Fixed-length values are checked on decode: SPAKE2 messages 33 bytes (side byte ‖ point),
/// key confirmations 32 bytes (HMAC-SHA256), auth nonce 32 bytes. The spec gives no absent-tag
/// default for these; this build requires them (`.missingField`), since a ceremony cannot go on
/// without them.
public enum PairingSizes {
    /// A SPAKE2 message: side byte ('A' 0x41 / 'B' 0x42) ‖ 32-byte compressed Edwards point.
    public static let spakeMessage = 33
    /// A key confirmation: HMAC-SHA256 output.
    public static let confirmation = 32
    /// AuthChallenge nonce.
    public static let nonce = 32
}

/// PairRequest (0x10, client → host, first frame of a pairing connection):
/// `{1 name ≤ 64 B, 2 spake_a 33 B, 3 device_key}`. All three tags are always written;
/// `deviceKey` is empty for certificate clients (SPKI DER on the browser plane).
public struct PairRequest: TaggedControlMessage {
    public static let messageType = ControlMessageType.pairRequest
    /// Bound on `name`, UTF-8 bytes.
    public static let nameMaxBytes = 64

    /// Tag 1: device label shown in the host's trust store. Longer than 64 bytes throws.
    public var name: String
    /// Tag 2: SPAKE2 side-A message. - Precondition for a decodable encoding: 33 bytes.
    public var spakeA: [UInt8]
    /// Tag 3.
    public var deviceKey: [UInt8]

    public init(name: String, spakeA: [UInt8], deviceKey: [UInt8] = []) {
        self.name = name
        self.spakeA = spakeA
        self.deviceKey = deviceKey
    }

    public func write(to w: inout FieldWriter) {
        w.string(1, name)
        w.bytes(2, spakeA)
        w.bytes(3, deviceKey)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        name = try f.text(1, maxBytes: Self.nameMaxBytes)
        spakeA = try f.requiredBytes(2, count: PairingSizes.spakeMessage)
        deviceKey = try f.bytes(3) ?? []
    }
}

/// PairChallenge (0x11, host → client): `{1 spake_b 33 B, 2 confirm 32 B}` — the host's SPAKE2
/// message and `host_confirm = HMAC(key, "punktfunk-pair-host" ‖ client_fp ‖ host_fp)`.
public struct PairChallenge: TaggedControlMessage {
    public static let messageType = ControlMessageType.pairChallenge

    /// Tag 1. - Precondition for a decodable encoding: 33 bytes.
    public var spakeB: [UInt8]
    /// Tag 2. - Precondition for a decodable encoding: 32 bytes.
    public var confirm: [UInt8]

    public init(spakeB: [UInt8], confirm: [UInt8]) {
        self.spakeB = spakeB
        self.confirm = confirm
    }

    public func write(to w: inout FieldWriter) {
        w.bytes(1, spakeB)
        w.bytes(2, confirm)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        spakeB = try f.requiredBytes(1, count: PairingSizes.spakeMessage)
        confirm = try f.requiredBytes(2, count: PairingSizes.confirmation)
    }
}

/// PairProof (0x12, client → host): `{1 confirm 32 B}` — `client_confirm`.
public struct PairProof: TaggedControlMessage {
    public static let messageType = ControlMessageType.pairProof

    /// Tag 1. - Precondition for a decodable encoding: 32 bytes.
    public var confirm: [UInt8]

    public init(confirm: [UInt8]) { self.confirm = confirm }

    public func write(to w: inout FieldWriter) { w.bytes(1, confirm) }

    public init(fields f: TaggedFields) throws(WireError) {
        confirm = try f.requiredBytes(1, count: PairingSizes.confirmation)
    }
}

/// PairResult (0x13, host → client): `{1 ok bool}` — verified and stored. Absent reads false.
public struct PairResult: TaggedControlMessage {
    public static let messageType = ControlMessageType.pairResult

    /// Tag 1: the proof verified and the device is stored as trusted.
    public var ok: Bool

    public init(ok: Bool) { self.ok = ok }

    public func write(to w: inout FieldWriter) { w.bool(1, ok) }

    public init(fields f: TaggedFields) throws(WireError) { ok = try f.bool(1) ?? false }
}

/// AuthChallenge (0x14, host → client, browser plane only): prove the paired device key.
///
/// Tag layout `{1 nonce 32 B}`: the spec (§1.5) names only the nonce; tag 1 is the layout of
/// upstream `v2/msg.rs` and fits the 256-byte registry bound.
public struct AuthChallenge: TaggedControlMessage {
    public static let messageType = ControlMessageType.authChallenge

    /// Tag 1. - Precondition for a decodable encoding: 32 bytes.
    public var nonce: [UInt8]

    public init(nonce: [UInt8]) { self.nonce = nonce }

    public func write(to w: inout FieldWriter) { w.bytes(1, nonce) }

    public init(fields f: TaggedFields) throws(WireError) {
        nonce = try f.requiredBytes(1, count: PairingSizes.nonce)
    }
}

/// AuthResponse (0x15, client → host, browser plane only): the device key and its signature
/// over `"punktfunk-device-auth-v1:" ‖ channel_binding[32] ‖ nonce[32]` (ECDSA P-256/SHA-256 DER).
///
/// Tag layout `{1 device_key, 2 signature}`: the spec (§1.5) names both values but no tags;
/// these are upstream `v2/msg.rs`'s, within the 1024-byte registry bound. Absent reads empty.
public struct AuthResponse: TaggedControlMessage {
    public static let messageType = ControlMessageType.authResponse

    /// Tag 1: SPKI DER of the device's P-256 key.
    public var deviceKey: [UInt8]
    /// Tag 2: DER ECDSA signature.
    public var signature: [UInt8]

    public init(deviceKey: [UInt8], signature: [UInt8]) {
        self.deviceKey = deviceKey
        self.signature = signature
    }

    public func write(to w: inout FieldWriter) {
        w.bytes(1, deviceKey)
        w.bytes(2, signature)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        deviceKey = try f.bytes(1) ?? []
        signature = try f.bytes(2) ?? []
    }
}
