import Audio
import Foundation
import VideoDecode
#if canImport(Glibc)
import Glibc
#endif

extension BoxAbilities {
    /// Main10 and multi-slice support of the decoder a session would use: the first rung of
    /// `rungs` whose hardware is present (a VA-API node that decodes HEVC Main, the V4L2
    /// stateless decoder the ladder would choose), else libavcodec.
    public static func decoder(rungs: [DecoderRungKind],
                               vaapi: () -> VAAPIProbe.Report = { VAAPIProbe.report() },
                               v4l2: () -> V4L2Probe.Report = { V4L2Probe.report() }) -> (main10: Fact<Bool>, multiSlice: Fact<Bool>) {
        for rung in rungs {
            switch rung {
            case .vaapi:
                let report = vaapi()
                guard report.decodableHEVCProfiles.contains(HEVCProfile.main.rawValue) else { continue }
                let nodes = report.renderNodes.filter { $0.hevcProfiles.contains { $0.decodable } }
                let named = nodes.map { n in n.path + (n.vendor.map { " (\($0))" } ?? "") }.joined(separator: ", ")
                let main10 = report.decodableHEVCProfiles.contains(HEVCProfile.main10.rawValue)
                return (Fact(main10, main10 ? "VA-API on \(named) decodes HEVC Main10"
                                            : "VA-API on \(named) decodes HEVC Main only (no Main10 with the YUV420_10 format)"),
                        Fact(true, "the VA-API rung submits every slice of a frame"))
            case .v4l2:
                let report = v4l2()
                guard let chosen = report.chosen, let device = report.devices.first(where: { $0.device.videoPath == chosen }) else { continue }
                return (Fact(device.decodesMain10, device.decodesMain10 ? "the V4L2 stateless decoder \(chosen) decodes Main10 (P010 capture)"
                                                                        : "the V4L2 stateless decoder \(chosen) has no 10-bit capture format"),
                        Fact(true, "the V4L2 rung passes every slice of a frame in one request"))
            case .software:
                return (Fact(true, "libavcodec decodes Main10 in software"),
                        Fact(true, "libavcodec decodes frames of several slices"))
            }
        }
        return (Fact(false, "no decoder rung is configured"), Fact(false, "no decoder rung is configured"))
    }

    /// Whether the CPU has AES instructions, from /proc/cpuinfo (x86 `flags`, arm64 `Features`).
    public static func aesInHardware(cpuinfo: String? = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) -> Fact<Bool> {
        guard let cpuinfo else { return Fact(true, "/proc/cpuinfo is unreadable; AES-128-GCM, the hosts' default") }
        for line in cpuinfo.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            guard key == "flags" || key == "Features" else { continue }
            let has = parts[1].split(separator: " ").contains("aes")
            return has ? Fact(true, "the CPU has AES instructions (cpuinfo \(key): aes)")
                       : Fact(false, "the CPU has no AES instructions: ChaCha20-Poly1305 costs it less")
        }
        return Fact(true, "/proc/cpuinfo lists no CPU features; AES-128-GCM, the hosts' default")
    }

    /// gethostname(2), "" when it fails.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension BoxAbilities {
    /// Channels the ALSA PCM `device` can play (its ELD's speaker allocation, else its channel
    /// range), as 2, 6 or 8.
    public static func soundChannels(device: String) -> Fact<UInt8> {
        let (channels, reason) = AudioChannelCapability.probe(device: device)
        return Fact(channels, reason)
    }
}
