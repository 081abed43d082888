import Foundation
import Testing
@testable import VideoDecode

/// The ladder's V4L2 rung where there is no V4L2 decoder: an x86 box behaves as before.
@Suite("Decoder ladder: the V4L2 rung without hardware")
struct V4L2LadderTests {
    /// Absent hardware is skipped without a warning while a later rung remains.
    @Test func absentDecoderIsSkippedSilently() {
        var warnings: [String] = []
        let ladder = DecoderLadder(configuration: .init(rungs: [.v4l2, .software],
                                                        chooseV4L2Device: { throw V4L2Error.noDecoder("no media controller device (/dev/media*)") }))
        ladder.onWarning = { warnings.append($0) }
        #expect(ladder.activeRung == .software)
        #expect(ladder.unavailableRungs.isEmpty)
        #expect(ladder.absentRungs.map(\.rung) == [.v4l2])
        #expect(ladder.absentRungs.first?.reason == "no V4L2 stateless HEVC decoder: no media controller device (/dev/media*)")
        #expect(warnings.isEmpty)
    }

    /// Asked for alone, the rung is unavailable with the reason (nothing else could decode).
    @Test func theOnlyRungReportsWhy() {
        let ladder = DecoderLadder(configuration: .init(rungs: [.v4l2], chooseV4L2Device: { throw V4L2Error.noDecoder("none found") }))
        #expect(ladder.activeRung == nil)
        #expect(ladder.unavailableRungs.map(\.reason) == ["no V4L2 stateless HEVC decoder: none found"])
        #expect(ladder.decode(accessUnit: [0, 0, 1, 0x40, 0x01], pts: 0).isEmpty)
    }

    /// A decoder that exists but fails to open is a warning, not silence.
    @Test func aDecoderThatDoesNotOpenIsUnavailable() {
        let ladder = DecoderLadder(configuration: .init(rungs: [.v4l2, .software],
                                                        chooseV4L2Device: { throw V4L2Error.device("open /dev/video0", errno: EACCES) }))
        #expect(ladder.activeRung == .software)
        #expect(ladder.unavailableRungs.map(\.rung) == [.v4l2])
        #expect(ladder.unavailableRungs.first?.reason.contains("Permission denied") == true)
    }

    /// A stream the driver cannot take, or controls it refuses, demote at once; a failed picture
    /// waits for the error window; absent hardware is not an error of the stream.
    @Test func whichErrorsDemoteAtOnce() {
        #expect(DecoderLadder.rungCannotDecodeStream(V4L2Error.unsupportedStream("10-bit columns")))
        #expect(DecoderLadder.rungCannotDecodeStream(V4L2Error.controlsRefused("the HEVC SPS control", errno: EINVAL)))
        #expect(!DecoderLadder.rungCannotDecodeStream(V4L2Error.decodeFailed("the driver flagged the picture")))
        #expect(DecoderLadder.rungHardwareAbsent(V4L2Error.noDecoder("none")))
        #expect(!DecoderLadder.rungHardwareAbsent(V4L2Error.device("open /dev/video0", errno: EACCES)))
    }

    /// `auto` means VA-API, then V4L2, then software.
    @Test func automaticOrder() {
        #expect(DecoderRungKind.automatic == [.vaapi, .v4l2, .software])
        #expect(DecoderLadder.Configuration().rungs == DecoderRungKind.automatic)
    }
}
