import FFmpegOracle
import Foundation
import HEVC
import PunktfunkWire
import Testing
import VideoDecode
import VideoFrames

/// An RFI anchor made by an encoder we did not write (issue 39): libx265 with a forced intra
/// picture that is not a keyframe (`-forced-idr 0`, a long keyint) codes it as TRAIL_R with an I
/// slice whose short-term RPS still lists the two pictures before it with
/// `used_by_curr_pic_s0_flag = 1` (ffmpeg's trace_headers says so below). No slice list of it uses
/// them, and the P pictures after it (one active reference) use only it. So with the pictures
/// before it lost, the anchor and everything after it decode exactly as libavcodec decodes the
/// whole stream: no damage, no keyframe ask, and the anchor lifts the re-anchor gate.
@Suite("anchors from libx265", .enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
struct EncoderAnchorTests {
    static let anchor = 20
    static let frames = 40

    /// 40 P pictures after an IDR, one reference each, a forced intra picture (TRAIL_R) at 20.
    static let stream: Result<(bytes: [UInt8], path: String), DecodeFixture.FixtureError> = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("x265-anchor-\(ProcessInfo.processInfo.processIdentifier)")
        return Result {
            try FFmpeg.encodeTestStream(name: "anchor", in: dir, sizes: ["192x108"], frames: frames, pixelFormat: "yuv420p",
                                        x265: "keyint=600:min-keyint=600:bframes=0:scenecut=0:ref=1:repeat-headers=1:info=0:log-level=none",
                                        options: ["-forced-idr", "0", "-force_key_frames", "expr:eq(n,\(anchor))"])
        }.mapError { DecodeFixture.FixtureError(description: "\($0)") }
    }()

    /// libavcodec's own decode of the whole stream, one framemd5 checksum per picture.
    static func cleanChecksums() throws -> [String] {
        let out = try FFmpeg.run(["-hide_banner", "-nostats", "-loglevel", "error", "-i", try stream.get().path, "-f", "framemd5", "-"])
        #expect(out.status == 0, "\(out.stderr)")
        return checksums(out.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") })
    }

    /// Access units as the session admits them after losing `lost`: nothing between the loss
    /// and the anchor reaches the decoder (`AUAdmission`).
    static func admitted(losing lost: ClosedRange<Int>) throws -> [(index: Int, au: [UInt8])] {
        let aus = AccessUnitSplitter.split(try stream.get().bytes)
        #expect(aus.count == frames)
        return aus.enumerated().filter { !lost.contains($0.offset) }.map { ($0.offset, $0.element) }
    }

    @Test func theStreamIsWhatTheTestNeeds() throws {
        let units = HeaderTrace.parse(try FFmpeg.traceHeaders(of: try Self.stream.get().path)).filter { $0.nalUnitType < 32 }
        #expect(units.count == Self.frames)
        let a = units[Self.anchor]
        #expect(a.nalUnitType == 1, "TRAIL_R")
        #expect(a["slice_type"] == 2, "an I slice")
        #expect(a["used_by_curr_pic_s0_flag[0]"] == 1 && a["used_by_curr_pic_s0_flag[1]"] == 1,
                "its RPS lists the two pictures before it as used by the current picture")
        #expect(units.filter { $0.nalUnitType >= 16 }.count == 1, "one IRAP picture, the first")
    }

    @Test func theSoftwareRungShowsTheAnchorFirstAndAsksNoKeyframe() throws {
        SoftwareDecoder.setLibraryLogging(enabled: false)
        try Self.decodeAcrossTheLoss(DecoderLadder(configuration: .init(rungs: [.software])))
    }

    @Test(.enabled(if: VARecordingDriver.isAvailable, "needs the VA recording driver (cc, libva-dev)"))
    func theVAAPIRungAsksNoKeyframeForTheAnchor() throws {
        let device = VARecordingDriver.Device()
        let ladder = DecoderLadder(configuration: .init(rungs: [.vaapi], openVADisplay: { try device.connect() }))
        #expect(ladder.activeRung == .vaapi)
        var keyframeRequests = 0
        ladder.onKeyframeRequest = { keyframeRequests += 1 }
        var damaged: [Int64] = []
        for (i, au) in try Self.admitted(losing: 18...19) {
            let report = ladder.decodeReporting(accessUnit: au, pts: Int64(i))
            #expect(!report.failed && !report.skipped)
            damaged += zip(report.pictures, report.damaged).filter(\.1).map(\.0.pts)
            for p in report.pictures { p.release() }
        }
        #expect(damaged.isEmpty && keyframeRequests == 0)
    }

    /// 18 and 19 lost (the gap arms the gate; the session withholds nothing else since the anchor
    /// follows at once): the anchor is decoded clean, lifts the gate, and it and every picture
    /// after it equal libavcodec's decode of the whole stream.
    static func decodeAcrossTheLoss(_ ladder: DecoderLadder) throws {
        var keyframeRequests = 0
        ladder.onKeyframeRequest = { keyframeRequests += 1 }
        var gate = ReanchorGate()
        var shown: [(index: Int, frame: DecodedFrame)] = []
        var held: [Int] = []
        var now: UInt64 = 0
        for (i, au) in try admitted(losing: 18...19) {
            now += 16_666_667
            if i == anchor { gate.arm(.frameLoss, now: now) }
            let report = ladder.decodeReporting(accessUnit: au, pts: Int64(i))
            #expect(!report.failed && !report.skipped)
            for (k, picture) in report.pictures.enumerated() {
                guard case .cpu(let frame) = picture else { continue }
                let flags: UInt32 = Int(frame.pts) == anchor ? LossAsks.recoveryAnchorFlag : 0
                if gate.decoded(userFlags: flags, damaged: report.isDamaged(k), now: now) == .show {
                    shown.append((Int(frame.pts), frame))
                } else {
                    held.append(Int(frame.pts))
                }
            }
        }
        for case .cpu(let frame) in ladder.flush() { shown.append((Int(frame.pts), frame)) }
        #expect(keyframeRequests == 0)
        #expect(held.isEmpty && gate.lifts == 1 && gate.lastLift == .anchor)
        let after = shown.filter { $0.index >= anchor }
        #expect(after.first?.index == anchor, "the anchor is the first picture shown after the loss")
        #expect(after.map(\.index) == Array(anchor..<frames))
        let clean = try cleanChecksums()
        let ours = after.map { checksums([FrameMD5.line(index: Int64($0.index), frame: $0.frame)])[0] }
        #expect(ours == Array(clean[anchor...]))
    }
}
