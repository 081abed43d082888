import FFmpegOracle
import Foundation
import HEVC
import Testing
import VideoDecode
import VideoFrames

/// Export, fences, surface lifetime and refusals of the VA-API rung, over the recording driver.
@Suite("VA-API rung: export and surface lifetime")
struct VAAPIExportTests {
    static let enabled = FFmpeg.isAvailable && VARecordingDriver.isAvailable
    static let reason: Comment = "needs ffmpeg with libx265 and the VA recording driver (cc, libva-dev)"

    @Test(.enabled(if: enabled, reason))
    func exportedFrameDescribesTheSurface() throws {
        let g = try DecodeFixture.all[1].load()  // main10-bt2020-pq, 192x108
        let decoder = try VAAPIDecoder(connection: VARecordingDriver.Device().connect())
        let au = AccessUnitSplitter.split(g.bytes)[0]
        let frame = try #require(try decoder.decode(accessUnit: au, pts: 42).pictures.first)
        #expect(frame.pts == 42)
        #expect(frame.fourcc == 0x3031_3050)  // P010
        #expect(frame.pixelFormat == .p010)
        #expect(frame.width == 192 && frame.height == 112)  // coded size
        #expect(frame.crop == FrameCrop(left: 0, right: 0, top: 0, bottom: 4))
        #expect(frame.visibleWidth == 192 && frame.visibleHeight == 108)
        #expect(frame.colour == FrameColour(primaries: 9, transfer: 16, matrix: 9, fullRange: false))
        #expect(frame.planes.count == 2)
        #expect(frame.planes.map(\.drmFormat) == [0x2036_3152, 0x3233_5247])  // R16, GR32 (GR1616)
        #expect(frame.planes[1].offset > 0 && frame.planes[0].pitch >= 384)
        #expect(frame.objects.count == 1 && frame.objects[0].modifier == 0)
        // memfd objects have no DMA_BUF_IOCTL_EXPORT_SYNC_FILE: the rung waited instead.
        #expect(frame.fence == .completed)
        // CPU read-back (decode --framemd5 on the VA rung): the fake's surfaces are zero-filled.
        let cpu = try frame.readPixels()
        #expect(cpu.planes.map(\.rowBytes) == [384, 384] && cpu.planes.map(\.height) == [112, 56])
        #expect(cpu.planes.allSatisfy { $0.bytes.allSatisfy { $0 == 0 } })
        #expect(cpu.crop == frame.crop && cpu.pixelFormat == .p010)
        let fd = frame.objects[0].fd
        #expect(fcntl(fd, F_GETFD) >= 0)
        frame.lease.release()
        #expect(fcntl(fd, F_GETFD) == -1, "the lease closes the fds")
        #expect(!frame.lease.isHeld)
    }

    @Test(.enabled(if: enabled, reason), arguments: ["no_objects", "bad_object_index", "mixed_modifier", "wrong_fourcc", "negative_fd"])
    func brokenExportsAreRefused(_ fault: String) throws {
        let g = try VAFixture.all[0].load()
        let decoder = try VAAPIDecoder(connection: VARecordingDriver.Device(config: ["export_fault": fault]).connect())
        let au = AccessUnitSplitter.split(g.bytes)[0]
        #expect {
            _ = try decoder.decode(accessUnit: au, pts: 0)
        } throws: { error in
            guard case VAAPIError.invalidExport = error else { return false }
            return true
        }
    }

    @Test(.enabled(if: enabled, reason))
    func main10RefusedWhenTheDriverLacksIt() throws {
        let g = try DecodeFixture.all[1].load()
        let connection = try VARecordingDriver.Device(config: ["main10": "0"]).connect()
        #expect(connection.canDecode(.main) && !connection.canDecode(.main10))
        let decoder = try VAAPIDecoder(connection: connection)
        #expect(throws: VAAPIError.profileUnsupported("Main10")) {
            _ = try decoder.decode(accessUnit: AccessUnitSplitter.split(g.bytes)[0], pts: 0)
        }
    }

    /// The display holds the two newest pictures (on screen + queued); the decoder must never
    /// decode into a held surface, and with headroom 2 it never runs out of surfaces.
    @Test(.enabled(if: enabled, reason))
    func heldSurfacesAreNeverDecodeTargets() throws {
        let g = try VAFixture.all[1].load()  // lowdelay-40
        let device = VARecordingDriver.Device()
        let decoder = try VAAPIDecoder(connection: device.connect(), headroom: 2)
        var held: [DMABufFrame] = []
        var decoded = 0
        for (i, au) in AccessUnitSplitter.split(g.bytes).enumerated() {
            let out = try decoder.decode(accessUnit: au, pts: Int64(i))
            #expect(out.warnings.isEmpty, "\(out.warnings)")
            let target = try device.record().last { $0.kind == .beginPicture }?.surface
            #expect(!held.contains { $0.surface == target }, "access unit \(i) decoded into a held surface")
            decoded += 1
            held += out.pictures
            while held.count > 2 { held.removeFirst().lease.release() }
        }
        #expect(decoded == 40)
        for f in held { f.lease.release() }
    }

    /// Truncated and damaged access units: typed errors or warnings, never a trap; the decoder
    /// recovers at the next IRAP picture.
    @Test(.enabled(if: enabled, reason))
    func corruptAccessUnitsThrowAndRecover() throws {
        let g = try VAFixture.all[1].load()
        let aus = AccessUnitSplitter.split(g.bytes)
        let decoder = try VAAPIDecoder(connection: VARecordingDriver.Device().connect())
        var errors = 0, frames: [Int64] = []
        for (i, var au) in aus.enumerated() {
            if i == 5 { au = Array(au.prefix(au.count / 3)) }  // cut inside the slice data
            if i == 6 { au = Array(au.prefix(12)) }            // cut inside the slice header
            if i == 9 { for k in stride(from: 8, to: au.count, by: 7) { au[k] ^= 0x5A } }
            do {
                let out = try decoder.decode(accessUnit: au, pts: Int64(i))
                frames += out.pictures.map(\.pts)
                for f in out.pictures { f.lease.release() }
            } catch {
                errors += 1
            }
        }
        #expect(errors >= 1)
        // After the damage, decoding resumes at the IRAP of access unit 12 and runs to the end.
        #expect(Array(frames.suffix(28)) == (12..<40).map(Int64.init))
        // Garbage straight in.
        for n in [0, 1, 3, 5, 64, 1000] {
            let junk = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
            _ = try? decoder.decode(accessUnit: [0, 0, 1] + junk, pts: 0)
            _ = try? decoder.decode(accessUnit: junk, pts: 0)
        }
    }
}
