import Testing
@testable import Display

@Suite struct FormatModifierBlobTests {
    /// Builds a `drm_format_modifier_blob` the way the kernel lays it out (drm_mode.h).
    func blob(formats: [FourCC], modifiers: [(mask: UInt64, offset: UInt32, modifier: UInt64)]) -> [UInt8] {
        var b: [UInt8] = []
        func u32(_ v: UInt32) { for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        func u64(_ v: UInt64) { for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        let formatsOffset: UInt32 = 24
        let modifiersOffset = formatsOffset + UInt32(formats.count * 4 + 4)  // 4 bytes of padding, as a kernel might add
        u32(1); u32(0); u32(UInt32(formats.count)); u32(formatsOffset); u32(UInt32(modifiers.count)); u32(modifiersOffset)
        for f in formats { u32(f.rawValue) }
        u32(0)
        for m in modifiers { u64(m.mask); u32(m.offset); u32(0); u64(m.modifier) }
        return b
    }

    @Test func fourCCSpelling() {
        #expect(FourCC.xrgb8888.rawValue == 0x3432_5258)  // DRM_FORMAT_XRGB8888 = fourcc('X','R','2','4')
        #expect(FourCC.nv12.rawValue == 0x3231_564E)
        #expect("\(FourCC.p010)" == "P010")
        #expect("\(FourCC(rawValue: 0x0102_0304))" == "0x1020304")
    }

    @Test func parsesFormatsPerModifier() throws {
        let y_tiled: UInt64 = 0x0100_0000_0000_0002
        let bytes = blob(formats: [.xrgb8888, .argb8888, .nv12, .p010],
                         modifiers: [(0b1111, 0, FormatModifier.linear), (0b0101, 0, y_tiled)])
        let parsed = try #require(FormatModifierBlob.parse(bytes))
        #expect(parsed[.xrgb8888] == [FormatModifier.linear, y_tiled])
        #expect(parsed[.argb8888] == [FormatModifier.linear])
        #expect(parsed[.nv12] == [FormatModifier.linear, y_tiled])
        #expect(parsed[.p010] == [FormatModifier.linear])
    }

    @Test func offsetShiftsTheMask() throws {
        // Bit 0 with offset 2 means formats[2]; bits past the list are ignored.
        let parsed = try #require(FormatModifierBlob.parse(
            blob(formats: [.xrgb8888, .argb8888, .nv12], modifiers: [(0b11, 2, 7)])))
        #expect(parsed[.nv12] == [7])
        #expect(parsed[.xrgb8888] == [])
    }

    @Test func truncatedBlobsAreRejectedNotTrapped() {
        let good = blob(formats: [.xrgb8888, .nv12], modifiers: [(0b11, 0, 0)])
        for cut in [0, 8, 23, 24, 30, good.count - 1] {
            #expect(FormatModifierBlob.parse(Array(good.prefix(cut))) == nil, "cut at \(cut)")
        }
        var huge = good
        huge[8] = 0xFF; huge[9] = 0xFF; huge[10] = 0xFF; huge[11] = 0x7F  // count_formats absurd
        #expect(FormatModifierBlob.parse(huge) == nil)
    }
}
