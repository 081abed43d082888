/// The stateful front of the planner: takes NAL units (escaped, without start codes), keeps the
/// parameter sets by id and parses slice segment headers against them.
///
/// Every entry point takes plain bytes and never traps: malformed input is a thrown `HEVCError`
/// (or, for `parseAnnexB`, a failed entry in the result), and the parser state is only updated
/// by units that parsed completely.
public struct HEVCParser: Sendable {
    /// One parsed NAL unit.
    public struct ParsedNALUnit: Sendable {
        public enum Payload: Sendable {
            case vps(VideoParameterSet)
            case sps(SequenceParameterSet)
            case pps(PictureParameterSet)
            case slice(SliceSegmentHeader)
            case sei(SEIMessages)
            /// A NAL unit the planner does not parse beyond its header (AUD, EOS, filler, …).
            case other
        }
        public var header: NALUnitHeader
        public var payload: Payload
        /// The RBSP (header included) and where its emulation prevention bytes were. For slice
        /// segments possibly only a prefix covering the header (`rbsp.isPrefix`).
        public var rbsp: RBSP
        /// Every syntax element read, in order, when the parser traces; else empty.
        public var syntaxElements: [SyntaxElement]
    }

    public var parameterSets = ParameterSets()
    /// The last independent slice segment header, for dependent slice segments (7.4.7.1).
    public private(set) var lastIndependentSlice: SliceSegmentHeader?
    /// The most recently received SPS (bounds SEI fields that depend on the active SPS before
    /// the slice that activates it arrives).
    public private(set) var lastSPS: SequenceParameterSet?
    /// Record `syntaxElements` for every unit (debugging and the trace_headers oracle).
    public var tracing: Bool

    public init(tracing: Bool = false) {
        self.tracing = tracing
    }

    /// Parses one NAL unit (escaped bytes, no start code).
    /// - Throws: `HEVCError`; the state is unchanged when it throws.
    public mutating func parseNALUnit(_ nal: [UInt8]) throws(HEVCError) -> ParsedNALUnit {
        let header = try NALUnitHeader(nal)
        if header.isVCL {
            // Unescape only the first bytes of a slice: the header almost always fits; retry
            // with the whole unit only when it did not.
            let prefix = RBSP(escaped: nal, limit: Self.sliceHeaderPrefixBytes)
            if prefix.isPrefix {
                do throws(HEVCError) { return try parse(header, prefix) } catch {
                    guard case .truncated = error else { throw error }
                }
            }
        }
        return try parse(header, RBSP(escaped: nal))
    }

    /// RBSP bytes unescaped up front for a slice segment NAL unit.
    static let sliceHeaderPrefixBytes = 1024

    private mutating func parse(_ header: NALUnitHeader, _ rbsp: RBSP) throws(HEVCError) -> ParsedNALUnit {
        var r = BitReader(rbsp.bytes, tracing: tracing)
        let payload: ParsedNALUnit.Payload
        switch header.nalUnitType {
        case 32:
            let vps = try VideoParameterSet.read(&r)
            parameterSets.vps[vps.vpsVideoParameterSetId] = vps
            payload = .vps(vps)
        case 33:
            let vpsId = rbsp.bytes.count > 2 ? rbsp.bytes[2] >> 4 : 0
            let sps = try SequenceParameterSet.read(&r, vpsMaxSubLayersMinus1: parameterSets.vps[vpsId]?.vpsMaxSubLayersMinus1)
            let replaced = parameterSets.sps[sps.spsSeqParameterSetId]
            parameterSets.sps[sps.spsSeqParameterSetId] = sps
            lastSPS = sps
            if let replaced, replaced != sps { reparsePictureParameterSets(of: sps) }
            payload = .sps(sps)
        case 34:
            let ids = try PictureParameterSet.peekSequenceParameterSetId(rbsp.bytes)
            guard let sps = parameterSets.sps[ids.sps] else { throw .missingParameterSet(kind: .sps, id: Int(ids.sps)) }
            let pps = try PictureParameterSet.read(&r, sps: sps)
            parameterSets.pps[pps.ppsPicParameterSetId] = pps
            parameterSets.ppsRBSP[pps.ppsPicParameterSetId] = rbsp.bytes
            payload = .pps(pps)
        case 0...9, 16...21:  // VCL types in use (Table 7-1); reserved VCL types are skipped
            let (spsOf, ppsOf) = try activeSets(rbsp.bytes, header: header)
            let slice = try SliceSegmentHeader.read(&r, sps: spsOf, pps: ppsOf, previousIndependent: lastIndependentSlice)
            if !slice.dependentSliceSegmentFlag { lastIndependentSlice = slice }
            payload = .slice(slice)
        case 39, 40:
            payload = .sei(try SEIMessages.read(&r, maxPicOrderCntLsb: lastSPS?.maxPicOrderCntLsb))
        default:
            _ = try NALUnitHeader.read(&r)
            payload = .other
        }
        return ParsedNALUnit(header: header, payload: payload, rbsp: rbsp, syntaxElements: r.trace ?? [])
    }

    /// Parses every NAL unit of an Annex-B byte stream in order. A unit that fails does not stop
    /// the rest; its error is returned in its place.
    public mutating func parseAnnexB(_ stream: [UInt8]) -> [Result<ParsedNALUnit, HEVCError>] {
        AnnexB.nalUnits(in: stream).map { nal in
            do throws(HEVCError) { return .success(try parseNALUnit(nal)) } catch { return .failure(error) }
        }
    }

    /// A changed SPS changes how its PPSs read (7.4.3.3 ranges, 6.5.1 tiles): parse them again,
    /// and forget those that no longer parse (a slice naming one then reports it missing).
    private mutating func reparsePictureParameterSets(of sps: SequenceParameterSet) {
        for (id, pps) in parameterSets.pps where pps.ppsSeqParameterSetId == sps.spsSeqParameterSetId {
            guard let bytes = parameterSets.ppsRBSP[id] else { continue }
            var r = BitReader(bytes)
            if let again = try? PictureParameterSet.read(&r, sps: sps) {
                parameterSets.pps[id] = again
            } else {
                parameterSets.pps[id] = nil
                parameterSets.ppsRBSP[id] = nil
            }
        }
    }

    /// The SPS and PPS a slice refers to, found by reading up to slice_pic_parameter_set_id.
    private func activeSets(_ rbsp: [UInt8], header: NALUnitHeader) throws(HEVCError)
        -> (SequenceParameterSet, PictureParameterSet) {
        var r = BitReader(rbsp)
        _ = try NALUnitHeader.read(&r)
        _ = try r.readFlag("first_slice_segment_in_pic_flag")
        if header.isIRAP { _ = try r.readFlag("no_output_of_prior_pics_flag") }
        let ppsId = UInt8(try r.readUE("slice_pic_parameter_set_id", in: 0...63))
        guard let pps = parameterSets.pps[ppsId] else { throw .missingParameterSet(kind: .pps, id: Int(ppsId)) }
        guard let sps = parameterSets.sps[pps.ppsSeqParameterSetId] else {
            throw .missingParameterSet(kind: .sps, id: Int(pps.ppsSeqParameterSetId))
        }
        return (sps, pps)
    }
}
