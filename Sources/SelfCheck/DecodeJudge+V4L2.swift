/// The decode section's V4L2 stateless decoders (the ARM boards' HEVC hardware): what `check`
/// found through the media controller and, for each real decoder, its pictures of the embedded
/// clips against libavcodec's, as for VA-API. "not available" (none found, the kernel's virtual
/// test driver, a node that does not open) is never "ok".

/// What the gatherer saw of V4L2 stateless decoders.
public struct V4L2DecodeObservation: Sendable {
    public struct Device: Sendable {
        /// The video node (/dev/videoN) and its media device.
        public var path: String
        public var mediaPath: String
        /// VIDIOC_QUERYCAP driver and card.
        public var driver: String
        public var card: String
        /// A virtual test driver (visl): takes the controls, draws test patterns.
        public var isVirtual: Bool
        /// How the driver wants the bitstream ("slice-based, no start codes").
        public var mode: String
        /// Why the device could not be used for the clips (session setup failed).
        public var openError: String?
        /// "Main" and "Main10": offered when the driver has a display format for the bit depth;
        /// the clips' comparisons (`vaError` holds the V4L2 rung's error).
        public var profiles: [DecodeObservation.Profile]
        public init(path: String, mediaPath: String, driver: String, card: String, isVirtual: Bool, mode: String,
                    openError: String? = nil, profiles: [DecodeObservation.Profile] = []) {
            self.path = path; self.mediaPath = mediaPath; self.driver = driver; self.card = card
            self.isVirtual = isVirtual; self.mode = mode; self.openError = openError; self.profiles = profiles
        }
    }

    public var devices: [Device]
    /// Why none was found (no /dev/media*, media devices without an HEVC decoder).
    public var absentReason: String?
    public init(devices: [Device] = [], absentReason: String? = nil) {
        self.devices = devices; self.absentReason = absentReason
    }
}

extension DecodeJudge {
    static func judge(_ o: V4L2DecodeObservation, rates: [DecodeObservation.Rate]) -> [Finding] {
        if o.devices.isEmpty {
            return [Finding(
                "V4L2", .notAvailable, "no V4L2 stateless HEVC decoder: \(o.absentReason ?? "none found").",
                action: "ARM boards (Raspberry Pi 5, RK3588, Allwinner, MediaTek) have one when their kernel driver is loaded (docs/kiosk.md); elsewhere VA-API or software decodes.",
                informational: true)]
        }
        return o.devices.flatMap { judge($0, rates: rates) }
    }

    static func judge(_ d: V4L2DecodeObservation.Device, rates: [DecodeObservation.Rate]) -> [Finding] {
        let subject = "\(d.path) (\(d.driver))"
        var facts = [Fact("media device", d.mediaPath), Fact("card", d.card), Fact("bitstream", d.mode)]
        if d.isVirtual {
            let clips = d.profiles.flatMap(\.clips)
            let accepted = clips.filter { $0.vaError == nil }
            for c in clips { facts.append(Fact(c.name, c.vaError.map { "controls refused or decode failed: \($0)" } ?? "controls accepted")) }
            return [Finding(
                subject, .notAvailable,
                "\(d.driver) is the kernel's virtual test decoder: it took the controls of \(accepted.count) of \(clips.count) clips but draws test patterns, so the kiosk never decodes on it.",
                action: "Unload it (modprobe -r \(d.driver)) unless you are testing V4L2 decoding.", facts: facts,
                informational: true)]
        }
        if let e = d.openError {
            return [Finding(subject, .notAvailable, "the V4L2 decoder \(d.driver) could not be used: \(e).",
                            action: "Check that the kiosk user may open \(d.path) and \(d.mediaPath) (group video) and that no other program holds the decoder.",
                            facts: facts)]
        }
        var out: [Finding] = []
        for p in d.profiles {
            let profileSubject = "\(subject) HEVC \(p.name)"
            guard p.offered else {
                out.append(Finding(profileSubject, .notAvailable, "\(d.driver) offers no display format for HEVC \(p.name).",
                                   action: p.name == "Main10" ? "HDR (10-bit) streams decode in software on this box." : nil,
                                   facts: facts))
                continue
            }
            var pf = facts
            var bad: Finding?
            var frames = 0
            for c in p.clips {
                let (verdict, sentence) = clipVerdict(c, rung: "V4L2")
                pf.append(Fact(c.name, sentence))
                if case .identical(let n)? = c.comparison { frames += n }
                if verdict == .failed, bad == nil {
                    bad = Finding(profileSubject, .failed, "\(c.name): \(sentence) (V4L2 driver \(d.driver)).",
                                  action: "Report this with the whole output; until it is fixed run the kiosk with --decoder software.")
                }
            }
            for r in rates where p.name == "Main" && r.clip.contains("1080") {
                pf.append(Fact("rate \(r.clip)", format(r.framesPerSecond) + " frames/s"))
            }
            if var bad { bad.facts = pf; out.append(bad); continue }
            out.append(p.clips.isEmpty
                ? Finding(profileSubject, .notAvailable, "no clip for HEVC \(p.name) was decoded.", facts: pf)
                : Finding(profileSubject, .ok, "bit-exact on \(d.driver): \(p.clips.count) clips, \(frames) frames equal to the software decode.",
                          facts: pf))
        }
        return out
    }
}
