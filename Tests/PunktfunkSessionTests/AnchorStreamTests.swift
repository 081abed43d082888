import Foundation
import Testing
import FFmpegOracle
import HEVC
import PunktfunkTestHost
import PunktfunkWire

/// The synthetic HEVC encoder of the test host (`AnchorStream`), with libavcodec (the ffmpeg CLI)
/// as the oracle: its streams decode cleanly, its motion is real, and its RFI anchors are honest —
/// a client that lost the invalidated frames decodes the anchor and everything after it exactly
/// like one that did not.
@Suite struct AnchorStreamTests {
    static let noFFmpeg: Comment = "needs the ffmpeg CLI"

    /// Frames `frames` of a stream, with `hook` called before each frame (to ask for RFIs).
    static func generate(_ configuration: AnchorStream.Configuration = .init(), frames: [UInt32],
                         before hook: (UInt32, inout AnchorStream) -> Void = { _, _ in }) -> [AnchorStream.Frame] {
        var stream = AnchorStream(configuration: configuration)
        return frames.map { f in
            hook(f, &stream)
            return stream.next(frame: f)
        }
    }

    static func write(_ frames: [AnchorStream.Frame]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("anchor-\(UUID().uuidString).hevc")
        try Data(frames.flatMap(\.bytes)).write(to: url)
        return url
    }

    /// `ffmpeg -xerror -f framemd5` at log level warning: the per-picture MD5s and stderr.
    static func decodeMD5(_ frames: [AnchorStream.Frame]) throws -> (md5: [String], stderr: String, status: Int32) {
        let url = try write(frames)
        defer { try? FileManager.default.removeItem(at: url) }
        let out = try FFmpeg.run(["-hide_banner", "-nostats", "-loglevel", "warning", "-xerror", "-i", url.path,
                                  "-f", "framemd5", "-"])
        let md5 = out.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        return (md5, out.stderr, out.status)
    }

    /// The decoded luma planes (ffmpeg rawvideo gray), one per picture.
    static func decodeLuma(_ frames: [AnchorStream.Frame], width: Int, height: Int) throws -> [[UInt8]] {
        let url = try write(frames)
        let raw = url.appendingPathExtension("gray")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: raw)
        }
        let out = try FFmpeg.run(["-hide_banner", "-nostats", "-loglevel", "error", "-y", "-i", url.path,
                                  "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        #expect(out.status == 0, "\(out.stderr)")
        let bytes = [UInt8](try Data(contentsOf: raw))
        let size = width * height
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
    }

    /// The slice segment headers of the trace, and sps_max_dec_pic_buffering_minus1.
    static func trace(_ frames: [AnchorStream.Frame]) throws -> (slices: [HeaderTrace.Unit], maxDecPicBufferingMinus1: Int64) {
        let url = try write(frames)
        defer { try? FileManager.default.removeItem(at: url) }
        let units = HeaderTrace.parse(try FFmpeg.traceHeaders(of: url.path))
        let sps = try #require(units.first { $0.nalUnitType == 33 })
        return (units.filter { $0.nalUnitType < 32 }, try #require(sps["sps_max_dec_pic_buffering_minus1[0]"]))
    }

    // MARK: 1. A plain stream decodes cleanly and says what we wrote

    @Test(.enabled(if: FFmpeg.path != nil, noFFmpeg))
    func aStreamWithAPeriodicIDRDecodesCleanly() throws {
        var config = AnchorStream.Configuration()
        config.idrInterval = 60
        let frames = Self.generate(config, frames: Array(0..<120))
        #expect(frames.map(\.kind).filter { $0 == .idr }.count == 2)
        #expect(frames[0].kind == .idr && frames[60].kind == .idr && frames[0].userFlags == 0x04)
        #expect(frames[1].kind == .predicted && frames[1].userFlags == 0)

        let decoded = try Self.decodeMD5(frames)
        #expect(decoded.status == 0)
        #expect(decoded.stderr.isEmpty, "\(decoded.stderr)")
        #expect(decoded.md5.count == 120)
        #expect(Set(decoded.md5).count == 120)            // every picture moved

        let (slices, maxDecMinus1) = try Self.trace(frames)
        #expect(maxDecMinus1 == Int64(config.checkpointsKept + 1))
        try #require(slices.count == 120)
        for (i, slice) in slices.enumerated() {
            let poc = i % 60
            if poc == 0 {
                #expect(slice.nalUnitType == 19 && slice["slice_type"] == 2, "frame \(i)")
                continue
            }
            #expect(slice.nalUnitType == 1 && slice["slice_type"] == 1, "frame \(i)")
            #expect(slice["slice_pic_order_cnt_lsb"] == Int64(poc), "frame \(i)")
            #expect(slice["five_minus_max_num_merge_cand"] == 4)
            // The previous picture plus the newest 12 checkpoints (POC multiples of 8) before it.
            let checkpoints = min((poc - 1) / 8 + 1, config.checkpointsKept)
            let expected = checkpoints + ((poc - 1) % 8 == 0 ? 0 : 1)
            #expect(slice["num_negative_pics"] == Int64(expected), "frame \(i)")
            #expect(slice["used_by_curr_pic_s0_flag[0]"] == 1 && slice["delta_poc_s0_minus1[0]"] == 0, "frame \(i)")
            #expect(slice["num_negative_pics"]! <= maxDecMinus1)
        }
    }

    @Test(.enabled(if: FFmpeg.path != nil, noFFmpeg))
    func fillerStaysInsideItsAccessUnit() throws {
        var config = AnchorStream.Configuration()
        config.paddingBytes = 1500
        let frames = Self.generate(config, frames: Array(0..<20))
        #expect(frames[3].bytes.count > 1500)
        let split = AccessUnitSplitter.split(frames.flatMap(\.bytes))
        #expect(split == frames.map(\.bytes))
        let decoded = try Self.decodeMD5(frames)
        #expect(decoded.stderr.isEmpty, "\(decoded.stderr)")
        #expect(decoded.md5 == (try Self.decodeMD5(Self.generate(frames: Array(0..<20)))).md5)
    }

    // MARK: 2. Motion is real

    @Test(.enabled(if: FFmpeg.path != nil, noFFmpeg))
    func everyPictureIsItsPredecessorMovedByTwoSamples() throws {
        let config = AnchorStream.Configuration()
        let (w, h) = (config.width, config.height)
        let frames = Self.generate(config, frames: Array(0..<100))
        let luma = try Self.decodeLuma(frames, width: w, height: h)
        try #require(luma.count == 100)
        var position = (x: 0, y: 0)
        for n in 1..<luma.count {
            // The displacements (even, |d| ≤ 4) under which picture n is picture n − 1 moved.
            var fits: [(Int, Int)] = []
            for dy in stride(from: -4, through: 4, by: 2) {
                for dx in stride(from: -4, through: 4, by: 2) {
                    var same = true
                    outer: for y in 4..<h - 4 {
                        for x in 4..<w - 4 where luma[n][y * w + x] != luma[n - 1][(y + dy) * w + x + dx] {
                            same = false
                            break outer
                        }
                    }
                    if same { fits.append((dx, dy)) }
                }
            }
            try #require(fits.count == 1, "frame \(n): \(fits)")
            #expect(abs(fits[0].0) == 2 && abs(fits[0].1) == 2, "frame \(n)")
            position.x += fits[0].0
            position.y += fits[0].1
            #expect(abs(position.x) <= 48 && abs(position.y) <= 48)
        }
    }

    // MARK: 3. Honest anchors

    /// Frames `base`…`base + count − 1`; `first…last` (offsets from `base`) invalidated after
    /// frame `last + k`. A second decoder never sees `first`…(anchor − 1). From the anchor on,
    /// both decode the same pictures.
    func honesty(base: UInt32, count: UInt32, first: UInt32, last: UInt32, k: UInt32,
                 expectedReference: UInt32) throws {
        let anchor = last + k + 1
        var answered: Bool?
        let frames = Self.generate(frames: (0..<count).map { base &+ $0 }) { f, stream in
            if f == base &+ anchor { answered = stream.invalidate(first: base &+ first, last: base &+ last) }
        }
        #expect(answered == true)
        #expect(frames[Int(anchor)].kind == .anchor(reference: base &+ expectedReference))
        #expect(frames[Int(anchor)].userFlags == 0x20)
        #expect(frames[Int(anchor) + 1].kind == .predicted)

        let full = try Self.decodeMD5(frames)
        let withheld = Array(frames[..<Int(first)] + frames[Int(anchor)...])
        let lossy = try Self.decodeMD5(withheld)
        #expect(full.stderr.isEmpty && lossy.stderr.isEmpty, "\(full.stderr) \(lossy.stderr)")
        try #require(full.md5.count == Int(count) && lossy.md5.count == withheld.count)
        #expect(Array(full.md5[Int(anchor)...]) == Array(lossy.md5[Int(first)...]))
        #expect(Array(full.md5[..<Int(first)]) == Array(lossy.md5[..<Int(first)]))

        let (slices, maxDecMinus1) = try Self.trace(frames)
        #expect(slices.allSatisfy { ($0["num_negative_pics"] ?? 0) <= maxDecMinus1 })
        // The anchor keeps only clean checkpoints and uses the chosen one.
        let a = slices[Int(anchor)]
        #expect(a["used_by_curr_pic_s0_flag[0]"] == 1)
        #expect(a["delta_poc_s0_minus1[0]"] == Int64(anchor - expectedReference - 1))
    }

    @Test(.enabled(if: FFmpeg.path != nil, noFFmpeg))
    func anAnchorDecodesTheSameWithoutTheLostFrames() throws {
        try honesty(base: 0, count: 100, first: 50, last: 52, k: 3, expectedReference: 48)
    }

    @Test(.enabled(if: FFmpeg.path != nil, noFFmpeg))
    func anAnchorSkipsCheckpointsInsideTheLoss() throws {
        // 72 and 80 are checkpoints sent after the loss began: tainted, so 64 it is.
        try honesty(base: 0, count: 120, first: 70, last: 81, k: 2, expectedReference: 64)
    }

    @Test(.enabled(if: FFmpeg.path != nil, noFFmpeg))
    func anAnchorAcrossTheFrameIndexWrap() throws {
        try honesty(base: UInt32.max - 39, count: 90, first: 42, last: 44, k: 5, expectedReference: 40)
    }

    @Test func anRFIWithoutACleanCheckpointBecomesAnIDR() {
        // The loss starts at the stream's first frame: no checkpoint before it.
        var calls: [Bool] = []
        let a = Self.generate(frames: Array(0..<12)) { f, s in
            if f == 6 { calls.append(s.invalidate(first: 0, last: 3)) }
        }
        #expect(calls == [false] && a[6].kind == .idr && a[6].userFlags == 0x04 && a[7].kind == .predicted)
        // After a periodic IDR at 60, a loss from 58 leaves only the tainted IDR's chain.
        var config = AnchorStream.Configuration()
        config.idrInterval = 60
        let b = Self.generate(config, frames: Array(0..<70)) { f, s in
            if f == 63 { calls.append(s.invalidate(first: 58, last: 61)) }
        }
        #expect(calls == [false, false] && b[63].kind == .idr)
        // A keyframe ask wins over a pending anchor.
        let c = Self.generate(frames: Array(0..<30)) { f, s in
            if f == 20 {
                calls.append(s.invalidate(first: 18, last: 18))
                s.forceKeyframe()
            }
        }
        #expect(calls == [false, false, true] && c[20].kind == .idr && c[21].kind == .predicted)
    }

    @Test(.enabled(if: FFmpeg.path != nil, noFFmpeg))
    func randomRFIsAndKeyframeAsksKeepTheStreamDecodable() throws {
        var rng = SplitMix64(seed: 7)
        var config = AnchorStream.Configuration()
        config.checkpointEvery = 4
        config.checkpointsKept = 6
        config.width = 128
        config.height = 64
        var kinds: [String: Int] = [:]
        var answered: [(first: Int, anchor: Int)] = []
        let frames = Self.generate(config, frames: Array(0..<400)) { f, s in
            let roll = rng.next() % 100
            if roll < 8 && f > 2 {
                let back = UInt32(rng.next() % 40) + 1
                let first = f &- min(back, f), last = first &+ UInt32(rng.next() % 5)
                if s.invalidate(first: first, last: min(last, f &- 1)) { answered.append((Int(first), Int(f))) }
            } else if roll == 99 {
                s.forceKeyframe()
            }
        }
        for frame in frames { kinds["\(frame.kind)".components(separatedBy: "(").first!, default: 0] += 1 }
        #expect(kinds["anchor", default: 0] > 5)
        let decoded = try Self.decodeMD5(frames)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
        #expect(decoded.md5.count == frames.count)
        let (slices, maxDecMinus1) = try Self.trace(frames)
        #expect(maxDecMinus1 == 7)
        #expect(slices.allSatisfy { ($0["num_negative_pics"] ?? 0) <= maxDecMinus1 })
        print("AnchorStream random RFIs: \(kinds)")
        // Each anchor is honest: without its lost frames the rest of the stream decodes the same.
        #expect(answered.count == kinds["anchor"])
        for (first, anchor) in answered {
            guard case .anchor(let reference) = frames[anchor].kind else {
                Issue.record("frame \(anchor) answers an RFI but is \(frames[anchor].kind)")
                continue
            }
            #expect(reference < UInt32(first), "anchor \(anchor) predicts from \(reference), lost from \(first)")
            let lossy = try Self.decodeMD5(Array(frames[..<first] + frames[anchor...]))
            #expect(lossy.stderr.isEmpty, "anchor \(anchor): \(lossy.stderr)")
            #expect(Array(lossy.md5[first...]) == Array(decoded.md5[anchor...]), "anchor \(anchor) after losing \(first)…")
        }
    }

    // MARK: 4. Cost

    @Test func sizesOfIDRPredictedAndAnchorPictures() {
        let frames = Self.generate(frames: Array(0..<60)) { f, s in
            if f == 40 { s.invalidate(first: 35, last: 37) }
        }
        let p = frames.filter { $0.kind == .predicted }.map(\.bytes.count)
        let anchor = frames.first { if case .anchor = $0.kind { true } else { false } }
        print("AnchorStream 320x192 sizes: IDR \(frames[0].bytes.count) B (with VPS/SPS/PPS), "
              + "P \(p.min()!)…\(p.max()!) B, anchor \(anchor?.bytes.count ?? -1) B")
        #expect(frames[0].bytes.count > 320 * 192 * 3 / 2)
        #expect(anchor != nil)
    }
}
