import CVA
import FFmpegOracle
import Foundation
import HEVC
import Testing
import VideoDecode

/// The VA-API rung against libavcodec's own VA-API hwaccel — the path `ffmpeg -hwaccel vaapi`,
/// mpv and Kodi drive real Intel and AMD GPUs with — on every stream of the HEVC corpus. Both
/// decode through the VA recording driver (a test fake: it decodes nothing), and their records
/// are compared buffer by buffer, field by field (`VABufferComparison`). Before that, each stream
/// decodes bit-exact in the software rung against ffmpeg's own framemd5.
@Suite("VA-API rung vs libavcodec's VA-API hwaccel, buffer by buffer")
struct VAAPIOracleTests {
    static let skipReason: Comment = "needs ffmpeg with libx265, cc, and the libavcodec/libavutil/libva -dev headers"

    @Test(.enabled(if: FFmpeg.isAvailable && VARecordingDriver.isAvailable, skipReason))
    func theCorpusAndTheOracleAreThere() throws {
        let streams = try VAAPIOracle.corpus.get()
        _ = try VAAPIOracle.binary.get()
        // Every stream of the manifest is compared: a stream added to hevc-corpus.sh goes into
        // VAAPIOracle.names too.
        #expect(streams.map(\.name) == VAAPIOracle.names)
        for s in streams { #expect(FileManager.default.fileExists(atPath: s.path), "\(s.path)") }
    }

    @Test(.enabled(if: VAAPIOracle.canRun, skipReason), arguments: VAAPIOracle.names)
    func buffersMatchLibavcodec(_ name: String) throws {
        let stream = try VAAPIOracle.stream(name)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stream.path)))

        // 1. The stream decodes bit-exact: the software rung's frames hash as ffmpeg's do.
        let reference = try Self.framemd5(stream.path, bytes: bytes)
        let (frames, errors) = try decodeAll(bytes)
        #expect(errors.isEmpty, "\(errors)")
        let ours = checksums(frames.enumerated().map { FrameMD5.line(index: Int64($0.offset), frame: $0.element) })
        try #require(!reference.isEmpty && ours == reference, "software rung vs ffmpeg framemd5")

        // 2. libavcodec's VA-API hwaccel and 3. the VA-API rung, each on its own recording device.
        let oracle = try VAAPIOracle.record(stream.path)
        #expect(oracle.frames == reference.count, "libavcodec output \(oracle.frames) of \(reference.count) pictures")
        let device = VARecordingDriver.Device()
        let kiosk = try VAAPIRecordingTests.decode(bytes, device: device)
        #expect(kiosk.frames == reference.count, "the rung output \(kiosk.frames) of \(reference.count) pictures")

        // 4. Buffer by buffer.
        let libav = VARecording(oracle.record)
        let comparison = VABufferComparison(kiosk: VARecording(kiosk.record), libavcodec: libav,
                                            pictureExceptions: LibavcodecQuirks.picture,
                                            sliceExceptions: LibavcodecQuirks.slice,
                                            sliceDataException: LibavcodecQuirks.sliceData)
        #expect(!libav.pictures.isEmpty, "libavcodec submitted no picture")
        let differences = comparison.differences.count
        #expect(differences == 0, "\(stream.name) (\(stream.what)):\n\(Self.summary(comparison.differences))")
    }

    /// Damaged corpus streams (bytes flipped through parameter sets and slice headers, access
    /// units cut short): the rung throws or warns, never traps, and decodes the undamaged stream
    /// again afterwards.
    @Test(.enabled(if: VAAPIOracle.canRun, skipReason),
          arguments: ["scaling-custom", "size-depth-change", "open-gop", "weighted-b-fade"])
    func damagedStreamsNeverTrap(_ name: String) throws {
        let stream = try VAAPIOracle.stream(name)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stream.path)))
        let aus = AccessUnitSplitter.split(bytes)
        let decoder = try VAAPIDecoder(connection: VARecordingDriver.Device().connect())
        var errors = 0
        for seed in 0..<4 {
            for (i, var au) in aus.enumerated() {
                switch (i + seed) % 3 {
                case 0: for k in stride(from: 4 + seed, to: min(au.count, 200), by: 5 + seed) { au[k] ^= UInt8(0x21 << (seed % 3)) }
                case 1: au = Array(au.prefix(max(4, au.count / (2 + seed))))
                default: break
                }
                do {
                    for f in try decoder.decode(accessUnit: au, pts: Int64(i)).pictures { f.lease.release() }
                } catch { errors += 1 }
            }
        }
        #expect(errors > 0, "damage went unnoticed")
        decoder.restart()
        var pictures = 0
        for (i, au) in aus.enumerated() {
            let out = try decoder.decode(accessUnit: au, pts: Int64(i))
            pictures += out.pictures.count
            for f in out.pictures { f.lease.release() }
        }
        for f in try decoder.flush().pictures { pictures += 1; f.lease.release() }
        #expect(pictures > 0)
    }

    /// ffmpeg's framemd5 checksums of a stream. ffmpeg converts every frame to the first frame's
    /// pixel format, so a stream whose bit depth changes is hashed one coded video sequence at a
    /// time (split before each VPS).
    static func framemd5(_ path: String, bytes: [UInt8]) throws -> [String] {
        func run(_ file: String) throws -> [String] {
            let md5 = try FFmpeg.run(["-hide_banner", "-v", "error", "-i", file, "-autoscale", "0", "-f", "framemd5", "-"])
            guard md5.status == 0 else { throw VAAPIOracle.Failure(description: "ffmpeg framemd5: \(md5.stderr)") }
            return checksums(md5.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty })
        }
        let formats = try FFmpeg.run(["-v", "error", "-select_streams", "v", "-show_entries", "frame=pix_fmt", "-of", "csv=p=0", path],
                                     tool: "ffprobe")
        guard Set(formats.stdout.split(separator: "\n")).count > 1 else { return try run(path) }
        // Each VPS's start code (00 00 01, with a leading zero_byte when there is one).
        let starts = AnnexB.nalUnitRanges(in: bytes).filter { bytes[$0.lowerBound] >> 1 & 0x3F == 32 }.map { r in
            let three = max(0, r.lowerBound - 3)
            return three > 0 && bytes[three - 1] == 0 ? three - 1 : three
        }
        var out: [String] = []
        for (k, start) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] : bytes.count
            let part = FileManager.default.temporaryDirectory.appendingPathComponent("cvs-\(UUID().uuidString).hevc")
            try Data(bytes[(k == 0 ? 0 : start)..<end]).write(to: part)
            defer { try? FileManager.default.removeItem(at: part) }
            out += try run(part.path)
        }
        return out
    }

    /// The differences grouped by field: count, first occurrence.
    static func summary(_ differences: [VABufferComparison.Difference]) -> String {
        var order: [String] = []
        var byField: [String: [VABufferComparison.Difference]] = [:]
        for d in differences {
            if byField[d.field] == nil { order.append(d.field) }
            byField[d.field, default: []].append(d)
        }
        return order.map { f in
            let ds = byField[f]!
            return "  \(f) ×\(ds.count), first: \(ds[0])"
        }.joined(separator: "\n")
    }
}

/// Fields where libavcodec 5.1's VA-API hwaccel (Debian 12's) does not send what the bitstream
/// says, each with the reason; the kiosk's value is judged against the bitstream instead
/// (docs/architecture.md, "The VA-API rung against libavcodec").
enum LibavcodecQuirks {
    static func zero(_ v: [Int64]) -> String? { v.allSatisfy { $0 == 0 } ? nil : "must be 0" }
    static func pcmOff(_ p: VAPictureParameterBufferHEVC) -> Bool { p.pic_fields.bits.pcm_enabled_flag == 0 }

    static let picture: [VABufferComparison.PictureException] = [
        // vaapi_hevc.c fills these from its SPS's PCM fields whether or not PCM is on; with
        // pcm_enabled_flag 0 they are absent from the SPS (zero in libavcodec's context), so it
        // sends 0 − 1 = 255 and 0 − 3 = 253. The kiosk sends 0: no such element was coded.
        .init(field: "pcm_sample_bit_depth_luma_minus1", reason: "PCM off: libavcodec sends pcm.bit_depth − 1 of an absent element",
              applies: pcmOff, check: zero),
        .init(field: "pcm_sample_bit_depth_chroma_minus1", reason: "PCM off: libavcodec sends pcm.bit_depth_chroma − 1 of an absent element",
              applies: pcmOff, check: zero),
        .init(field: "log2_min_pcm_luma_coding_block_size_minus3", reason: "PCM off: libavcodec sends log2_min_pcm_cb_size − 3 of an absent element",
              applies: pcmOff, check: zero),
        // vaapi_hevc.c builds the IQ matrix in an uninitialised stack struct and never writes
        // va_reserved: whatever was on its stack. The kiosk zeroes it (va_dec_hevc.h: reserved).
        .init(field: "IQ va_reserved", reason: "libavcodec leaves the IQ matrix's reserved words uninitialised",
              applies: { _ in true }, check: zero),
    ]

    static let slice: [VABufferComparison.SliceException] = [
        // libavcodec's NAL splitter keeps the first zero of the next 4-byte start code at the end
        // of a NAL unit (H.265 B.2: a trailing_zero_8bits / the zero_byte of the next start
        // code), so its slice_data_size counts it. The kiosk sends the NAL unit alone.
        .init(field: "slice_data_size", reason: "libavcodec counts the next start code's zero_byte",
              check: { v, site in v == [Int64(site.kiosk.data.count)] ? nil : "≠ the \(site.kiosk.data.count) bytes sent" }),
        // hevcdec.c reads slice_temporal_mvp_enabled_flag only for non-IDR pictures and does not
        // reset it for an IDR one, so an IDR after other pictures carries the previous slice's
        // value (and vaapi_hevc.c then sends that slice's collocated_ref_idx, not 0xFF). Not
        // present in an IDR slice header, the flag is inferred 0 (H.265 7.4.7.1); an IDR's slices
        // are all intra, so TMVP is unused either way.
        .init(field: "slice_temporal_mvp_enabled_flag", reason: "libavcodec keeps the previous slice's value on an IDR picture",
              applies: isIDR, check: { v, _ in zero(v) }),
        .init(field: "collocated_ref_idx", reason: "libavcodec sends the previous slice's on an IDR picture (TMVP off: 0xFF)",
              applies: isIDR, check: { v, _ in v == [0xFF] ? nil : "must be 0xFF (TMVP off)" }),
        // collocated_from_l0_flag is coded only in B slices with TMVP on; elsewhere it is inferred 1
        // (7.4.7.1). hevcdec.c sets collocated_list only when it is coded, so vaapi_hevc.c sends the
        // previous slice's. Where it is not coded no collocated picture is used.
        .init(field: "collocated_from_l0_flag", reason: "libavcodec keeps the previous slice's value where the flag is not coded",
              applies: { site in
                  let f = site.kiosk.parameters.LongSliceFlags.fields
                  return f.slice_type != 0 || f.slice_temporal_mvp_enabled_flag == 0
              },
              check: { v, _ in v == [1] ? nil : "must be 1 (inferred)" }),
    ]

    static func isIDR(_ site: VABufferComparison.SliceSite) -> Bool {
        site.kioskPicture.parameters.slice_parsing_fields.bits.IdrPicFlag == 1
    }

    /// The slice data: libavcodec's may end in zero bytes the kiosk's lacks (above); otherwise equal.
    static let sliceData: (@Sendable (VABufferComparison.SliceSite) -> String?)? = { site in
        let k = site.kiosk.data, l = site.libavcodec.data
        guard l.count >= k.count, Array(l.prefix(k.count)) == k, l.dropFirst(k.count).allSatisfy({ $0 == 0 }) else {
            return "\(k.count) bytes, not libavcodec's \(l.count) less trailing zero bytes"
        }
        guard k.last != 0 else { return "the kiosk's NAL unit ends in a zero byte" }
        return nil
    }
}
