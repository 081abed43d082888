import VideoFrames

/// The ladder's V4L2 stateless rung.
final class V4L2Rung: LadderRung {
    let decoder: V4L2Decoder
    init(_ decoder: V4L2Decoder) { self.decoder = decoder }
    var kind: DecoderRungKind { .v4l2 }

    func decode(accessUnit: [UInt8], pts: Int64) throws -> RungOutput {
        let waiting = decoder.awaitingIRAP
        let out = try decoder.decode(accessUnit: accessUnit, pts: pts)
        // A picture was decoded unless the planner skipped the access unit.
        let skipped = out.warnings.contains {
            switch $0 {
            case .awaitingIRAP, .raslSkipped, .missingParameterSet, .noFirstSliceSegment, .surfacePoolExhausted: true
            default: false
            }
        }
        return RungOutput(pictures: out.pictures.map { .dmaBuf($0) }, warnings: out.warnings.map(\.description),
                          requestsKeyframe: out.requestsKeyframe, decodedPicture: !skipped && !(waiting && decoder.awaitingIRAP))
    }

    func flush() -> [DecodedPicture] {
        ((try? decoder.flush())?.pictures ?? []).map { .dmaBuf($0) }
    }
}
