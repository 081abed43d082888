/// punktfunk/1 media nonce (data-plane.md §3.1), kept beside the v2 schedule so the legacy wire
/// can reuse `MediaCipher`'s AEADs when it arrives: `salt'[0..4] ‖ seq u64 BE`, where
/// `salt'[0] = (salt[0] & 0x7F) | dir << 7` and dir = 0 for packets the host seals, 1 for the client.
public enum LegacyMediaNonce {
    public static func nonce(salt: [UInt8], sealedByClient: Bool, seq: UInt64) -> [UInt8] {
        precondition(salt.count == 4, "the punktfunk/1 salt is 4 bytes")
        var w = WireWriter(capacity: 12)
        w.writeByte((salt[0] & 0x7F) | (sealedByClient ? 0x80 : 0))
        w.writeBytes(salt[1...])
        w.writeBE(seq)
        return w.bytes
    }
}
