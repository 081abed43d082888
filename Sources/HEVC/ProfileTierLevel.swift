/// profile_tier_level(), H.265 7.3.3. Only the general profile fields are kept; sub-layer
/// fields are read (and traced) so the cursor stays right, and their levels are kept.
public struct ProfileTierLevel: Sendable, Equatable {
    public var generalProfileSpace: UInt8 = 0
    public var generalTierFlag = false
    public var generalProfileIdc: UInt8 = 0
    public var generalProfileCompatibilityFlags: UInt32 = 0
    public var generalProgressiveSourceFlag = false
    public var generalInterlacedSourceFlag = false
    public var generalNonPackedConstraintFlag = false
    public var generalFrameOnlyConstraintFlag = false
    public var generalLevelIdc: UInt8 = 0
    /// sub_layer_level_idc[i] when sub_layer_level_present_flag[i], else nil.
    public var subLayerLevelIdc: [UInt8?] = []

    public init() {}

    /// generalProfileCompatibilityFlags holds general_profile_compatibility_flag[j] at bit 31 − j.
    public func isCompatible(with profile: Int) -> Bool {
        profile >= 0 && profile < 32 && (generalProfileCompatibilityFlags >> UInt32(31 - profile)) & 1 == 1
    }

    /// Reads profile_tier_level(profilePresentFlag, maxNumSubLayersMinus1).
    public static func read(_ r: inout BitReader, profilePresent: Bool,
                            maxNumSubLayersMinus1: Int) throws(HEVCError) -> ProfileTierLevel {
        var p = ProfileTierLevel()
        if profilePresent {
            let c = try readProfile(&r, prefix: "general", suffix: "")
            p.generalProfileSpace = c.space
            p.generalTierFlag = c.tier
            p.generalProfileIdc = c.idc
            p.generalProfileCompatibilityFlags = c.compat
            p.generalProgressiveSourceFlag = c.progressive
            p.generalInterlacedSourceFlag = c.interlaced
            p.generalNonPackedConstraintFlag = c.nonPacked
            p.generalFrameOnlyConstraintFlag = c.frameOnly
        }
        p.generalLevelIdc = UInt8(try r.readBits(8, "general_level_idc"))
        var profilePresentFlags: [Bool] = []
        var levelPresentFlags: [Bool] = []
        for i in 0..<maxNumSubLayersMinus1 {
            profilePresentFlags.append(try r.readFlag("sub_layer_profile_present_flag[\(i)]"))
            levelPresentFlags.append(try r.readFlag("sub_layer_level_present_flag[\(i)]"))
        }
        if maxNumSubLayersMinus1 > 0 {
            for _ in maxNumSubLayersMinus1..<8 { _ = try r.readBits(2, "reserved_zero_2bits") }
        }
        for i in 0..<maxNumSubLayersMinus1 {
            if profilePresentFlags[i] {
                _ = try readProfile(&r, prefix: "sub_layer", suffix: "[\(i)]")
            }
            if levelPresentFlags[i] {
                p.subLayerLevelIdc.append(UInt8(try r.readBits(8, "sub_layer_level_idc[\(i)]")))
            } else {
                p.subLayerLevelIdc.append(nil)
            }
        }
        return p
    }

    private struct Common {
        var space: UInt8, tier: Bool, idc: UInt8, compat: UInt32
        var progressive: Bool, interlaced: Bool, nonPacked: Bool, frameOnly: Bool
    }

    /// The profile part shared by general_* and sub_layer_*[i] (7.3.3). Reserved bits are read
    /// as FFmpeg splits them (24 + rest) so the trace lines up; their values are ignored (7.4.4).
    private static func readProfile(_ r: inout BitReader, prefix: String,
                                    suffix: String) throws(HEVCError) -> Common {
        let space = try r.readBits(2, "\(prefix)_profile_space\(suffix)")
        let tier = try r.readFlag("\(prefix)_tier_flag\(suffix)")
        let idc = try r.readBits(5, "\(prefix)_profile_idc\(suffix)")
        var compat: UInt32 = 0
        for j in 0..<32 {
            let f = try r.readFlag("\(prefix)_profile_compatibility_flag\(suffix)[\(j)]")
            compat = (compat << 1) | (f ? 1 : 0)
        }
        let c = Common(space: UInt8(space), tier: tier, idc: UInt8(idc), compat: compat,
                       progressive: try r.readFlag("\(prefix)_progressive_source_flag\(suffix)"),
                       interlaced: try r.readFlag("\(prefix)_interlaced_source_flag\(suffix)"),
                       nonPacked: try r.readFlag("\(prefix)_non_packed_constraint_flag\(suffix)"),
                       frameOnly: try r.readFlag("\(prefix)_frame_only_constraint_flag\(suffix)"))
        func compatible(_ x: Int) -> Bool { Int(idc) == x || (compat >> UInt32(31 - x)) & 1 == 1 }
        if (4...11).contains(where: compatible) {
            for name in ["max_12bit", "max_10bit", "max_8bit", "max_422chroma", "max_420chroma",
                         "max_monochrome", "intra", "one_picture_only", "lower_bit_rate"] {
                _ = try r.readFlag("\(prefix)_\(name)_constraint_flag\(suffix)")
            }
            if [5, 9, 10, 11].contains(where: compatible) {
                _ = try r.readFlag("\(prefix)_max_14bit_constraint_flag\(suffix)")
                _ = try r.readBits(24, "\(prefix)_reserved_zero_33bits")
                _ = try r.readBits(9, "\(prefix)_reserved_zero_33bits")
            } else {
                _ = try r.readBits(24, "\(prefix)_reserved_zero_34bits")
                _ = try r.readBits(10, "\(prefix)_reserved_zero_34bits")
            }
        } else if compatible(2) {
            _ = try r.readBits(7, "\(prefix)_reserved_zero_7bits")
            _ = try r.readFlag("\(prefix)_one_picture_only_constraint_flag\(suffix)")
            _ = try r.readBits(24, "\(prefix)_reserved_zero_35bits")
            _ = try r.readBits(11, "\(prefix)_reserved_zero_35bits")
        } else {
            _ = try r.readBits(24, "\(prefix)_reserved_zero_43bits")
            _ = try r.readBits(19, "\(prefix)_reserved_zero_43bits")
        }
        if [1, 2, 3, 4, 5, 9, 11].contains(where: compatible) {
            _ = try r.readFlag("\(prefix)_inbld_flag\(suffix)")
        } else {
            _ = try r.readBits(1, "\(prefix)_reserved_zero_bit")
        }
        return c
    }
}
