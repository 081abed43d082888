import Foundation
import PunktfunkWire

/// The one JSON line pf-testhost prints per session with what the client asked for in its
/// ClientHello (control-plane.md §3.2), for checks to assert on:
/// `{"client_hello":{"video_caps":N,"client_caps":N,"native_features":[…],"audio_channels":N,
/// "audio_rate_hz":N,"audio_bits":N,"audio_layout":N,"display_hdr":"56 hex digits"|null,
/// "name":"…"|null,"suites":[ids…],"codecs":N,"preferred_codec":N,"mode":{…},"bitrate_kbps":N,
/// "launch":"…"|null,"link":{"kind":N,"mbps":N}}}` (link: tag 22, kind 0 unknown when not sent).
/// Caps are the tag-9 bytes (bits 0–7, 8–15) as integers; suites are the wire ids, most wanted
/// first; `display_hdr` is tag 13's 28-byte body in wire order.
public enum ClientHelloLog {
    public static func json(_ hello: ClientHello) -> String {
        let hdr = hello.displayHDR.map { "\"" + $0.encoded.map { String(format: "%02x", $0) }.joined() + "\"" } ?? "null"
        let name = hello.name.map(DatagramLog.quote) ?? "null"
        let native = (32..<FeatureSet.bitCount).filter { hello.features.contains($0) }
        return "{\"client_hello\":{\"video_caps\":\(hello.features.videoCaps.rawValue),"
            + "\"client_caps\":\(hello.features.clientCaps.rawValue),\"native_features\":\(native),"
            + "\"audio_channels\":\(hello.audioChannels),\"audio_rate_hz\":\(hello.audioRateHz),"
            + "\"audio_bits\":\(hello.audioBits),\"audio_layout\":\(hello.audioLayout.rawValue),"
            + "\"display_hdr\":\(hdr),\"name\":\(name),\"suites\":\(hello.suites.map(\.rawValue)),"
            + "\"codecs\":\(hello.videoCodecs.rawValue),\"preferred_codec\":\(hello.preferredCodec.rawValue),"
            + "\"mode\":{\"width\":\(hello.mode.width),\"height\":\(hello.mode.height),\"refresh_hz\":\(hello.mode.refreshHz)},"
            + "\"bitrate_kbps\":\(hello.bitrateKbps),\"launch\":\(hello.launch.map(DatagramLog.quote) ?? "null"),"
            + "\"link\":{\"kind\":\(hello.link.kind.rawValue),\"mbps\":\(hello.link.mbps)}}}"
    }
}
