import Foundation
import HEVC
import SelfCheck
import VideoDecode
import VideoFrames

/// The decode section's V4L2 part: every V4L2 stateless HEVC decoder the media controller lists,
/// its pictures of the embedded clips against libavcodec's, and its decode rate. A virtual test
/// driver (visl) gets the clips too — whether it takes the controls — but no comparison: it draws
/// test patterns.
extension DecodeCheck {
    public static func observeV4L2(scan: () -> (devices: [V4L2DecoderDevice], skipped: [V4L2Decoders.Skipped]) = { V4L2Decoders.scan() },
                                   clips: [CheckClip], references: [String: [Picture]],
                                   ratePasses: Int) -> (observation: V4L2DecodeObservation, rates: [DecodeObservation.Rate]) {
        let (devices, skipped) = scan()
        guard !devices.isEmpty else {
            let why = skipped.isEmpty ? "no media controller device (/dev/media*)"
                : skipped.map { "\($0.path): \($0.reason)" }.joined(separator: "; ")
            return (V4L2DecodeObservation(absentReason: why), [])
        }
        var observed: [V4L2DecodeObservation.Device] = []
        var rates: [DecodeObservation.Rate] = []
        for d in devices {
            let mode = (d.defaultDecodeMode == .sliceBased ? "slice-based" : "frame-based")
                + (d.defaultStartCode == .annexB ? ", Annex B start codes" : ", no start codes")
            var device = V4L2DecodeObservation.Device(path: d.videoPath, mediaPath: d.mediaPath, driver: d.driver, card: d.card,
                                                      isVirtual: d.isVirtual, mode: mode)
            for profile in HEVCProfile.allCases {
                let offered = d.isVirtual || (profile == .main ? d.decodesMain : d.decodesMain10)
                var p = DecodeObservation.Profile(name: profile.rawValue, offered: offered)
                if offered {
                    for clip in clips where clip.profile == profile {
                        p.clips.append(compare(clip: clip, device: d, reference: d.isVirtual ? nil : references[clip.name]))
                    }
                }
                device.profiles.append(p)
            }
            observed.append(device)
            if ratePasses > 0, !d.isVirtual, d.decodesMain, let r = try? v4l2Rate(CheckClip.rate, device: d, passes: ratePasses) {
                rates.append(r)
            }
        }
        return (V4L2DecodeObservation(devices: observed), rates)
    }

    /// The V4L2 rung's pictures of `clip` against `reference` (nil: decode only, no comparison).
    static func compare(clip: CheckClip, device: V4L2DecoderDevice, reference: [Picture]?) -> DecodeObservation.Clip {
        let pictures: [Picture]
        do { pictures = try v4l2Pictures(clip.bytes, device: device, readBack: reference != nil) } catch {
            return .init(name: clip.name, vaError: "\(error)")
        }
        guard let reference else { return .init(name: clip.name) }
        let comparison = FrameComparison.compare(reference: reference.map(\.digest), candidate: pictures.map(\.digest))
        var maxDifference: Int?
        if case .differs(let i, _, _) = comparison, i < pictures.count, i < reference.count {
            maxDifference = PixelDifference.max(reference[i].bytes, pictures[i].bytes, bytesPerSample: reference[i].bytesPerSample)
        }
        return .init(name: clip.name, comparison: comparison, maxDifference: maxDifference)
    }

    /// The V4L2 rung's pictures of an Annex-B stream in output order, read back when `readBack`
    /// (else only counted: a virtual driver's test patterns).
    public static func v4l2Pictures(_ stream: [UInt8], device: V4L2DecoderDevice, readBack: Bool = true) throws -> [Picture] {
        let decoder = V4L2Decoder(device: device)
        var out: [Picture] = []
        for (i, au) in AccessUnitSplitter.split(stream).enumerated() {
            try collect(try decoder.decode(accessUnit: au, pts: Int64(i)).pictures, into: &out, readBack: readBack)
        }
        try collect(try decoder.flush().pictures, into: &out, readBack: readBack)
        return out
    }

    /// The V4L2 rung's rate on `clip` decoded `passes` times (pictures released without read-back).
    public static func v4l2Rate(_ clip: CheckClip, device: V4L2DecoderDevice, passes: Int) throws -> DecodeObservation.Rate {
        let decoder = V4L2Decoder(device: device)
        return try surfaceRate(clip, rung: "v4l2", passes: passes,
                               decode: { try decoder.decode(accessUnit: $0, pts: $1).pictures }, flush: { try decoder.flush().pictures })
    }
}
