import Testing
@testable import Display

@Suite struct PlaneAssignmentTests {
    let linear = FormatModifier.linear
    // bochs-drm / virtio-gpu shape: one XRGB primary, an ARGB cursor.
    var qemuPlanes: [PlaneDescription] {
        [PlaneDescription(id: 31, kind: .primary, possibleCRTCs: 1, formats: [.xrgb8888: [linear], FourCC("BX24"): [linear]]),
         PlaneDescription(id: 32, kind: .cursor, possibleCRTCs: 1, formats: [.argb8888: [linear], .nv12: [linear]])]
    }
    // A desktop GPU shape: XRGB primary, NV12/P010 overlay, zpos primary 0, overlay mutable 1...3.
    var gpuPlanes: [PlaneDescription] {
        [PlaneDescription(id: 40, kind: .primary, possibleCRTCs: 0b11, formats: [.xrgb8888: [linear, 0x0100_0000_0000_0001]],
                          zpos: .init(value: 0, min: 0, max: 0, immutable: true)),
         PlaneDescription(id: 41, kind: .overlay, possibleCRTCs: 0b01,
                          formats: [.nv12: [linear], .p010: [linear], .xrgb8888: [linear]],
                          zpos: .init(value: 0, min: 0, max: 3, immutable: false),
                          colorEncodings: ["ITU-R BT.601 YCbCr", "ITU-R BT.709 YCbCr"], colorRanges: ["YCbCr limited range"]),
         PlaneDescription(id: 42, kind: .overlay, possibleCRTCs: 0b10, formats: [.nv12: [linear]])]
    }

    @Test func qemuFallsBackToXRGBOnThePrimary() {
        let plans = PlaneAssignment.plans(planes: qemuPlanes, crtcIndex: 0, wanted: [(.nv12, linear), (.xrgb8888, linear)])
        // The cursor's NV12 is never used.
        #expect(plans == [PlanePlan(plane: 31, kind: .primary, format: .xrgb8888, modifier: linear)])
    }

    @Test func nv12OverlayComesFirstWithABlackPrimaryUnderIt() {
        let plans = PlaneAssignment.plans(planes: gpuPlanes, crtcIndex: 0, wanted: [(.nv12, linear), (.xrgb8888, linear)])
        #expect(plans.first == PlanePlan(plane: 41, kind: .overlay, format: .nv12, modifier: linear,
                                         backgroundPlane: 40, zpos: 1))
        // Then XRGB: primary first, overlay after.
        #expect(plans.dropFirst().map(\.plane) == [40, 41])
        #expect(plans.dropFirst().allSatisfy { $0.format == .xrgb8888 })
    }

    @Test func possibleCRTCsSelectThePlanes() {
        let plans = PlaneAssignment.plans(planes: gpuPlanes, crtcIndex: 1, wanted: [(.nv12, linear)])
        #expect(plans == [PlanePlan(plane: 42, kind: .overlay, format: .nv12, modifier: linear, backgroundPlane: 40)])
        #expect(PlaneAssignment.plans(planes: gpuPlanes, crtcIndex: 2, wanted: [(.nv12, linear)]).isEmpty)
        #expect(PlaneAssignment.plans(planes: gpuPlanes, crtcIndex: 40, wanted: [(.nv12, linear)]).isEmpty)
    }

    @Test func modifiersMustMatch() {
        let tiled: UInt64 = 0x0100_0000_0000_0001
        #expect(PlaneAssignment.plans(planes: gpuPlanes, crtcIndex: 0, wanted: [(.nv12, tiled)]).isEmpty)
        #expect(PlaneAssignment.plans(planes: gpuPlanes, crtcIndex: 0, wanted: [(.xrgb8888, tiled)]).map(\.plane) == [40])
        // A plane that lists only "no explicit modifier" takes linear buffers.
        let implicit = [PlaneDescription(id: 1, kind: .primary, possibleCRTCs: 1, formats: [.nv12: [FormatModifier.invalid]])]
        #expect(PlaneAssignment.plans(planes: implicit, crtcIndex: 0, wanted: [(.nv12, linear)]).count == 1)
    }

    @Test func zposRules() {
        typealias Z = PlaneDescription.ZPos
        let primary = Z(value: 2, min: 2, max: 2, immutable: true)
        #expect(PlaneAssignment.overlayStacking(overlay: nil, primary: primary) == .keep)
        #expect(PlaneAssignment.overlayStacking(overlay: Z(value: 0, min: 0, max: 0, immutable: true), primary: nil) == .keep)
        #expect(PlaneAssignment.overlayStacking(overlay: Z(value: 3, min: 3, max: 3, immutable: true), primary: primary) == .keep)
        #expect(PlaneAssignment.overlayStacking(overlay: Z(value: 1, min: 1, max: 1, immutable: true), primary: primary) == nil)
        #expect(PlaneAssignment.overlayStacking(overlay: Z(value: 0, min: 0, max: 5, immutable: false), primary: primary) == .set(3))
        #expect(PlaneAssignment.overlayStacking(overlay: Z(value: 0, min: 4, max: 5, immutable: false), primary: primary) == .set(4))
        #expect(PlaneAssignment.overlayStacking(overlay: Z(value: 0, min: 0, max: 2, immutable: false), primary: primary) == nil)
        // An overlay pinned under the primary is not offered.
        var planes = gpuPlanes
        planes[1].zpos = Z(value: 0, min: 0, max: 0, immutable: true)
        planes[0].zpos = Z(value: 1, min: 1, max: 1, immutable: true)
        #expect(PlaneAssignment.plans(planes: planes, crtcIndex: 0, wanted: [(.nv12, linear)]).isEmpty)
    }

    @Test func colourPropertiesOnlyWhenOffered() {
        let overlay = gpuPlanes[1]
        let a = PlaneAssignment.colorProperties(matrix: .bt709, fullRange: false, plane: overlay)
        #expect(a.encoding == "ITU-R BT.709 YCbCr" && a.range == "YCbCr limited range")
        let b = PlaneAssignment.colorProperties(matrix: .bt2020, fullRange: true, plane: overlay)
        #expect(b.encoding == nil && b.range == nil)
        let c = PlaneAssignment.colorProperties(matrix: .bt601, fullRange: false, plane: gpuPlanes[0])
        #expect(c.encoding == nil && c.range == nil)
    }
}
