import Foundation
import HEVC
import SelfCheck
import SystemClock
import VideoDecode
import VideoFrames

/// One clip embedded for the decode check (see Resources/README.md for how each was made).
public struct CheckClip: Sendable {
    public var name: String
    /// The HEVC profile the clip needs.
    public var profile: HEVCProfile
    public var bytes: [UInt8]
    public init(name: String, profile: HEVCProfile, bytes: [UInt8]) { self.name = name; self.profile = profile; self.bytes = bytes }

    /// The clips compared frame by frame.
    public static let comparison: [CheckClip] = [
        CheckClip(name: "8-bit 4:2:0", profile: .main, bytes: PackageResources.main_320x180_hevc),
        CheckClip(name: "10-bit BT.2020 PQ", profile: .main10, bytes: PackageResources.main10_pq_320x180_hevc),
        CheckClip(name: "resolution change", profile: .main, bytes: PackageResources.resolution_change_hevc),
        CheckClip(name: "3 slices", profile: .main, bytes: PackageResources.slices_320x180_hevc),
    ]
    /// The 1080p clip each rung's decode rate is measured on (looped).
    public static let rate = CheckClip(name: "1080p", profile: .main, bytes: PackageResources.rate_1920x1080_hevc)
}

/// The decode section's I/O: every render node's VA driver against libavcodec on the embedded
/// clips, and each rung's decode rate. `DecodeJudge` turns the observation into findings.
public enum DecodeCheck {
    /// One decoded picture: its framemd5 digest and the bytes hashed (kept for the max difference).
    public struct Picture: Sendable {
        public var digest: FrameDigest
        public var bytes: [UInt8]
        public var bytesPerSample: Int
    }

    /// Observes every render node (`VADisplayConnection.renderNodes()`), opening each with `open`.
    /// - Parameter ratePasses: at most how often the 1080p clip is decoded for each rate (0: no
    ///   rates); passes stop once a second has been spent (a slow box measures one pass).
    /// - Parameter v4l2Scan: finds the V4L2 stateless decoders (`observeV4L2`).
    /// - Parameter decodeSync: the config's `decode-sync`, which each node's sync decision is
    ///   made with (and reported).
    public static func observe(nodes: [String] = VADisplayConnection.renderNodes(),
                               open: (String) throws -> VADisplayConnection = { try VADisplayConnection.open(renderNode: $0) },
                               v4l2Scan: () -> (devices: [V4L2DecoderDevice], skipped: [V4L2Decoders.Skipped]) = { V4L2Decoders.scan() },
                               clips: [CheckClip] = CheckClip.comparison, ratePasses: Int = 6,
                               decodeSync: DecodeSyncSetting = .auto) -> DecodeObservation {
        var references: [String: [Picture]] = [:]
        var softwareError: String?
        for clip in clips {
            do { references[clip.name] = try softwarePictures(clip.bytes) } catch {
                softwareError = softwareError ?? "\(clip.name): \(error)"
            }
        }
        var rates: [DecodeObservation.Rate] = []
        if ratePasses > 0, let r = try? softwareRate(CheckClip.rate, passes: ratePasses) { rates.append(r) }
        var observed: [DecodeObservation.Node] = []
        for path in nodes {
            let connection: VADisplayConnection
            do { connection = try open(path) } catch {
                observed.append(.init(path: path, kernelDriver: kernelDriver(path), openError: "\(error)"))
                continue
            }
            var node = observe(connection: connection, clips: clips, references: references)
            node.kernelDriver = kernelDriver(path)
            let sync = DecodeSyncDecision.decide(drmDriver: connection.drmDriver, setting: decodeSync)
            node.drmDriver = connection.drmDriver
            node.syncPath = sync.path.rawValue
            node.syncWhy = sync.why
            observed.append(node)
            if ratePasses > 0, connection.canDecode(.main), let r = try? vaRate(CheckClip.rate, connection: connection, passes: ratePasses) {
                rates.append(r)
            }
        }
        let v4l2 = observeV4L2(scan: v4l2Scan, clips: clips, references: references, ratePasses: ratePasses)
        return DecodeObservation(nodes: observed, softwareError: softwareError, rates: rates + v4l2.rates, v4l2: v4l2.observation)
    }

    /// One initialised VA display against the software references of `clips`.
    public static func observe(connection: VADisplayConnection, clips: [CheckClip],
                               references: [String: [Picture]]) -> DecodeObservation.Node {
        var profiles: [DecodeObservation.Profile] = []
        for profile in HEVCProfile.allCases {
            let offered = connection.canDecode(profile)
            var p = DecodeObservation.Profile(name: profile.rawValue, offered: offered)
            if offered {
                for clip in clips where clip.profile == profile {
                    guard let reference = references[clip.name] else { continue }
                    p.clips.append(compare(clip: clip, connection: connection, reference: reference))
                }
            }
            profiles.append(p)
        }
        return .init(path: connection.devicePath, vendor: connection.vendor, profiles: profiles)
    }

    /// The VA rung's pictures of `clip` against `reference` (the software rung's).
    public static func compare(clip: CheckClip, connection: VADisplayConnection, reference: [Picture]) -> DecodeObservation.Clip {
        let va: [Picture]
        var exported: WaylandObservation.Pair?
        do { va = try vaPictures(clip.bytes, connection: connection, exported: &exported) } catch {
            return .init(name: clip.name, vaError: "\(error)", exported: exported)
        }
        let comparison = FrameComparison.compare(reference: reference.map(\.digest), candidate: va.map(\.digest))
        var maxDifference: Int?
        if case .differs(let i, _, _) = comparison, i < va.count, i < reference.count {
            maxDifference = PixelDifference.max(reference[i].bytes, va[i].bytes, bytesPerSample: reference[i].bytesPerSample)
        }
        return .init(name: clip.name, comparison: comparison, maxDifference: maxDifference, exported: exported)
    }

    /// libavcodec's pictures of an Annex-B stream, in output order.
    public static func softwarePictures(_ stream: [UInt8]) throws -> [Picture] {
        let decoder = try SoftwareDecoder()
        var out: [Picture] = []
        for (i, au) in AccessUnitSplitter.split(stream).enumerated() {
            out += try decoder.decode(accessUnit: au, pts: Int64(i)).map(picture)
        }
        return out + decoder.flush().map(picture)
    }

    /// The VA rung's pictures of an Annex-B stream, read back, in output order.
    public static func vaPictures(_ stream: [UInt8], connection: VADisplayConnection) throws -> [Picture] {
        var exported: WaylandObservation.Pair?
        return try vaPictures(stream, connection: connection, exported: &exported)
    }

    /// The same, noting the first picture's export (fourcc, modifier) in `exported`.
    public static func vaPictures(_ stream: [UInt8], connection: VADisplayConnection,
                                  exported: inout WaylandObservation.Pair?) throws -> [Picture] {
        let decoder = try VAAPIDecoder(connection: connection)
        var out: [Picture] = []
        var first: WaylandObservation.Pair?
        defer { exported = first }
        func take(_ frames: [DMABufFrame]) throws {
            try collect(frames, into: &out) { f in
                if first == nil, let object = f.objects.first { first = .init(fourcc: f.fourcc, modifier: object.modifier) }
            }
        }
        for (i, au) in AccessUnitSplitter.split(stream).enumerated() {
            try take(try decoder.decode(accessUnit: au, pts: Int64(i)).pictures)
        }
        try take(try decoder.flush().pictures)
        return out
    }

    /// Reads `frames` back into `out` (unless `readBack` is false) and releases every lease, also
    /// after a failed read-back (the first failure is thrown once all are released).
    static func collect(_ frames: [DMABufFrame], into out: inout [Picture], readBack: Bool = true,
                        seen: (DMABufFrame) -> Void = { _ in }) throws {
        var failure: (any Error)?
        for f in frames {
            seen(f)
            defer { f.lease.release() }
            if failure != nil || !readBack { continue }
            do { out.append(picture(try f.readPixels())) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    static func picture(_ f: DecodedFrame) -> Picture {
        let bytes = FrameMD5.nativeBytes(of: f)
        return Picture(digest: FrameDigest(width: f.visibleWidth, height: f.visibleHeight, md5: FrameMD5.hex(bytes)),
                       bytes: bytes, bytesPerSample: f.pixelFormat.bitDepth > 8 ? 2 : 1)
    }

    /// libavcodec's rate on `clip` decoded `passes` times (no read-back, frames dropped at once).
    public static func softwareRate(_ clip: CheckClip, passes: Int) throws -> DecodeObservation.Rate {
        let aus = AccessUnitSplitter.split(clip.bytes)
        let decoder = try SoftwareDecoder()
        let start = MonotonicClock.nowNs()
        var frames = 0
        for pass in 0..<passes {
            for (i, au) in aus.enumerated() { frames += try decoder.decode(accessUnit: au, pts: Int64(pass * aus.count + i)).count }
            if MonotonicClock.nowNs() - start > budgetNs { break }
        }
        frames += decoder.flush().count
        return .init(rung: "software", clip: clip.name, frames: frames, seconds: Double(MonotonicClock.nowNs() - start) / 1e9)
    }

    /// The VA rung's rate on `clip` decoded `passes` times (surfaces released without read-back).
    public static func vaRate(_ clip: CheckClip, connection: VADisplayConnection, passes: Int) throws -> DecodeObservation.Rate {
        let decoder = try VAAPIDecoder(connection: connection)
        return try surfaceRate(clip, rung: "vaapi", passes: passes,
                               decode: { try decoder.decode(accessUnit: $0, pts: $1).pictures }, flush: { try decoder.flush().pictures })
    }

    /// A hardware rung's rate on `clip` decoded `passes` times (surfaces released without read-back).
    static func surfaceRate(_ clip: CheckClip, rung: String, passes: Int, decode: ([UInt8], Int64) throws -> [DMABufFrame],
                            flush: () throws -> [DMABufFrame]) throws -> DecodeObservation.Rate {
        let aus = AccessUnitSplitter.split(clip.bytes)
        let start = MonotonicClock.nowNs()
        var frames = 0
        for pass in 0..<passes {
            for (i, au) in aus.enumerated() {
                let pictures = try decode(au, Int64(pass * aus.count + i))
                frames += pictures.count
                for f in pictures { f.lease.release() }
            }
            if MonotonicClock.nowNs() - start > budgetNs { break }
        }
        let tail = try flush()
        frames += tail.count
        for f in tail { f.lease.release() }
        return .init(rung: rung, clip: clip.name, frames: frames, seconds: Double(MonotonicClock.nowNs() - start) / 1e9)
    }

    /// Rate passes stop after this much time (ns).
    static let budgetNs: UInt64 = 1_000_000_000

    /// The kernel driver behind a /dev/dri node (sysfs), e.g. "i915".
    static func kernelDriver(_ path: String) -> String? {
        let node = (path as NSString).lastPathComponent
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/sys/class/drm/\(node)/device/driver")
        else { return nil }
        return (target as NSString).lastPathComponent
    }
}
