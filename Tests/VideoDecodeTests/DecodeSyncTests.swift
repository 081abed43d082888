import Foundation
import HEVC
import Testing
import VideoDecode

/// The sync decision table: the sync-file path only where the DRM driver attaches the decoder's
/// implicit write fence to exported buffers (i915, amdgpu); vaSyncSurface everywhere else and
/// whenever the driver is unknown; `decode-sync` forces either.
@Suite("decode sync: sync-file or vaSyncSurface per DRM driver")
struct DecodeSyncTests {
    @Test(arguments: [
        ("i915", DecodeSyncPath.syncFile), ("amdgpu", .syncFile),
        ("xe", .vaSyncSurface), ("nvidia-drm", .vaSyncSurface), ("nvidia", .vaSyncSurface), ("nouveau", .vaSyncSurface),
        ("radeon", .vaSyncSurface), ("virtio_gpu", .vaSyncSurface), ("vgem", .vaSyncSurface), ("msm", .vaSyncSurface),
        ("I915", .vaSyncSurface),  // names are exact; anything unexpected is "unsure"
    ])
    func automaticChoiceFollowsTheDriver(_ driver: String, _ path: DecodeSyncPath) {
        let d = DecodeSyncDecision.decide(drmDriver: driver)
        #expect(d.path == path, "\(driver): \(d)")
        #expect(d.why.contains(driver))
    }

    @Test func unknownDriverWaitsInVaSyncSurface() {
        for driver in [nil, ""] as [String?] {
            let d = DecodeSyncDecision.decide(drmDriver: driver, setting: .auto)
            #expect(d.path == .vaSyncSurface)
            #expect(d.why.contains("unknown"))
        }
    }

    @Test func xeAndNvidiaSayWhy() {
        #expect(DecodeSyncDecision.decide(drmDriver: "xe").why.contains("explicit-sync"))
        #expect(DecodeSyncDecision.decide(drmDriver: "nvidia-drm").why.contains("nvidia-vaapi-driver"))
        #expect(DecodeSyncDecision.decide(drmDriver: "i915").why.contains("attaches the decoder's write fence"))
    }

    @Test func theSettingOverridesTheTable() {
        let forcedFile = DecodeSyncDecision.decide(drmDriver: "xe", setting: .syncFile)
        #expect(forcedFile.path == .syncFile)
        #expect(forcedFile.why.hasPrefix("forced by decode-sync = sync-file"))
        let forcedWait = DecodeSyncDecision.decide(drmDriver: "i915", setting: .vaSyncSurface)
        #expect(forcedWait.path == .vaSyncSurface)
        #expect(forcedWait.why.hasPrefix("forced by decode-sync = va-sync-surface"))
        #expect(DecodeSyncDecision.decide(drmDriver: nil, setting: .syncFile).path == .syncFile)
        #expect(DecodeSyncSetting.allCases.map(\.rawValue) == ["auto", "sync-file", "va-sync-surface"])
    }

    /// The recording driver's "device" is a plain file: no DRM driver, so the rung waits in
    /// vaSyncSurface; forced onto the sync-file path, memfd objects have no
    /// EXPORT_SYNC_FILE and each export still falls back to vaSyncSurface (never an unfenced picture).
    @Test(.enabled(if: VAAPIOracle.canRun, VAAPIOracleTests.skipReason))
    func theRungTakesTheDecisionAndFallsBackPerPicture() throws {
        let stream = try VAAPIOracle.stream("lowdelay-p")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stream.path)))
        for setting in [DecodeSyncSetting.auto, .syncFile] {
            let device = VARecordingDriver.Device()
            let connection = try device.connect()
            #expect(connection.drmDriver == nil)
            let decoder = try VAAPIDecoder(connection: connection, sync: setting)
            #expect(decoder.sync.path == (setting == .auto ? .vaSyncSurface : .syncFile))
            var fences: [Bool] = []
            for (i, au) in AccessUnitSplitter.split(bytes).enumerated() {
                for f in try decoder.decode(accessUnit: au, pts: Int64(i)).pictures {
                    fences.append(f.fence == .completed)
                    f.lease.release()
                }
            }
            for f in try decoder.flush().pictures { fences.append(f.fence == .completed); f.lease.release() }
            #expect(!fences.isEmpty && fences.allSatisfy { $0 })
            let record = try device.record()
            #expect(record.filter { $0.kind == .syncSurface }.count == record.filter { $0.kind == .export }.count)
        }
    }
}
