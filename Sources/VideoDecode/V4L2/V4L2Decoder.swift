internal import CV4L2
import Foundation
import HEVC
import Synchronization
import VideoFrames

/// What one call of `V4L2Decoder.decode` produced.
public typealias V4L2DecodeOutput = StatelessDecodeOutput

/// The V4L2 stateless rung: HEVC decode through the kernel's request API (the decoders of ARM
/// boards: the Pi 5's rpi-hevc-dec, Rockchip's rkvdec, Allwinner's cedrus, MediaTek's vcodec),
/// driven by `DecodePlanner`.
///
/// Per access unit: parse, plan (POC, RPS, reference lists, target surface, output order),
/// open a new session when the SPS format changes, then for the picture:
/// - queue the target CAPTURE buffer (buffer index = the planner's surface);
/// - slice-based drivers: one OUTPUT buffer and request per slice segment, each with SPS, PPS,
///   scaling matrix, decode parameters and that slice's parameters, all but the last with
///   HOLD_CAPTURE_BUF; frame-based drivers: one buffer and request with every slice;
/// - wait for every request, dequeue the CAPTURE buffer (its error flag fails the picture);
/// and export every output picture as a dma-buf `DMABufFrame` (the fds are dups of the CAPTURE
/// buffer's export, owned by the lease; the fence is `.completed`).
///
/// References are named by the timestamp each surface was decoded with (a µs counter of the
/// session; the DPB's ns values are it × 1000). A failed picture restarts both queues and the
/// planner (the caller asks the host for a keyframe). Not thread-safe: use from one task;
/// leases may be released from any thread.
public final class V4L2Decoder {
    public let device: V4L2DecoderDevice
    /// Surfaces beyond max DPB + 1 for pictures the display holds.
    public let headroom: Int
    /// How long one request may take before the picture counts as failed (ms).
    public var timeoutMilliseconds: Int32 = 2000
    private var parser = HEVCParser()
    private var planner: DecodePlanner
    private var sessions = DecodeSessions<V4L2Session>()
    private var session: V4L2Session? { sessions.current }
    private var nextTimestampMicros: UInt64 = 1

    /// True until an IRAP picture starts decoding (start, after `restart`).
    public var awaitingIRAP: Bool { planner.awaitingIRAP }
    /// The session's CAPTURE format (V4L2 fourcc as text), nil before the first SPS.
    public var captureFormat: String? { session.map { V4L2FourCC.text($0.format.v4l2) } }
    public var decodeMode: V4L2DecoderDevice.DecodeMode { device.defaultDecodeMode }

    public init(device: V4L2DecoderDevice, headroom: Int = 8) {
        self.device = device
        self.headroom = max(0, headroom)
        planner = DecodePlanner(headroom: self.headroom, holdsOutputPictures: true)
    }

    deinit { sessions.destroyAll() }

    /// Decodes one access unit (Annex-B bytes). Pictures carry `pts` of the access unit they were
    /// decoded from.
    /// - Throws: `V4L2Error`; the planner then waits for the next IRAP picture.
    public func decode(accessUnit: [UInt8], pts: Int64) throws(V4L2Error) -> V4L2DecodeOutput {
        collectReturns()
        var failure: (type: UInt8, error: HEVCError)?
        guard let parsed = ParsedAccessUnit.parse(accessUnit, with: &parser, failure: &failure) else {
            restart()
            throw .corruptAccessUnit("slice NAL unit (type \(failure?.type ?? 0)) not parsed: \(failure.map { "\($0.error)" } ?? "")")
        }
        let (units, unitRanges) = (parsed.units, parsed.ranges)
        let plan = planner.plan(units)
        var out = V4L2DecodeOutput()
        out.warnings = plan.warnings
        out.pictures += try exportAll(plan.outputBeforeDecoding)
        if let format = plan.sessionFormat, let sps = plan.picture?.sps {
            do throws(V4L2Error) { try rebuild(format, sps: sps) } catch {
                for p in out.pictures { p.lease.release() }
                restart()
                throw error
            }
        }
        if let picture = plan.picture {
            guard let session else { throw .unsupportedStream("no session for the picture") }
            session.info[picture.surface] = PictureInfo(pts: pts, colour: VAAPIDecoder.colour(picture.sps))
            do throws(V4L2Error) {
                try submit(picture, units: units, ranges: unitRanges, accessUnit: accessUnit, session: session)
            } catch {
                for p in out.pictures { p.lease.release() }
                session.resetQueues()
                restart()
                throw error
            }
        }
        out.pictures += try exportAll(plan.outputAfterDecoding)
        return out
    }

    /// End of stream: every picture still waiting for output.
    public func flush() throws(V4L2Error) -> V4L2DecodeOutput {
        collectReturns()
        var out = V4L2DecodeOutput()
        let plan = planner.finish()
        out.warnings = plan.warnings
        out.pictures = try exportAll(plan.outputAfterDecoding)
        return out
    }

    /// Drops the DPB and waits for the next IRAP picture. The planner then holds only the
    /// surfaces the display holds through leases.
    public func restart() { sessions.restart(&planner) }

    // MARK: - Session

    private func rebuild(_ format: StreamFormat, sps: SequenceParameterSet) throws(V4L2Error) {
        guard format.chromaFormatIdc == 1 else { throw .unsupportedStream("chroma_format_idc \(format.chromaFormatIdc) (4:2:0 only)") }
        guard format.bitDepthLuma == format.bitDepthChroma, format.bitDepthLuma <= 10 else {
            throw .unsupportedStream("bit depth \(format.bitDepthLuma)/\(format.bitDepthChroma)")
        }
        sessions.replace(with: nil)
        let capacity = format.maxDecPicBuffering + 1 + headroom
        sessions.replace(with: try V4L2Session(device: device, width: format.codedWidth, height: format.codedHeight,
                                               bitDepth: format.bitDepthLuma, sps: V4L2Controls.sps(sps),
                                               captureBuffers: capacity, outputBuffers: 4,
                                               generation: DecoderGenerations.next(), anyCaptureFormat: device.isVirtual))
    }

    /// Applies the leases released since the last call.
    private func collectReturns() { sessions.collectReturns(into: &planner) }

    // MARK: - Submission

    private func submit(_ picture: PicturePlan, units: [HEVCParser.ParsedNALUnit], ranges: [Range<Int>],
                        accessUnit: [UInt8], session: V4L2Session) throws(V4L2Error) {
        guard picture.surface < session.captureCount else { throw .unsupportedStream("surface \(picture.surface) outside the pool") }
        let stamp = nextTimestampMicros
        nextTimestampMicros += 1
        session.timestamps[picture.surface] = stamp * 1000
        let timestamps = session.timestamps
        var sps = V4L2Controls.sps(picture.sps)
        var pps = V4L2Controls.pps(picture.pps)
        var scaling = V4L2Controls.scalingMatrix(picture)
        var decode = V4L2Controls.decodeParams(picture) { timestamps[$0] ?? 0 }
        let index = V4L2Controls.dpbIndex(picture)
        let startCodeBytes = session.startCode == .annexB ? 3 : 0
        for slice in picture.slices where slice.nalIndex >= ranges.count {
            throw .corruptAccessUnit("slice index \(slice.nalIndex)")
        }
        func nal(_ slice: SlicePlan) -> ArraySlice<UInt8> { accessUnit[ranges[slice.nalIndex]] }
        func params(_ slice: SlicePlan) -> v4l2_ctrl_hevc_slice_params {
            V4L2Controls.sliceParams(slice, plan: picture, nalBytes: nal(slice).count, startCodeBytes: startCodeBytes, dpbIndex: index)
        }
        func bytes(_ slices: [SlicePlan]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(slices.reduce(0) { $0 + nal($1).count + startCodeBytes })
            for s in slices {
                if startCodeBytes > 0 { out += [0, 0, 1] }
                out += nal(s)
            }
            return out
        }
        // The controls of one request; the arrays stay alive through `body`.
        func withControls<R>(_ slices: [SlicePlan], _ body: ([V4L2Session.Control]) throws(V4L2Error) -> R) throws(V4L2Error) -> R {
            var sliceParams = slices.map(params)
            var entryPoints = slices.flatMap { V4L2Controls.entryPointOffsets($0.header) }
            var result: Result<R, V4L2Error>?
            sliceParams.withUnsafeMutableBytes { spB in
                entryPoints.withUnsafeMutableBytes { epB in
                    withUnsafeMutablePointer(to: &sps) { spsP in
                        withUnsafeMutablePointer(to: &pps) { ppsP in
                            withUnsafeMutablePointer(to: &scaling) { smP in
                                withUnsafeMutablePointer(to: &decode) { dpP in
                                    var c: [V4L2Session.Control] = [
                                        .init(id: V4L2_CID_STATELESS_HEVC_SPS, name: "SPS", value: spsP),
                                        .init(id: V4L2_CID_STATELESS_HEVC_PPS, name: "PPS", value: ppsP),
                                        .init(id: V4L2_CID_STATELESS_HEVC_DECODE_PARAMS, name: "DECODE_PARAMS", value: dpP),
                                    ]
                                    if device.hasScalingMatrix {
                                        c.append(.init(id: V4L2_CID_STATELESS_HEVC_SCALING_MATRIX, name: "SCALING_MATRIX", value: smP))
                                    }
                                    if device.hasSliceParams, !slices.isEmpty {
                                        c.append(.init(id: V4L2_CID_STATELESS_HEVC_SLICE_PARAMS, name: "SLICE_PARAMS", bytes: spB))
                                    }
                                    if device.hasSliceParams, device.hasEntryPointOffsets, epB.count > 0 {
                                        c.append(.init(id: V4L2_CID_STATELESS_HEVC_ENTRY_POINT_OFFSETS, name: "ENTRY_POINT_OFFSETS", bytes: epB))
                                    }
                                    do throws(V4L2Error) { result = .success(try body(c)) } catch { result = .failure(error) }
                                }
                            }
                        }
                    }
                }
            }
            return try result!.get()
        }

        try session.queueCapture(picture.surface)
        switch session.mode {
        case .sliceBased:
            guard picture.slices.count == 1 || session.holdsCapture else {
                throw .unsupportedStream("\(picture.slices.count) slices in a picture, and the driver cannot hold a CAPTURE buffer across requests")
            }
            for (k, slice) in picture.slices.enumerated() {
                let buffer = try session.freeOutput(timeoutMs: timeoutMilliseconds)
                try withControls([slice]) { (controls) throws(V4L2Error) in
                    try session.queue(output: buffer, bytes: bytes([slice]), controls: controls, timestampMicros: stamp,
                                      holdCapture: k < picture.slices.count - 1)
                }
            }
        case .frameBased:
            let buffer = try session.freeOutput(timeoutMs: timeoutMilliseconds)
            try withControls(picture.slices) { (controls) throws(V4L2Error) in
                try session.queue(output: buffer, bytes: bytes(picture.slices), controls: controls, timestampMicros: stamp,
                                  holdCapture: false)
            }
        }
        try session.completeAllOutputs(timeoutMs: timeoutMilliseconds)
        try session.dequeueCapture(expecting: picture.surface, timeoutMs: timeoutMilliseconds)
    }

    // MARK: - Output

    private func exportAll(_ pictures: [OutputPicture]) throws(V4L2Error) -> [DMABufFrame] {
        var out: [DMABufFrame] = []
        for p in pictures {
            do throws(V4L2Error) {
                out.append(try export(p))
            } catch {
                for f in out { f.lease.release() }
                throw error
            }
        }
        return out
    }

    /// Exports an output picture of the current session (or of the one it was decoded in, for
    /// pictures output right before a new session). The planner already holds its surface.
    private func export(_ p: OutputPicture) throws(V4L2Error) -> DMABufFrame {
        guard let s = sessions.newest else { throw .unsupportedStream("no session") }
        let generation = s.generation
        let releaseHold: () -> Void = { [self] in
            if sessions.isCurrent(generation) { planner.releaseSurface(p.surface) }
        }
        guard p.surface < s.captureCount else {
            releaseHold()
            throw .unsupportedStream("surface \(p.surface) outside the pool")
        }
        guard let layout = s.format.layout(width: s.width, height: s.captureHeight, bytesPerLine: s.bytesPerLine,
                                           sizes: s.planeSizes(p.surface)) else {
            releaseHold()
            throw .unsupportedStream("CAPTURE layout \(V4L2FourCC.text(s.format.v4l2)) \(s.bytesPerLine) for \(s.width)x\(s.captureHeight)")
        }
        let objects: [DMABufFrame.Object]
        do throws(V4L2Error) { objects = try s.exportedObjects(p.surface, modifier: layout.modifier) } catch {
            releaseHold()
            throw error
        }
        let formats = s.format.planeDRMFormats
        let planes = layout.planes.enumerated().map { k, plane in
            DMABufFrame.Plane(drmFormat: k == 0 ? formats.0 : formats.1, objectIndex: plane.object, offset: plane.offset, pitch: plane.pitch)
        }
        let lease = sessions.lease(fds: objects.map(\.fd), surface: p.surface, of: s)
        let info = s.info[p.surface] ?? PictureInfo(pts: 0, colour: FrameColour())
        let window = p.cropWindow
        let crop = FrameCrop(left: window.x, right: max(0, s.width - window.x - window.width),
                             top: window.y, bottom: max(0, s.height - window.y - window.height))
        return DMABufFrame(pts: info.pts, width: s.width, height: s.height, crop: crop, colour: info.colour,
                           pixelFormat: s.format.pixelFormat, fourcc: s.format.drmFourcc, objects: objects, planes: planes,
                           fence: .completed, surface: UInt32(p.surface), generation: generation, lease: lease,
                           damaged: p.damaged)
    }
}

/// Decoder generations, unique in the process across rungs, so a display's framebuffer cache
/// keyed by (surface, generation) never confuses pictures of two decoders.
public enum DecoderGenerations {
    private static let counter = Mutex<Int>(0)
    public static func next() -> Int { counter.withLock { $0 += 1; return $0 } }
}
