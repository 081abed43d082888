import ArgumentParser
import Foundation
import HEVC
import VideoDecode
import VideoFrames

/// `punktfunk-kiosk decode FILE`: decodes an Annex-B HEVC file through the decoder ladder the
/// session uses and, with `--framemd5`, prints the lines `ffmpeg -autoscale 0 -i FILE -f
/// framemd5 -` prints (the same as plain `ffmpeg -f framemd5` unless the resolution changes
/// mid-stream, where ffmpeg would scale to the first size). GPU pictures are read back for the
/// checksum. Warnings, keyframe requests and demotions go to stderr.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an Annex-B HEVC file; --framemd5 prints output diffable with `ffmpeg -f framemd5`.")

    enum Rung: String, ExpressibleByArgument, CaseIterable {
        case auto, vaapi, v4l2, software

        var ladder: [DecoderRungKind] {
            switch self {
            case .auto: DecoderRungKind.automatic
            case .vaapi: [.vaapi]
            case .v4l2: [.v4l2]
            case .software: [.software]
            }
        }
    }

    @Argument(help: "Annex-B HEVC elementary stream (.hevc / .h265).") var file: String
    @Option(help: "Decoder rung: auto (VA-API, then V4L2 stateless, then libavcodec), vaapi, v4l2 or software.") var rung: Rung = .auto
    @Option(help: "V4L2 stateless decoder video node to use (default: the first that is not a virtual test driver; a virtual one such as visl only when named here).")
    var v4l2Device: String?
    @Flag(help: "Print one MD5 line per output frame, in ffmpeg's framemd5 format.") var framemd5 = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            warn("cannot read \(file)")
            throw ExitCode(1)
        }
        let stream = [UInt8](data)
        let accessUnits = AccessUnitSplitter.split(stream)
        let device = v4l2Device
        let ladder = DecoderLadder(configuration: .init(rungs: rung.ladder,
                                                        chooseV4L2Device: { try V4L2Decoders.choose(path: device) }))
        for (kind, reason) in ladder.unavailableRungs { warn("\(kind.rawValue) rung unavailable: \(reason)") }
        guard let started = ladder.activeRung else {
            warn("no \(rung.rawValue) decoder rung could start")
            throw ExitCode(2)
        }
        ladder.onWarning = { warn($0) }
        var keyframeRequests = 0
        ladder.onKeyframeRequest = { keyframeRequests += 1 }

        let timeBase = Self.timeBase(of: stream)
        var headerPrinted = false
        var outputIndex: Int64 = 0
        var readbackFailures = 0
        var hdr: HDRStaticMetadata?

        func emit(_ pictures: [DecodedPicture]) {
            for picture in pictures {
                defer { picture.release() }
                if case .cpu(let f) = picture, let m = f.hdr { hdr = m }
                if framemd5 {
                    let frame: DecodedFrame
                    switch picture {
                    case .cpu(let f): frame = f
                    case .dmaBuf(let f):
                        do { frame = try f.readPixels() } catch {
                            readbackFailures += 1
                            warn("picture \(outputIndex): read-back failed: \(error)")
                            outputIndex += 1
                            continue
                        }
                    }
                    if !headerPrinted {
                        headerPrinted = true
                        for line in FrameMD5.header(width: frame.visibleWidth, height: frame.visibleHeight,
                                                    timeBase: timeBase) { print(line) }
                    }
                    print(FrameMD5.line(index: outputIndex, frame: frame))
                }
                outputIndex += 1
            }
        }

        for (index, au) in accessUnits.enumerated() {
            emit(ladder.decode(accessUnit: au, pts: Int64(index)))
        }
        emit(ladder.flush())
        if !framemd5 {
            let rungs = (ladder.demotions.map(\.from) + [ladder.activeRung ?? started]).map(\.rawValue).joined(separator: " → ")
            print("\(accessUnits.count) access units, \(outputIndex) frames decoded (\(rungs) rung), "
                  + "\(ladder.errorCount) errors, \(keyframeRequests) keyframe requests"
                  + (hdr.map { ", static HDR metadata \($0)" } ?? ""))
        }
        if ladder.errorCount > 0 || readbackFailures > 0 { throw ExitCode(1) }
    }

    /// ffmpeg's framemd5 time base from the first SPS of the stream (1/25 without VUI timing).
    static func timeBase(of stream: [UInt8]) -> (num: Int, den: Int) {
        var parser = HEVCParser()
        for range in AnnexB.nalUnitRanges(in: stream) where stream[range.lowerBound] >> 1 & 0x3F <= 33 {
            let type = stream[range.lowerBound] >> 1 & 0x3F
            guard type == 32 || type == 33 else { continue }
            if case .sps(let sps)? = try? parser.parseNALUnit(Array(stream[range])).payload { return FrameMD5.timeBase(of: sps) }
        }
        return (1, 25)
    }
}

private func warn(_ message: String) {
    FileHandle.standardError.write(Data("decode: \(message)\n".utf8))
}
