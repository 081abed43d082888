import ArgumentParser
import Foundation
import HEVC
import VideoDecode

/// `punktfunk-kiosk decode FILE`: decodes an Annex-B HEVC file through the decoder ladder and,
/// with `--framemd5`, prints the lines `ffmpeg -autoscale 0 -i FILE -f framemd5 -` prints (the
/// same as plain `ffmpeg -f framemd5` unless the resolution changes mid-stream, where ffmpeg
/// would scale to the first size). Planner and decoder warnings go to stderr.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an Annex-B HEVC file; --framemd5 prints output diffable with `ffmpeg -f framemd5`.")

    enum Rung: String, ExpressibleByArgument, CaseIterable { case auto, vaapi, software }

    @Argument(help: "Annex-B HEVC elementary stream (.hevc / .h265).") var file: String
    @Option(help: "Decoder rung: auto, vaapi or software.") var rung: Rung = .auto
    @Flag(help: "Print one MD5 line per output frame, in ffmpeg's framemd5 format.") var framemd5 = false

    func run() throws {
        if rung == .vaapi {
            warn("VA-API rung not available yet")
            throw ExitCode(2)
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            warn("cannot read \(file)")
            throw ExitCode(1)
        }
        let stream = [UInt8](data)
        let accessUnits = AccessUnitSplitter.split(stream)
        let decoder: SoftwareDecoder
        do { decoder = try SoftwareDecoder() } catch {
            warn("software rung: \(error)")
            throw ExitCode(1)
        }

        var parser = HEVCParser()
        var planner = DecodePlanner()
        var timeBase: (num: Int, den: Int)?
        var headerPrinted = false
        var outputIndex: Int64 = 0
        var errors = 0

        func emit(_ frames: [DecodedFrame]) {
            for frame in frames {
                if framemd5 {
                    if !headerPrinted {
                        headerPrinted = true
                        for line in FrameMD5.header(width: frame.visibleWidth, height: frame.visibleHeight,
                                                    timeBase: timeBase ?? (1, 25)) { print(line) }
                    }
                    print(FrameMD5.line(index: outputIndex, frame: frame))
                }
                outputIndex += 1
            }
        }

        for (index, au) in accessUnits.enumerated() {
            var units: [HEVCParser.ParsedNALUnit] = []
            for nal in AnnexB.nalUnits(in: au) {
                do throws(HEVCError) {
                    let unit = try parser.parseNALUnit(nal)
                    if timeBase == nil, case .sps(let sps) = unit.payload { timeBase = FrameMD5.timeBase(of: sps) }
                    units.append(unit)
                } catch {
                    warn("access unit \(index): NAL unit not parsed: \(error)")
                }
            }
            for warning in planner.plan(units).warnings { warn("access unit \(index): \(warning)") }
            do {
                emit(try decoder.decode(accessUnit: au, pts: Int64(index)))
            } catch {
                errors += 1
                warn("access unit \(index): \(error)")
            }
        }
        for warning in planner.finish().warnings { warn("end of stream: \(warning)") }
        emit(decoder.flush())
        if !framemd5 {
            print("\(accessUnits.count) access units, \(outputIndex) frames decoded (software rung), \(errors) errors")
        }
        if errors > 0 { throw ExitCode(1) }
    }

    private func warn(_ message: String) {
        FileHandle.standardError.write(Data("decode: \(message)\n".utf8))
    }
}
