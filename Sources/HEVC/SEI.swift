/// sei_rbsp(), H.265 7.3.2.4 / 7.3.5: the message framing, with the recovery point message
/// (D.2.8) decoded and every other payload skipped by its size.
public struct SEIMessages: Sendable, Equatable {
    /// recovery_point(), D.2.8.
    public struct RecoveryPoint: Sendable, Equatable {
        public var recoveryPocCnt: Int32
        public var exactMatchFlag: Bool
        public var brokenLinkFlag: Bool
    }

    /// payloadType of every message, in order.
    public var payloadTypes: [UInt32] = []
    /// The first recovery point message, if any.
    public var recoveryPoint: RecoveryPoint? = nil

    public init() {}

    /// Reads a prefix or suffix SEI NAL unit RBSP (header included).
    /// - Parameter maxPicOrderCntLsb: MaxPicOrderCntLsb of the active SPS, which bounds
    ///   recovery_poc_cnt (D.3.8); nil allows the widest range (2^16).
    public static func read(_ r: inout BitReader, maxPicOrderCntLsb: Int?) throws(HEVCError) -> SEIMessages {
        var sei = SEIMessages()
        let header = try NALUnitHeader.read(&r)
        guard header.nalUnitType == 39 || header.nalUnitType == 40 else {
            throw .wrongNALUnitType(expected: "PREFIX_SEI_NUT (39) or SUFFIX_SEI_NUT (40)", found: header.nalUnitType)
        }
        repeat {
            let payloadType = try readVariableLength(&r, last: "last_payload_type_byte")
            let payloadSize = try readVariableLength(&r, last: "last_payload_size_byte")
            let bits = Int(payloadSize) * 8
            guard bits <= r.bitsRemaining else {
                throw .truncated(element: "sei_payload(\(payloadType))", bitPosition: r.bitPosition,
                                 bitsNeeded: bits, bitsAvailable: r.bitsRemaining)
            }
            let end = r.bitPosition + bits
            sei.payloadTypes.append(payloadType)
            if payloadType == 6 && header.nalUnitType == 39 && sei.recoveryPoint == nil {
                let half = Int32((maxPicOrderCntLsb ?? 1 << 16) / 2)
                let cnt = try r.readSE("recovery_poc_cnt", in: -half...(half - 1))
                let exact = try r.readFlag("exact_match_flag")
                let broken = try r.readFlag("broken_link_flag")
                sei.recoveryPoint = RecoveryPoint(recoveryPocCnt: cnt, exactMatchFlag: exact, brokenLinkFlag: broken)
                guard r.bitPosition <= end else {
                    throw .inconsistent(element: "recovery_point", reason: "longer than payloadSize \(payloadSize)")
                }
            }
            try r.skipBits(end - r.bitPosition, "sei_payload")
        } while r.moreRBSPData
        return sei
    }

    /// payloadType / payloadSize (7.3.5): 0xFF bytes (ff_byte) each add 255, then the last byte.
    private static func readVariableLength(_ r: inout BitReader, last: String) throws(HEVCError) -> UInt32 {
        var value: UInt32 = 0
        while r.peekBits(8) == 0xFF {
            _ = try r.readBits(8, "ff_byte")
            value += 255
            guard value < 1 << 24 else { throw .outOfRange(element: last, value: Int64(value), allowed: 0...(1 << 24)) }
        }
        return value + (try r.readBits(8, last))
    }
}
