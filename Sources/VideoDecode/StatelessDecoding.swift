import HEVC
import VideoFrames

/// What one call of a stateless rung's `decode` (VA-API, V4L2) produced.
public struct StatelessDecodeOutput: Sendable {
    /// Pictures ready for display, in output order.
    public var pictures: [DMABufFrame] = []
    /// The planner's concealment and skip notices for this access unit.
    public var warnings: [PlannerWarning] = []
    /// Some warning means the pictures are not exact: ask the host for a keyframe.
    public var requestsKeyframe: Bool { warnings.contains { $0.requestsKeyframe } }
    public init() {}
}

/// A hardware rung that decodes the planner's pictures into exported surfaces.
protocol StatelessDecoder: AnyObject {
    /// True until an IRAP picture starts decoding.
    var awaitingIRAP: Bool { get }
    func decode(accessUnit: [UInt8], pts: Int64) throws -> StatelessDecodeOutput
    func flush() throws -> StatelessDecodeOutput
    /// Drops the DPB and waits for the next IRAP picture; the planner keeps only the holds of
    /// pictures leased to the display.
    func restart()
}

/// The NAL units of one access unit, parsed, and where each sits in it. A parameter set or SEI
/// that does not parse is skipped (slices naming it report it missing); a slice that does not
/// parse fails the access unit (the picture would miss it).
struct ParsedAccessUnit {
    var units: [HEVCParser.ParsedNALUnit] = []
    var ranges: [Range<Int>] = []

    /// - Returns: nil when a VCL unit did not parse, with its type and the error in `failure`.
    static func parse(_ accessUnit: [UInt8], with parser: inout HEVCParser,
                      failure: inout (type: UInt8, error: HEVCError)?) -> ParsedAccessUnit? {
        var out = ParsedAccessUnit()
        let ranges = AnnexB.nalUnitRanges(in: accessUnit)
        out.units.reserveCapacity(ranges.count)
        for r in ranges {
            do throws(HEVCError) {
                out.units.append(try parser.parseNALUnit(Array(accessUnit[r])))
                out.ranges.append(r)
            } catch {
                let type = accessUnit[r.lowerBound] >> 1 & 0x3F
                if type < 32 {
                    failure = (type, error)
                    return nil
                }
            }
        }
        return out
    }
}

extension VAAPIDecoder: StatelessDecoder {}
extension V4L2Decoder: StatelessDecoder {}
