internal import CVA
import Foundation
import HEVC
import Synchronization
import VideoFrames

/// What one call of `VAAPIDecoder.decode` produced.
public typealias VAAPIDecodeOutput = StatelessDecodeOutput

/// The VA-API rung: stateless HEVC decode on a libva driver, driven by `DecodePlanner`.
///
/// Per access unit: parse the NAL units, plan (POC, RPS, reference lists, target surface,
/// output order), (re)build the session when the SPS format changes, then submit
/// - vaBeginPicture(target),
/// - one vaRenderPicture with the picture parameters (+ IQ matrix when scaling lists are on),
/// - one vaRenderPicture with slice-parameter / slice-data pairs, in slice order,
/// - vaEndPicture (always, also after a failed render), then vaDestroyBuffer for every buffer
///   (libva does not reclaim them at EndPicture);
/// and export every output picture (`SurfaceExport`) with its fence.
///
/// Session: a config with an explicit RT format (YUV420 / YUV420_10), a surface pool of max DPB
/// + 1 + `headroom` surfaces at coded size with an explicit NV12 / P010 pixel format, a
/// context over the pool. A surface is rewritten only when it is not a reference, not waiting
/// for output and not held by a `SurfaceLease` (the planner's pool tracks the first two, leases
/// hold the third); a rebuilt session keeps the old pool alive until its last lease returns.
///
/// Not thread-safe: use from one task. Leases may be released from any thread.
public final class VAAPIDecoder {
    public let connection: VADisplayConnection
    /// Surfaces beyond max DPB + 1 for pictures the display holds.
    public let headroom: Int
    /// How readers learn a picture is decoded (`DecodeSyncDecision`, from the node's DRM driver
    /// and the `decode-sync` setting). On the sync-file path an exporter without
    /// DMA_BUF_IOCTL_EXPORT_SYNC_FILE still falls back to vaSyncSurface, picture by picture.
    public let sync: DecodeSyncDecision
    private var parser = HEVCParser()
    private var planner: DecodePlanner
    private var sessions = DecodeSessions<Session>()
    private var session: Session? { sessions.current }

    /// The VAContextID of the current session (diagnostics, tests); nil before the first SPS.
    public var contextID: UInt32? { session?.context }
    /// The profile of the current session.
    public var profile: HEVCProfile? { session?.profile }
    /// True until an IRAP picture starts decoding (start, after `reset`).
    public var awaitingIRAP: Bool { planner.awaitingIRAP }

    /// - Throws: `.profileUnsupported("Main")` when the driver has no HEVC Main VLD entrypoint.
    public init(connection: VADisplayConnection, headroom: Int = 8, sync setting: DecodeSyncSetting = .auto) throws(VAAPIError) {
        guard connection.canDecode(.main) else { throw .profileUnsupported(HEVCProfile.main.rawValue) }
        self.connection = connection
        self.headroom = max(0, headroom)
        planner = DecodePlanner(headroom: self.headroom, holdsOutputPictures: true)
        sync = DecodeSyncDecision.decide(drmDriver: connection.drmDriver, setting: setting)
    }

    deinit { sessions.destroyAll() }

    /// Decodes one access unit (Annex-B bytes). Pictures carry `pts` of the access unit they
    /// were decoded from.
    /// - Throws: `VAAPIError` when a slice does not parse or the driver fails; the planner then
    ///   waits for the next IRAP picture (ask the host for one).
    public func decode(accessUnit: [UInt8], pts: Int64) throws(VAAPIError) -> VAAPIDecodeOutput {
        collectReturns()
        var failure: (type: UInt8, error: HEVCError)?
        guard let parsed = ParsedAccessUnit.parse(accessUnit, with: &parser, failure: &failure) else {
            restart()
            throw .corruptAccessUnit("slice NAL unit (type \(failure?.type ?? 0)) not parsed: \(failure.map { "\($0.error)" } ?? "")")
        }
        let (units, unitRanges) = (parsed.units, parsed.ranges)
        let plan = planner.plan(units)
        var out = VAAPIDecodeOutput()
        out.warnings = plan.warnings
        if let format = plan.sessionFormat {
            out.pictures += try exportAll(plan.outputBeforeDecoding)
            try rebuild(format, sps: plan.picture?.sps)
        } else {
            out.pictures += try exportAll(plan.outputBeforeDecoding)
        }
        if let picture = plan.picture {
            guard let session else { throw .unsupportedStream("no session for the picture") }
            session.info[picture.surface] = PictureInfo(pts: pts, colour: Self.colour(picture.sps))
            do throws(VAAPIError) {
                try submit(picture, units: units, ranges: unitRanges, accessUnit: accessUnit, session: session)
            } catch {
                // Pictures already output stay valid; the rest of the DPB is suspect.
                for p in out.pictures { p.lease.release() }
                restart()
                throw error
            }
        }
        out.pictures += try exportAll(plan.outputAfterDecoding)
        return out
    }

    /// End of stream: every picture still waiting for output.
    public func flush() throws(VAAPIError) -> VAAPIDecodeOutput {
        collectReturns()
        var out = VAAPIDecodeOutput()
        let plan = planner.finish()
        out.warnings = plan.warnings
        out.pictures = try exportAll(plan.outputAfterDecoding)
        return out
    }

    /// Drops the DPB and waits for the next IRAP picture (after loss, or a rung change). The
    /// planner then holds only the surfaces the display holds through leases.
    public func restart() { sessions.restart(&planner) }

    // MARK: - Session

    private func rebuild(_ format: StreamFormat, sps: SequenceParameterSet?) throws(VAAPIError) {
        guard format.chromaFormatIdc == 1 else {
            throw .unsupportedStream("chroma_format_idc \(format.chromaFormatIdc) (4:2:0 only)")
        }
        let profile: HEVCProfile
        switch (format.bitDepthLuma, format.bitDepthChroma) {
        case (8, 8): profile = .main
        case (9...10, 9...10): profile = .main10
        default: throw .unsupportedStream("bit depth \(format.bitDepthLuma)/\(format.bitDepthChroma)")
        }
        guard connection.canDecode(profile) else { throw .profileUnsupported(profile.rawValue) }
        sessions.replace(with: nil)
        let capacity = format.maxDecPicBuffering + 1 + headroom
        sessions.replace(with: try Session(display: connection.display, profile: profile, width: format.codedWidth,
                                           height: format.codedHeight, surfaces: capacity,
                                           generation: DecoderGenerations.next()))
    }

    /// Applies the leases released since the last call.
    private func collectReturns() { sessions.collectReturns(into: &planner) }

    // MARK: - Submission

    private func submit(_ picture: PicturePlan, units: [HEVCParser.ParsedNALUnit], ranges: [Range<Int>],
                        accessUnit: [UInt8], session: Session) throws(VAAPIError) {
        let display = connection.display
        guard picture.surface < session.surfaces.count else { throw .unsupportedStream("surface \(picture.surface) outside the pool") }
        let vaSurface: (SurfaceID) -> VASurfaceID = { id in
            id < session.surfaces.count ? session.surfaces[id] : PF_VA_INVALID_ID
        }
        var buffers: [VABufferID] = []
        buffers.reserveCapacity(2 + 2 * picture.slices.count)
        defer { for b in buffers { vaDestroyBuffer(display, b) } }

        func create<T>(_ type: VABufferType, _ value: inout T) throws(VAAPIError) -> VABufferID {
            var id = VABufferID(PF_VA_INVALID_ID)
            let status = withUnsafeMutableBytes(of: &value) { raw in
                vaCreateBuffer(display, session.context, type, UInt32(raw.count), 1, raw.baseAddress, &id)
            }
            try vaCheck(status, "vaCreateBuffer(\(type))")
            buffers.append(id)
            return id
        }

        try vaCheck(vaBeginPicture(display, session.context, vaSurface(picture.surface)), "vaBeginPicture")
        var renderError: VAAPIError?
        do throws(VAAPIError) {
            var pic = PictureParameters.make(picture, vaSurface: vaSurface)
            var first = [try create(VAPictureParameterBufferType, &pic)]
            if var iq = PictureParameters.iqMatrix(picture) { first.append(try create(VAIQMatrixBufferType, &iq)) }
            try vaCheck(vaRenderPicture(display, session.context, &first, Int32(first.count)), "vaRenderPicture(picture)")

            var referenceIndex: [SurfaceID: UInt8] = [:]
            for (i, r) in picture.referenceFrames.prefix(PictureParameters.referenceCapacity).enumerated() {
                referenceIndex[r.surface] = UInt8(i)
            }
            var sliceBuffers: [VABufferID] = []
            sliceBuffers.reserveCapacity(2 * picture.slices.count)
            for (k, slice) in picture.slices.enumerated() {
                guard slice.nalIndex < ranges.count else { throw .corruptAccessUnit("slice index \(slice.nalIndex)") }
                let range = ranges[slice.nalIndex]
                guard slice.header.headerBitSize % 8 == 0 else {
                    throw .corruptAccessUnit("slice header of \(slice.header.headerBitSize) bits is not byte-aligned")
                }
                let epb = units[slice.nalIndex].rbsp.emulationPreventionBytes(before: slice.header.headerBitSize / 8)
                var params = SliceParameters.make(slice, sps: picture.sps, pps: picture.pps,
                                                  referenceIndex: { referenceIndex[$0] ?? 0xFF },
                                                  dataSize: range.count, emulationPreventionBytes: epb,
                                                  isLast: k == picture.slices.count - 1)
                sliceBuffers.append(try create(VASliceParameterBufferType, &params))
                var dataID = VABufferID(PF_VA_INVALID_ID)
                let status = accessUnit.withUnsafeBytes { raw in
                    vaCreateBuffer(display, session.context, VASliceDataBufferType, UInt32(range.count), 1,
                                   UnsafeMutableRawPointer(mutating: raw.baseAddress! + range.lowerBound), &dataID)
                }
                try vaCheck(status, "vaCreateBuffer(slice data)")
                buffers.append(dataID)
                sliceBuffers.append(dataID)
            }
            try vaCheck(vaRenderPicture(display, session.context, &sliceBuffers, Int32(sliceBuffers.count)),
                        "vaRenderPicture(slices)")
        } catch {
            renderError = error
        }
        let end = vaEndPicture(display, session.context)  // always, so the context leaves the picture
        if let renderError { throw renderError }
        try vaCheck(end, "vaEndPicture")
    }

    // MARK: - Output

    private func exportAll(_ pictures: [OutputPicture]) throws(VAAPIError) -> [DMABufFrame] {
        var out: [DMABufFrame] = []
        for p in pictures {
            do throws(VAAPIError) {
                out.append(try export(p))
            } catch {
                for f in out { f.lease.release() }
                throw error
            }
        }
        return out
    }

    /// Exports an output picture of the current session (or of the session it was decoded in,
    /// for pictures output right before a rebuild). The planner already holds its surface.
    private func export(_ p: OutputPicture) throws(VAAPIError) -> DMABufFrame {
        guard let s = sessions.newest else { throw .unsupportedStream("no session") }
        guard p.surface < s.surfaces.count else { throw .unsupportedStream("surface \(p.surface) outside the pool") }
        let surface = s.surfaces[p.surface]
        let generation = s.generation
        let releaseHold: () -> Void = { [self] in
            if sessions.isCurrent(generation) { planner.releaseSurface(p.surface) }
        }
        let exported: SurfaceExport.Exported
        let fence: DMABufFrame.Fence
        do throws(VAAPIError) {
            exported = try SurfaceExport.export(connection.display, surface: surface, expectedFourcc: s.profile.fourcc)
        } catch {
            releaseHold()
            throw error
        }
        do throws(VAAPIError) {
            fence = try SurfaceExport.fence(connection.display, surface: surface, objects: exported.objects,
                                            syncFile: sync.path == .syncFile)
        } catch {
            for o in exported.objects { close(o.fd) }
            releaseHold()
            throw error
        }
        var fds = Array(Set(exported.objects.map(\.fd)))
        if case .syncFiles(let files) = fence { fds += files }
        let lease = sessions.lease(fds: fds, surface: p.surface, of: s)
        let info = s.info[p.surface] ?? PictureInfo(pts: 0, colour: FrameColour())
        let window = p.cropWindow
        let crop = FrameCrop(left: window.x, right: max(0, s.width - window.x - window.width),
                             top: window.y, bottom: max(0, s.height - window.y - window.height))
        return DMABufFrame(pts: info.pts, width: s.width, height: s.height, crop: crop, colour: info.colour,
                           pixelFormat: s.profile.pixelFormat, fourcc: exported.fourcc, objects: exported.objects,
                           planes: exported.planes, fence: fence, surface: surface, generation: generation,
                           lease: lease, damaged: p.damaged)
    }

    static func colour(_ sps: SequenceParameterSet) -> FrameColour {
        let v = sps.vui
        return FrameColour(primaries: Int(v.colourPrimaries), transfer: Int(v.transferCharacteristics),
                           matrix: Int(v.matrixCoeffs), fullRange: v.videoFullRangeFlag)
    }
}

/// Per-surface facts of the picture decoded into it, for its output.
struct PictureInfo {
    var pts: Int64
    var colour: FrameColour
}

/// One decode session: config, surface pool and context, destroyed together.
final class Session: DecodeSession {
    let display: VADisplay
    let profile: HEVCProfile
    let width: Int, height: Int
    let generation: Int
    let config: VAConfigID
    let context: VAContextID
    let surfaces: [VASurfaceID]
    /// Leases handed out and not yet returned.
    var outstanding = 0
    var info: [SurfaceID: PictureInfo] = [:]
    private var destroyed = false

    init(display: VADisplay, profile: HEVCProfile, width: Int, height: Int, surfaces count: Int,
         generation: Int) throws(VAAPIError) {
        self.display = display
        self.profile = profile
        self.width = width
        self.height = height
        self.generation = generation
        var attrib = VAConfigAttrib(type: VAConfigAttribRTFormat, value: profile.rtFormat)
        var config = VAConfigID(PF_VA_INVALID_ID)
        try vaCheck(vaCreateConfig(display, profile.vaProfile, VAEntrypointVLD, &attrib, 1, &config), "vaCreateConfig")
        var surfaces = [VASurfaceID](repeating: PF_VA_INVALID_ID, count: count)
        var pixel = VASurfaceAttrib()
        pixel.type = VASurfaceAttribPixelFormat
        pixel.flags = UInt32(VA_SURFACE_ATTRIB_SETTABLE)
        pixel.value.type = VAGenericValueTypeInteger
        pixel.value.value.i = Int32(bitPattern: profile.fourcc)
        let made = vaCreateSurfaces(display, profile.rtFormat, UInt32(width), UInt32(height), &surfaces, UInt32(count), &pixel, 1)
        guard made == VA_STATUS_SUCCESS else {
            vaDestroyConfig(display, config)
            throw .call("vaCreateSurfaces(\(count) × \(width)x\(height) \(profile.rawValue))", status: made)
        }
        var context = VAContextID(PF_VA_INVALID_ID)
        let status = vaCreateContext(display, config, Int32(width), Int32(height), Int32(VA_PROGRESSIVE),
                                     &surfaces, Int32(count), &context)
        guard status == VA_STATUS_SUCCESS else {
            vaDestroySurfaces(display, &surfaces, Int32(count))
            vaDestroyConfig(display, config)
            throw .call("vaCreateContext", status: status)
        }
        self.config = config
        self.context = context
        self.surfaces = surfaces
    }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        vaDestroyContext(display, context)
        var list = surfaces
        vaDestroySurfaces(display, &list, Int32(list.count))
        vaDestroyConfig(display, config)
    }
}
