/// The parameter sets received so far, stored by id (H.265 7.4.2.4.2: a newer set with the
/// same id replaces the older one).
public struct ParameterSets: Sendable, Equatable {
    public var vps: [UInt8: VideoParameterSet] = [:]
    public var sps: [UInt8: SequenceParameterSet] = [:]
    public var pps: [UInt8: PictureParameterSet] = [:]
    /// Each stored PPS's RBSP, so it can be parsed again when its SPS is replaced (its ranges
    /// and tile geometry depend on the SPS).
    public var ppsRBSP: [UInt8: [UInt8]] = [:]

    public init() {}
}
