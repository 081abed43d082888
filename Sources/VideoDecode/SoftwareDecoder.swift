internal import CAVCodec
import Foundation
import HEVC
import VideoFrames

/// Why a decoder rung failed. Every failure on bad input is one of these, never a trap.
public enum DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libavcodec has no HEVC decoder.
    case decoderUnavailable
    /// An allocation in libavcodec failed.
    case allocationFailed
    /// `avcodec_open2` failed with this AVERROR code.
    case openFailed(code: Int32)
    /// The access unit was rejected (`avcodec_send_packet`, AVERROR code); the decoder stays
    /// usable and the next IRAP picture recovers.
    case invalidData(code: Int32)
    /// Decoding a picture failed (`avcodec_receive_frame`, AVERROR code).
    case decodeFailed(code: Int32)
    /// The stream decodes to a layout other than 8-bit or 10-bit 4:2:0 (name from libavutil).
    case unsupportedPixelFormat(String)
    /// An access unit larger than libavcodec accepts (bytes).
    case accessUnitTooLarge(Int)

    public var description: String {
        switch self {
        case .decoderUnavailable: "libavcodec has no HEVC decoder"
        case .allocationFailed: "libavcodec allocation failed"
        case .openFailed(let c): "avcodec_open2 failed: \(AVErrorText.describe(c))"
        case .invalidData(let c): "access unit rejected: \(AVErrorText.describe(c))"
        case .decodeFailed(let c): "picture decode failed: \(AVErrorText.describe(c))"
        case .unsupportedPixelFormat(let n): "unsupported decoded pixel format \(n) (need 4:2:0 8/10-bit)"
        case .accessUnitTooLarge(let n): "access unit of \(n) bytes too large"
        }
    }
}

/// AVERROR values the Swift importer cannot see (function-like macros).
enum AVErrorText {
    /// AVERROR(EAGAIN) on Linux.
    static let again: Int32 = -EAGAIN
    /// AVERROR_EOF = -MKTAG('E','O','F',' ').
    static let eof: Int32 = -Int32(bitPattern: UInt32(0x45) | UInt32(0x4F) << 8 | UInt32(0x46) << 16 | UInt32(0x20) << 24)

    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let text = buffer.withUnsafeMutableBufferPointer { b -> String in
            _ = av_strerror(code, b.baseAddress, b.count)
            return String(cString: b.baseAddress!)
        }
        return "\(text) (\(code))"
    }
}

/// The libavcodec software HEVC rung: access units in, NV12/P010 CPU frames out.
///
/// Latency-first configuration: slice threads only (frame threads would add a frame of delay
/// per thread), at most 4 of them, `AV_CODEC_FLAG_LOW_DELAY`. Cropping is not applied by
/// libavcodec; each frame carries the full decoded picture and its conformance window in `crop`.
///
/// Damage: a frame is `damaged` when libavcodec flags it (decode_error_flags, AV_FRAME_FLAG_CORRUPT)
/// or when `ReferenceDamage` finds it decoded from a reference libavcodec never received (which
/// libavcodec conceals silently), directly or through other pictures, until the next IRAP picture.
/// A frame from an access unit the planner took no picture from (a non-IRAP start, a slice that
/// does not parse) is damaged too; a picture libavcodec failed on taints what is decoded from it.
///
/// Owns its AVCodecContext, AVPacket and AVFrame; frees them in deinit. Not thread-safe: use from
/// one task at a time.
public final class SoftwareDecoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var damage = ReferenceDamage()
    /// Packets libavcodec holds, by the sequence number sent as their pts (libavcodec hands it
    /// back on the frame): the caller's pts and whether the picture is damaged.
    private var inFlight: [Int64: (pts: Int64, damaged: Bool)] = [:]
    private var nextSequence: Int64 = 0
    /// Packets older than this many access units that produced no frame are forgotten.
    private static let inFlightLimit: Int64 = 64

    /// Why the planner beside libavcodec took no picture from the last access unit (e.g.
    /// `.raslSkipped`, `.awaitingIRAP`); nil when it took one, or when a slice did not parse.
    public private(set) var lastSkip: PlannerWarning?

    /// Slice threads in use.
    public let threadCount: Int

    /// Opens libavcodec's HEVC decoder.
    /// - Parameter threads: slice threads; default min(active cores, 4).
    public init(threads: Int? = nil) throws(DecodeError) {
        threadCount = max(1, threads ?? min(ProcessInfo.processInfo.activeProcessorCount, 4))
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_HEVC) else { throw .decoderUnavailable }
        guard let ctx = avcodec_alloc_context3(codec) else { throw .allocationFailed }
        context = ctx
        ctx.pointee.thread_type = FF_THREAD_SLICE
        ctx.pointee.thread_count = Int32(threadCount)
        ctx.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
        ctx.pointee.apply_cropping = 0
        let rc = avcodec_open2(ctx, codec, nil)
        guard rc >= 0 else { throw .openFailed(code: rc) }
        guard let p = av_packet_alloc(), let f = av_frame_alloc() else { throw .allocationFailed }
        packet = p
        frame = f
    }

    /// Silences libavcodec's own log lines on stderr (process-wide; they are on by default and
    /// name concealment and corrupt-stream details a developer may want).
    public static func setLibraryLogging(enabled: Bool) {
        av_log_set_level(enabled ? AV_LOG_WARNING : AV_LOG_QUIET)
    }

    deinit {
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&context)
    }

    /// Decodes one access unit (Annex-B bytes, start codes included) and returns the pictures
    /// that became ready for output, in output order. Each carries the `pts` of the access unit
    /// it was decoded from (libavcodec reorders them with the pictures).
    ///
    /// An empty access unit is ignored. Errors leave the decoder usable.
    public func decode(accessUnit: [UInt8], pts: Int64) throws(DecodeError) -> [DecodedFrame] {
        guard let ctx = context, let pkt = packet else { throw .allocationFailed }
        if accessUnit.isEmpty { return [] }
        guard accessUnit.count < Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else {
            throw .accessUnitTooLarge(accessUnit.count)
        }
        guard av_new_packet(pkt, Int32(accessUnit.count)) >= 0 else { throw .allocationFailed }
        defer { av_packet_unref(pkt) }
        accessUnit.withUnsafeBytes { src in
            UnsafeMutableRawPointer(pkt.pointee.data!).copyMemory(from: src.baseAddress!, byteCount: src.count)
        }
        let sequence = nextSequence
        nextSequence += 1
        pkt.pointee.pts = sequence
        pkt.pointee.dts = sequence
        let outcome = damage.observe(accessUnit)
        if case .skipped(let why) = outcome { lastSkip = why } else { lastSkip = nil }
        inFlight[sequence] = (pts, outcome != .picture(damaged: false))
        if inFlight.count > Int(Self.inFlightLimit) {
            inFlight = inFlight.filter { $0.key > sequence - Self.inFlightLimit }
        }
        var out: [DecodedFrame] = []
        var rc = avcodec_send_packet(ctx, pkt)
        if rc == AVErrorText.again {
            // Output is full: drain, then the packet is accepted.
            out += try drain()
            rc = avcodec_send_packet(ctx, pkt)
        }
        if rc < 0 && rc != AVErrorText.eof {
            damage.markLastDamaged()  // libavcodec lacks what the planner holds
            throw .invalidData(code: rc)
        }
        out += try drain()
        return out
    }

    /// Drops the reference pictures and the pictures waiting for output (avcodec_flush_buffers)
    /// and waits for the next IRAP picture: what a client does before the keyframe that ends a
    /// freeze. Pictures already returned stay valid.
    public func restart() {
        if let ctx = context { avcodec_flush_buffers(ctx) }
        damage.reset()
        inFlight = [:]
        lastSkip = nil
    }

    /// End of stream: returns every picture still held for output and resets the decoder so it
    /// can take a new stream (which must start with parameter sets and an IRAP picture).
    public func flush() -> [DecodedFrame] {
        guard let ctx = context else { return [] }
        var out: [DecodedFrame] = []
        if avcodec_send_packet(ctx, nil) >= 0 {
            // Skip pictures that fail (the rest still come); bounded so a decoder that keeps
            // failing cannot spin forever (the DPB holds at most 16 pictures).
            for _ in 0..<32 {
                do throws(DecodeError) {
                    out += try drain()
                    break
                } catch {
                    continue
                }
            }
        }
        avcodec_flush_buffers(ctx)
        damage.reset()
        inFlight = [:]
        return out
    }

    /// receive_frame until EAGAIN/EOF.
    private func drain() throws(DecodeError) -> [DecodedFrame] {
        guard let ctx = context, let f = frame else { throw .allocationFailed }
        var out: [DecodedFrame] = []
        while true {
            let rc = avcodec_receive_frame(ctx, f)
            if rc == AVErrorText.again || rc == AVErrorText.eof { return out }
            if rc < 0 {
                damage.markLastDamaged()  // a guess: the picture that failed is rarely an older one
                if out.isEmpty { throw .decodeFailed(code: rc) }
                return out  // report frames already received; the failure repeats on the next call if it persists
            }
            defer { av_frame_unref(f) }
            out.append(try convert(f))
        }
    }

    private func convert(_ f: UnsafeMutablePointer<AVFrame>) throws(DecodeError) -> DecodedFrame {
        let fr = f.pointee
        let format: DecodedPixelFormat
        switch fr.format {
        case AV_PIX_FMT_YUV420P.rawValue, AV_PIX_FMT_YUVJ420P.rawValue: format = .nv12
        case AV_PIX_FMT_YUV420P10LE.rawValue: format = .p010
        default:
            let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: fr.format)).map { String(cString: $0) } ?? "format \(fr.format)"
            throw .unsupportedPixelFormat(name)
        }
        let w = Int(fr.width), h = Int(fr.height)
        guard w > 0, h > 0, let y = fr.data.0, let u = fr.data.1, let v = fr.data.2 else {
            throw .decodeFailed(code: -22)
        }
        let yStride = Int(fr.linesize.0), cbStride = Int(fr.linesize.1), crStride = Int(fr.linesize.2)
        let planes: [FramePlane]
        if format == .nv12 && yStride >= w && cbStride >= (w + 1) / 2 && crStride >= (w + 1) / 2 {
            planes = try lend(f, width: w, height: h, y: y, yStride: yStride, cb: u, cbStride: cbStride, cr: v, crStride: crStride)
        } else {
            planes = YUVPacking.pack(format: format, width: w, height: h, y: UnsafePointer(y), yStride: yStride,
                                     cb: UnsafePointer(u), cbStride: cbStride, cr: UnsafePointer(v), crStride: crStride)
        }
        let crop = FrameCrop(left: Int(fr.crop_left), right: Int(fr.crop_right),
                             top: Int(fr.crop_top), bottom: Int(fr.crop_bottom))
        let colour = FrameColour(primaries: Int(fr.color_primaries.rawValue), transfer: Int(fr.color_trc.rawValue),
                                 matrix: Int(fr.colorspace.rawValue),
                                 fullRange: fr.color_range == AVCOL_RANGE_JPEG || fr.format == AV_PIX_FMT_YUVJ420P.rawValue)
        let sequence = fr.pts != Int64.min ? fr.pts : fr.best_effort_timestamp
        let source = inFlight.removeValue(forKey: sequence)
        let flagged = fr.decode_error_flags != 0 || fr.flags & Int32(AV_FRAME_FLAG_CORRUPT) != 0
        return DecodedFrame(pts: source?.pts ?? sequence, width: w, height: h, crop: crop, pixelFormat: format, planes: planes,
                            colour: colour, hdr: FrameSideData.hdrMetadata(f), damaged: flagged || source?.damaged ?? false)
    }

    /// 8-bit output without a copy on this thread: plane 0 is libavcodec's luma plane itself
    /// (NV12's plane 0 already), plane 1 is interleaved from its Cb/Cr planes on first read. A
    /// clone of `f` holds the buffers (the decoder's pool hands out others meanwhile) until the
    /// frame's last copy is gone.
    private func lend(_ f: UnsafeMutablePointer<AVFrame>, width w: Int, height h: Int,
                      y: UnsafeMutablePointer<UInt8>, yStride: Int,
                      cb: UnsafeMutablePointer<UInt8>, cbStride: Int,
                      cr: UnsafeMutablePointer<UInt8>, crStride: Int) throws(DecodeError) -> [FramePlane] {
        guard let held = av_frame_clone(f) else { throw .allocationFailed }
        let frame = LentMemory(base: UnsafeRawPointer(y), count: yStride * (h - 1) + w) {
            var clone: UnsafeMutablePointer<AVFrame>? = held
            av_frame_free(&clone)
        }
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        let (cbAddress, crAddress) = (UInt(bitPattern: cb), UInt(bitPattern: cr))
        let chroma = DeferredBytes(count: cw * 2 * ch) {
            withExtendedLifetime(frame) {
                YUVPacking.packChroma(format: .nv12, width: w, height: h,
                                      cb: UnsafePointer(bitPattern: cbAddress)!, cbStride: cbStride,
                                      cr: UnsafePointer(bitPattern: crAddress)!, crStride: crStride).bytes.array
            }
        }
        return [FramePlane(bytes: PlaneBytes(lent: frame), stride: yStride, rowBytes: w, height: h),
                FramePlane(bytes: PlaneBytes(deferred: chroma), stride: cw * 2, rowBytes: cw * 2, height: ch)]
    }
}
