import Screen
import Testing
@testable import WaylandDisplay

@Suite struct TenBitShmTests {
    let xr24: UInt32 = 1, ar24: UInt32 = 0

    @Test func autoNeedsAGPUCompositorThatListsAFormat() {
        let both: Set<UInt32> = [ar24, xr24, TenBitShm.xrgb2101010, TenBitShm.xbgr2101010]
        #expect(TenBitShm.auto.layout(shmFormats: both, composited: true)?.layout == .xrgb2101010)
        // weston 10 with pixman lists both and shows them black: no linux-dmabuf, no 10-bit buffers
        #expect(TenBitShm.auto.layout(shmFormats: both, composited: false) == nil)
        // weston 10 with GL lists XB30 only
        let gl: Set<UInt32> = [xr24, TenBitShm.xbgr2101010]
        let chosen = TenBitShm.auto.layout(shmFormats: gl, composited: true)
        #expect(chosen?.format == 0x3033_4258 && chosen?.layout == .xbgr2101010)
        #expect(TenBitShm.auto.layout(shmFormats: [ar24, xr24], composited: true) == nil)
    }

    @Test func onIgnoresTheRendererAndOffNeverDeepens() {
        let gl: Set<UInt32> = [xr24, TenBitShm.xbgr2101010]
        #expect(TenBitShm.on.layout(shmFormats: gl, composited: false)?.layout == .xbgr2101010)
        #expect(TenBitShm.on.layout(shmFormats: [xr24], composited: true) == nil)
        #expect(TenBitShm.off.layout(shmFormats: gl, composited: true) == nil)
    }

    @Test func fourccsAreTheDRMCodes() {
        func fourcc(_ s: String) -> UInt32 { s.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        #expect(TenBitShm.xrgb2101010 == fourcc("XR30"))
        #expect(TenBitShm.xbgr2101010 == fourcc("XB30"))
    }
}
