import Testing
import VideoDecode
import VideoFrames

@Suite("NV12 / P010 packing")
struct ConversionTests {
    static func random(bitDepth: Int, width: Int, height: Int, seed: UInt64) -> PlanarYUV420 {
        var state = seed
        func sample() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) }
        let bps = bitDepth > 8 ? 2 : 1
        func plane(_ count: Int) -> [UInt8] {
            var out: [UInt8] = []
            for _ in 0..<count {
                let v = sample() & ((1 << bitDepth) - 1)
                out.append(UInt8(v & 0xFF))
                if bps == 2 { out.append(UInt8(v >> 8)) }
            }
            return out
        }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        return PlanarYUV420(bitDepth: bitDepth, width: width, height: height,
                            y: plane(width * height), cb: plane(cw * ch), cr: plane(cw * ch))
    }

    @Test(arguments: [(8, 16, 8), (8, 17, 9), (10, 16, 8), (10, 33, 15), (8, 1, 1), (10, 1, 1)])
    func roundTrip(_ shape: (Int, Int, Int)) throws {
        let p = Self.random(bitDepth: shape.0, width: shape.1, height: shape.2, seed: UInt64(shape.1 * 31 + shape.2))
        let f = try #require(DecodedFrame(planar: p, pts: 7))
        #expect(f.pixelFormat == (shape.0 == 8 ? .nv12 : .p010))
        #expect(f.planes.count == 2)
        #expect(f.planes[0].height == shape.2 && f.planes[1].height == (shape.2 + 1) / 2)
        #expect(f.planar(cropped: false) == p)
        #expect(f.planar(cropped: true) == p)
    }

    @Test func layoutOfOneSample() throws {
        // 10-bit value 0x3FF → P010 word 0xFFC0 (high bits), little-endian; Cb before Cr.
        let p = PlanarYUV420(bitDepth: 10, width: 2, height: 2,
                             y: [0xFF, 0x03, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00],
                             cb: [0x10, 0x00], cr: [0x20, 0x00])
        let f = try #require(DecodedFrame(planar: p, pts: 0))
        #expect(Array(f.planes[0].bytes[0..<4]) == [0xC0, 0xFF, 0x40, 0x00])
        #expect(f.planes[1].bytes == [0x00, 0x04, 0x00, 0x08])
        let n = try #require(DecodedFrame(planar: PlanarYUV420(bitDepth: 8, width: 2, height: 2, y: [1, 2, 3, 4], cb: [5], cr: [6]), pts: 0))
        #expect(n.planes[1].bytes == [5, 6])
    }

    @Test func cropSelectsTheVisibleWindow() throws {
        let p = Self.random(bitDepth: 8, width: 8, height: 6, seed: 3)
        var f = try #require(DecodedFrame(planar: p, pts: 0))
        f.crop = FrameCrop(left: 2, right: 2, top: 0, bottom: 2)
        let c = f.planar(cropped: true)
        #expect(c.width == 4 && c.height == 4)
        #expect(Array(c.y[0..<4]) == Array(p.y[2..<6]))
        #expect(c.cb[0] == p.cb[1])
    }

    @Test func rejectsBadShapes() {
        #expect(DecodedFrame(planar: PlanarYUV420(bitDepth: 12, width: 2, height: 2, y: [], cb: [], cr: []), pts: 0) == nil)
        #expect(DecodedFrame(planar: PlanarYUV420(bitDepth: 8, width: 2, height: 2, y: [1], cb: [1], cr: [1]), pts: 0) == nil)
    }

    @Test func md5OfKnownInput() {
        #expect(FrameMD5.hex(Array("abc".utf8)) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(FrameMD5.hex([]) == "d41d8cd98f00b204e9800998ecf8427e")
    }
}
