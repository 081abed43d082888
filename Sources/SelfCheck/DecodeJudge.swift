import Foundation

/// The decode section: the VA-API rung's pictures against libavcodec's for the same clips.
/// HEVC decoding is bit-exact by specification, so any difference is a fault of the VA driver or
/// of our parameters; "not available" (no device, no driver, profile not offered) is never "ok".

/// One output picture as `ffmpeg -f framemd5` sees it: size and the MD5 of its native planes.
public struct FrameDigest: Sendable, Equatable, Codable {
    public var width: Int
    public var height: Int
    public var md5: String
    public init(width: Int, height: Int, md5: String) { self.width = width; self.height = height; self.md5 = md5 }
}

/// Two decodes of one clip, frame by frame.
public enum FrameComparison: Sendable, Equatable {
    /// Every frame equal, same count.
    case identical(frames: Int)
    /// `frame` is the first output index where the two differ (a missing frame counts as a
    /// difference at the shorter list's end).
    case differs(frame: Int, referenceFrames: Int, candidateFrames: Int)

    public static func compare(reference: [FrameDigest], candidate: [FrameDigest]) -> FrameComparison {
        for (i, (r, c)) in zip(reference, candidate).enumerated() where r != c {
            return .differs(frame: i, referenceFrames: reference.count, candidateFrames: candidate.count)
        }
        if reference.count != candidate.count {
            return .differs(frame: min(reference.count, candidate.count), referenceFrames: reference.count,
                            candidateFrames: candidate.count)
        }
        return .identical(frames: reference.count)
    }
}

public enum FrameMD5Text {
    /// The digests of `ffmpeg -f framemd5` (or `punktfunk-kiosk decode --framemd5`) output: one
    /// per data line, sized by the latest `#dimensions` header (0×0 when there is none).
    public static func parse(_ text: String) -> [FrameDigest] {
        var width = 0, height = 0
        var out: [FrameDigest] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#dimensions") {
                let dims = line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces).split(separator: "x") ?? []
                if dims.count == 2, let w = Int(dims[0]), let h = Int(dims[1]) { width = w; height = h }
                continue
            }
            guard !line.hasPrefix("#"), !line.isEmpty else { continue }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 6, let md5 = fields.last, md5.count == 32 else { continue }
            out.append(FrameDigest(width: width, height: height, md5: md5))
        }
        return out
    }
}

public enum PixelDifference {
    /// The largest absolute sample difference of two pictures in the same layout (`bytesPerSample`
    /// 1 for 8-bit, 2 for little-endian 16-bit containers of 10-bit samples); nil when the sizes
    /// differ.
    public static func max(_ a: [UInt8], _ b: [UInt8], bytesPerSample: Int) -> Int? {
        guard a.count == b.count else { return nil }
        var worst = 0
        if bytesPerSample == 2 {
            var i = 0
            while i + 1 < a.count {
                let x = Int(a[i]) | Int(a[i + 1]) << 8, y = Int(b[i]) | Int(b[i + 1]) << 8
                worst = Swift.max(worst, abs(x - y))
                i += 2
            }
        } else {
            for i in 0..<a.count { worst = Swift.max(worst, abs(Int(a[i]) - Int(b[i]))) }
        }
        return worst
    }
}

/// What the gatherer saw for decode.
public struct DecodeObservation: Sendable {
    public struct Clip: Sendable {
        public var name: String
        /// nil: the VA rung decoded it (see `comparison`).
        public var vaError: String?
        public var comparison: FrameComparison?
        /// Largest sample difference in the first differing frame (nil when identical or sizes differ).
        public var maxDifference: Int?
        /// The first VA-API picture as exported (DRM fourcc, modifier of its first object): what a
        /// compositor's dma-buf import would be asked to take.
        public var exported: WaylandObservation.Pair?
        public init(name: String, vaError: String? = nil, comparison: FrameComparison? = nil, maxDifference: Int? = nil,
                    exported: WaylandObservation.Pair? = nil) {
            self.name = name; self.vaError = vaError; self.comparison = comparison; self.maxDifference = maxDifference
            self.exported = exported
        }
    }

    public struct Profile: Sendable {
        /// "Main", "Main10".
        public var name: String
        /// The driver offers VLD decode with the profile's RT format.
        public var offered: Bool
        public var clips: [Clip]
        public init(name: String, offered: Bool, clips: [Clip] = []) { self.name = name; self.offered = offered; self.clips = clips }
    }

    public struct Node: Sendable {
        public var path: String
        /// Kernel driver of the node (i915, amdgpu, virtio_gpu …).
        public var kernelDriver: String?
        /// The VA driver's vendor string (name and version); nil when it did not initialise.
        public var vendor: String?
        /// Why the VA driver did not initialise.
        public var openError: String?
        public var profiles: [Profile]
        /// The node's DRM driver name (DRM_IOCTL_VERSION); nil when unknown.
        public var drmDriver: String?
        /// The sync path decoded pictures take on this node ("sync-file" / "va-sync-surface")
        /// and the sentence saying why; nil when the node did not open.
        public var syncPath: String?
        public var syncWhy: String?
        public init(path: String, kernelDriver: String? = nil, vendor: String? = nil, openError: String? = nil,
                    profiles: [Profile] = [], drmDriver: String? = nil, syncPath: String? = nil, syncWhy: String? = nil) {
            self.path = path; self.kernelDriver = kernelDriver; self.vendor = vendor; self.openError = openError
            self.profiles = profiles; self.drmDriver = drmDriver; self.syncPath = syncPath; self.syncWhy = syncWhy
        }
    }

    /// Decode rate of one rung on one clip.
    public struct Rate: Sendable, Equatable {
        public var rung: String
        public var clip: String
        public var frames: Int
        public var seconds: Double
        public var framesPerSecond: Double { seconds > 0 ? Double(frames) / seconds : 0 }
        public init(rung: String, clip: String, frames: Int, seconds: Double) {
            self.rung = rung; self.clip = clip; self.frames = frames; self.seconds = seconds
        }
    }

    public var nodes: [Node]
    /// The software rung on the embedded clips: nil when it worked, else why not.
    public var softwareError: String?
    public var rates: [Rate]
    /// The V4L2 stateless decoders (ARM boards).
    public var v4l2: V4L2DecodeObservation

    public init(nodes: [Node], softwareError: String? = nil, rates: [Rate] = [],
                v4l2: V4L2DecodeObservation = V4L2DecodeObservation()) {
        self.nodes = nodes; self.softwareError = softwareError; self.rates = rates; self.v4l2 = v4l2
    }
}

public enum DecodeJudge {
    /// The rate a rung needs on the 1080p clip to keep up with a 1080p60 stream.
    public static let realTimeFPS = 60.0

    public static func judge(_ o: DecodeObservation) -> Section {
        var findings: [Finding] = []
        let vaRates = o.rates.filter { $0.rung == "vaapi" }
        if o.nodes.isEmpty {
            findings.append(Finding(
                "VA-API", .notAvailable, "no VA-API device: there is no DRM render node (/dev/dri/renderD*).",
                action: "Streams decode in software (libavcodec); a GPU with a VA-API driver decodes HEVC in hardware."))
        }
        for node in o.nodes { findings += judge(node, rates: vaRates) + sync(node) }
        let v4l2 = judge(o.v4l2, rates: o.rates.filter { $0.rung == "v4l2" })
        // A board that decodes on V4L2 has no VA-API device by nature: that is a side fact there.
        if v4l2.contains(where: { $0.verdict == .ok }) {
            for i in findings.indices where findings[i].verdict == .notAvailable { findings[i].informational = true }
        }
        findings.append(software(o))
        findings += v4l2
        return Section(.decode, findings)
    }

    static func judge(_ node: DecodeObservation.Node, rates: [DecodeObservation.Rate]) -> [Finding] {
        let kernel = node.kernelDriver.map { " (\($0))" } ?? ""
        guard let vendor = node.vendor, node.openError == nil else {
            return [Finding(
                node.path, .notAvailable,
                "no VA-API device: no VA driver initialises on \(node.path)\(kernel): \(node.openError ?? "unknown error").",
                action: "Install the VA-API driver for this GPU (intel-media-va-driver, mesa-va-drivers) for hardware decode; until then streams decode in software.")]
        }
        var out: [Finding] = []
        if !node.profiles.contains(where: \.offered) {
            out.append(Finding(node.path, .notAvailable,
                               "\(vendor) offers no HEVC decode (Main or Main10 with VLD).",
                               action: "This GPU cannot decode HEVC in hardware; streams decode in software.",
                               facts: [Fact("vendor", vendor)]))
            return out
        }
        for p in node.profiles {
            let subject = "\(node.path) HEVC \(p.name)"
            guard p.offered else {
                out.append(Finding(subject, .notAvailable, "\(vendor) does not offer HEVC \(p.name) decode.",
                                   action: p.name == "Main10" ? "HDR (10-bit) streams decode in software on this box." : nil))
                continue
            }
            var facts: [Fact] = [Fact("vendor", vendor)]
            var bad: Finding?
            var frames = 0
            for c in p.clips {
                let (verdict, sentence) = clipVerdict(c)
                facts.append(Fact(c.name, sentence))
                if case .identical(let n)? = c.comparison { frames += n }
                if verdict == .failed, bad == nil {
                    bad = Finding(subject, .failed, "\(c.name): \(sentence) (VA driver \(vendor)).",
                                  action: "Report this with the whole output; until it is fixed run the kiosk with --decoder software.")
                }
            }
            for r in rates where p.name == "Main" {  // the rate clip is 8-bit
                facts.append(Fact("rate \(r.clip)", format(r.framesPerSecond) + " frames/s"))
            }
            if var bad { bad.facts = facts; out.append(bad); continue }
            if p.clips.isEmpty {
                out.append(Finding(subject, .notAvailable, "no clip for HEVC \(p.name) was decoded.", facts: facts))
            } else {
                out.append(Finding(subject, .ok, "bit-exact on \(vendor): \(p.clips.count) clips, \(frames) frames equal to the software decode.",
                                   facts: facts))
            }
        }
        return out
    }

    /// Which fence the display waits on for this node's pictures, and why: informational (each
    /// path is correct where the table chooses it); nothing for a node that did not open.
    static func sync(_ node: DecodeObservation.Node) -> [Finding] {
        guard let path = node.syncPath, let why = node.syncWhy else { return [] }
        return [Finding("\(node.path) decode sync", .ok, "\(path): \(why).",
                        facts: [Fact("DRM driver", node.drmDriver ?? "unknown"), Fact("path", path)], informational: true)]
    }

    /// One clip's verdict and sentence; `rung` names the hardware rung.
    public static func clipVerdict(_ c: DecodeObservation.Clip, rung: String = "VA-API") -> (Verdict, String) {
        if let e = c.vaError { return (.failed, "the \(rung) rung failed: \(e)") }
        switch c.comparison {
        case .identical(let n)?: return (.ok, "bit-exact, \(n) frames")
        case .differs(let frame, let ref, let got)?:
            if ref != got, frame == min(ref, got) {
                return (.failed, "the \(rung) rung put out \(got) frames, the software rung \(ref)")
            }
            let diff = c.maxDifference.map { ", max difference \($0)" } ?? ""
            return (.failed, "frame \(frame) differs from the software decode\(diff)")
        case nil: return (.notAvailable, "not compared")
        }
    }

    static func software(_ o: DecodeObservation) -> Finding {
        if let e = o.softwareError {
            return Finding("software rung", .failed, "libavcodec cannot decode the embedded clips: \(e).",
                           action: "Install libavcodec59 (Debian's FFmpeg libraries) with HEVC support.")
        }
        let rates = o.rates.filter { $0.rung == "software" }
        let facts = rates.map { Fact("rate \($0.clip)", format($0.framesPerSecond) + " frames/s (\($0.frames) frames)") }
        guard let r = rates.first(where: { $0.clip.contains("1080") }) else {
            return Finding("software rung", .ok, "libavcodec decodes the embedded clips.", facts: facts)
        }
        let fps = r.framesPerSecond
        if fps >= realTimeFPS {
            return Finding("software rung", .ok, "libavcodec decodes 1080p at \(format(fps)) frames/s, enough for 1080p60.", facts: facts)
        }
        return Finding("software rung", .degraded,
                       "libavcodec decodes 1080p at \(format(fps)) frames/s, below the \(Int(realTimeFPS)) a 1080p60 stream needs.",
                       action: "Without VA-API ask the host for a lower resolution or frame rate.", facts: facts)
    }

    static func format(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
