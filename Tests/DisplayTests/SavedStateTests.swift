import Testing
@testable import Display

@Suite struct SavedStateTests {
    func prop(_ id: UInt32, _ name: String, _ value: UInt64, enums: [String: UInt64] = [:], immutable: Bool = false) -> PropertyInfo {
        PropertyInfo(id: id, name: name, value: value, enums: enums, immutable: immutable)
    }

    @Test func firstNoteWinsAndOrderIsKept() {
        var s = SavedState()
        s.note(object: 35, property: prop(20, "MODE_ID", 77))
        s.note(object: 33, property: prop(10, "FB_ID", 5))
        // After our own commit the same property reads our value; the original must survive.
        s.note(object: 35, property: prop(20, "MODE_ID", 123))
        s.note(object: 33, property: prop(10, "FB_ID", 99))
        #expect(s.restoreAssignments.map(\.value) == [77, 5])
        #expect(s.restoreAssignments.map(\.object) == [35, 33])
    }

    @Test func theStartupModeIsRestoredFromOurOwnBlob() {
        var s = SavedState()
        s.note(object: 35, property: prop(20, "MODE_ID", 77))
        s.note(object: 35, property: prop(21, "ACTIVE", 1))
        // The kernel frees blob 77 after our modeset; the presenter keeps a copy (blob 900).
        s.replaceValue(object: 35, property: 20, with: 900)
        s.replaceValue(object: 36, property: 20, with: 5)   // never noted: ignored
        #expect(s.restoreAssignments.map(\.value) == [900, 1])
        #expect(s.restoreAssignments.count == 2)
    }

    @Test func sameNameOnAnotherObjectIsSeparate() {
        var s = SavedState()
        s.note(object: 31, property: prop(10, "CRTC_ID", 35))
        s.note(object: 32, property: prop(10, "CRTC_ID", 0))
        #expect(s.restoreAssignments.count == 2)
    }

    @Test func immutablePropertiesAreNeverRestored() {
        var s = SavedState()
        s.note(object: 33, property: prop(4, "zpos", 0, immutable: true))
        #expect(s.isEmpty)
    }

    @Test func hdrIsRestoredToOffNotToWhatWeFound() {
        var s = SavedState()
        s.note(object: 31, property: prop(50, "HDR_OUTPUT_METADATA", 4242))
        s.note(object: 31, property: prop(51, "Colorspace", 9, enums: ["Default": 0, "BT2020_RGB": 9]))
        #expect(s.restoreAssignments.map(\.value) == [0, 0])
    }

    @Test func notingByNameSkipsMissingProperties() {
        var s = SavedState()
        let props = ObjectProperties(object: 31, byName: ["CRTC_ID": prop(1, "CRTC_ID", 35)])
        s.note(props, SavedState.connectorProperties)
        #expect(s.restoreAssignments == [SavedState.Assignment(object: 31, property: 1, name: "CRTC_ID", value: 35)])
    }
}
