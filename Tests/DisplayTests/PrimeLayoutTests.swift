import Testing
@testable import Display
import VideoFrames

/// The framebuffer arguments for exported VA surfaces (SEPARATE_LAYERS: one luma and one chroma
/// layer, possibly in different objects): what `drmModeAddFB2WithModifiers` gets, and the
/// malformed exports that must be typed errors before any ioctl.
@Suite struct PrimeLayoutTests {
    /// An NV12 export as Mesa's radeonsi/iHD drivers shape it: one object, chroma after luma.
    static func nv12(width: Int = 1920, height: Int = 1088, modifier: UInt64 = 0, size: UInt32? = nil,
                     planes: [DMABufFrame.Plane]? = nil, objects: Int = 1) -> DMABufFrame {
        let pitch = UInt32((width + 255) / 256 * 256)
        let lumaBytes = pitch * UInt32(height)
        let total = size ?? lumaBytes + pitch * UInt32((height + 1) / 2)
        let objs = (0..<objects).map { _ in DMABufFrame.Object(fd: -1, size: total, modifier: modifier) }
        let layers = planes ?? [DMABufFrame.Plane(drmFormat: FourCC("R8  ").rawValue, objectIndex: 0, offset: 0, pitch: pitch),
                                DMABufFrame.Plane(drmFormat: FourCC("GR88").rawValue, objectIndex: 0, offset: lumaBytes, pitch: pitch)]
        return DMABufFrame(pts: 0, width: width, height: height, crop: FrameCrop(bottom: 8), colour: FrameColour(),
                           pixelFormat: .nv12, fourcc: FourCC.nv12.rawValue, objects: objs, planes: layers,
                           fence: .completed, surface: 3, generation: 1, lease: SurfaceLease(fds: [], onRelease: {}))
    }

    @Test func oneObjectNV12() throws {
        let l = try PrimeLayout(Self.nv12())
        #expect(l.fourcc == .nv12)
        #expect(l.width == 1920 && l.height == 1088)
        #expect(l.objectIndex == [0, 0])
        #expect(l.pitches == [2048, 2048])
        #expect(l.offsets == [0, 2048 * 1088])
        #expect(l.modifier == 0)
    }

    /// Planes in two objects keep their own object index; a tiled modifier is passed through.
    @Test func twoObjectsAndATiledModifier() throws {
        let y = 0x0100_0000_0000_0002 as UInt64  // I915_FORMAT_MOD_Y_TILED
        let f = Self.nv12(modifier: y, planes: [
            DMABufFrame.Plane(drmFormat: FourCC("R8  ").rawValue, objectIndex: 0, offset: 0, pitch: 2048),
            DMABufFrame.Plane(drmFormat: FourCC("GR88").rawValue, objectIndex: 1, offset: 0, pitch: 2048)], objects: 2)
        let l = try PrimeLayout(f)
        #expect(l.objectIndex == [0, 1])
        #expect(l.offsets == [0, 0])
        #expect(l.modifier == y)
    }

    @Test func p010NeedsTwoBytesPerSample() throws {
        var f = Self.nv12(width: 1280, height: 720)
        f.pixelFormat = .p010
        f.fourcc = FourCC.p010.rawValue
        // Pitch 1280 is one byte per sample: too narrow for P010.
        f.planes = [DMABufFrame.Plane(drmFormat: FourCC("R16 ").rawValue, objectIndex: 0, offset: 0, pitch: 1280),
                    DMABufFrame.Plane(drmFormat: FourCC("GR32").rawValue, objectIndex: 0, offset: 1280 * 720, pitch: 1280)]
        #expect(throws: KMSError.self) { try PrimeLayout(f) }
        f.planes = [DMABufFrame.Plane(drmFormat: FourCC("R16 ").rawValue, objectIndex: 0, offset: 0, pitch: 2560),
                    DMABufFrame.Plane(drmFormat: FourCC("GR32").rawValue, objectIndex: 0, offset: 2560 * 720, pitch: 2560)]
        f.objects = [DMABufFrame.Object(fd: -1, size: 2560 * 1080, modifier: 0)]
        let l = try PrimeLayout(f)
        #expect(l.fourcc == .p010 && l.pitches == [2560, 2560])
    }

    /// Malformed exports: wrong fourcc, one layer, an object index out of range, objects that
    /// disagree on the modifier, a linear plane running past its object.
    @Test func malformedExportsAreTypedErrors() {
        var wrongFourcc = Self.nv12()
        wrongFourcc.fourcc = FourCC.p010.rawValue
        var oneLayer = Self.nv12()
        oneLayer.planes.removeLast()
        var badIndex = Self.nv12()
        badIndex.planes[1].objectIndex = 4
        var mixed = Self.nv12(objects: 2)
        mixed.objects[1].modifier = 7
        let short = Self.nv12(size: 2048 * 1088)       // no room for the chroma rows
        var empty = Self.nv12()
        empty.width = 0
        for f in [wrongFourcc, oneLayer, badIndex, mixed, short, empty] {
            #expect(throws: KMSError.self) { try PrimeLayout(f) }
        }
        // The same short object with a tiled modifier is left to the kernel (tiles pad differently).
        #expect((try? PrimeLayout(Self.nv12(modifier: 0x0100_0000_0000_0002, size: 2048 * 1088))) != nil)
    }
}
