import Foundation
import Testing
import VideoFrames

/// The Raspberry Pi's column layout (NC12 with DRM_FORMAT_MOD_BROADCOM_SAND128_COL_HEIGHT) read
/// back into NV12 planes, the way `check` compares a Pi's pictures with libavcodec's. The buffer is
/// laid out as the layout's documentation draws it (Raspberry Pi kernel, pixfmt-nv12-col128.rst):
/// 128-byte columns `columnHeight` lines apart, luma rows then chroma rows inside each column.
@Suite("dma-buf read-back: SAND128 columns")
struct SandColumnsReadbackTests {
    @Test func columnsBecomeRasterPlanes() throws {
        let width = 200, height = 6, columnHeight = 12  // two columns, the second 72 bytes wide
        let columnBytes = columnHeight * 128
        var buffer = [UInt8](repeating: 0xEE, count: 2 * columnBytes)
        func luma(_ x: Int, _ y: Int) -> UInt8 { UInt8((x * 7 + y * 13) & 0xFF) }
        func chroma(_ x: Int, _ y: Int) -> UInt8 { UInt8((x * 3 + y * 29 + 5) & 0xFF) }
        for y in 0..<height { for x in 0..<width { buffer[(x / 128) * columnBytes + y * 128 + x % 128] = luma(x, y) } }
        for y in 0..<height / 2 { for x in 0..<width { buffer[(x / 128) * columnBytes + (height + y) * 128 + x % 128] = chroma(x, y) } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sand-\(getpid()).bin").path
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer { close(fd); unlink(path) }
        _ = buffer.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let modifier: UInt64 = (0x07 << 56) | (UInt64(columnHeight) << 8) | 4
        let frame = DMABufFrame(
            pts: 0, width: width, height: height, crop: FrameCrop(left: 0, right: 0, top: 0, bottom: 0), colour: FrameColour(),
            pixelFormat: .nv12, fourcc: 0x3231_564E, objects: [.init(fd: fd, size: UInt32(buffer.count), modifier: modifier)],
            planes: [.init(drmFormat: 0, objectIndex: 0, offset: 0, pitch: 256),
                     .init(drmFormat: 0, objectIndex: 0, offset: UInt32(height * 128), pitch: 256)],
            fence: .completed, surface: 0, generation: 0, lease: SurfaceLease(fds: []) {})
        let f = try frame.readPixels()
        let y = f.planes[0].bytes.array, c = f.planes[1].bytes.array
        #expect(y == (0..<height).flatMap { r in (0..<width).map { luma($0, r) } })
        #expect(c == (0..<height / 2).flatMap { r in (0..<width).map { chroma($0, r) } })
    }

    /// Any other vendor layout is refused with its modifier, as before.
    @Test func otherTilingsAreRefused() {
        let frame = DMABufFrame(
            pts: 0, width: 64, height: 64, crop: FrameCrop(left: 0, right: 0, top: 0, bottom: 0), colour: FrameColour(),
            pixelFormat: .nv12, fourcc: 0x3231_564E, objects: [.init(fd: -1, size: 0, modifier: 0x0100_0000_0000_0002)],
            planes: [], fence: .completed, surface: 0, generation: 0, lease: SurfaceLease(fds: []) {})
        #expect(throws: DMABufFrame.ReadbackError.tiled(modifier: 0x0100_0000_0000_0002)) { try frame.readPixels() }
    }
}
