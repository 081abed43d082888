/// Every punktfunk/2 control-stream frame type this build decodes (control-plane.md §2.1, §3,
/// §5.1, §6.2; registry `FRAMES` table).
///
/// Ranges: handshake 0x01–0x0F, pairing 0x10–0x1F, session control 0x20–0x3F, clipboard
/// 0x40–0x4F, input 0x50–0x5F. Retired types (0x2D PhaseReport, the §5.4 transition messages)
/// are deliberately absent, so they decode as `ControlMessage.unknown` and are skipped.
public enum ControlMessageType: UInt64, Sendable, CaseIterable {
    // Handshake — control-plane.md §3.2–§3.4
    case clientHello = 0x01
    case serverHello = 0x02
    case ready = 0x03
    case pending = 0x04
    case redirect = 0x05
    case refused = 0x06
    // Pairing and browser-plane auth — control-plane.md §6.2, §1.5
    case pairRequest = 0x10
    case pairChallenge = 0x11
    case pairProof = 0x12
    case pairResult = 0x13
    case authChallenge = 0x14
    case authResponse = 0x15
    // Session control — control-plane.md §5.1
    case reconfigure = 0x20
    case reconfigured = 0x21
    case streamConfig = 0x22
    case audioConfig = 0x23
    case setBitrate = 0x24
    case bitrateChanged = 0x25
    case pipelineGap = 0x26
    case probeRequest = 0x2B
    case probeResult = 0x2C
    case cursorShape = 0x30
    case cursorRenderMode = 0x31
    case accessUpdate = 0x32
    case audioState = 0x33
    case launchOutcome = 0x34
    case padSlots = 0x35
    case shardPayloadChanged = 0x38
    case shardPayloadAck = 0x39
    case clockProbe = 0x3A
    case clockEcho = 0x3B
    // Clipboard — control-plane.md §5.1 (0x43/0x44 ride STREAM_TRANSFER)
    case clipControl = 0x40
    case clipState = 0x41
    case clipOffer = 0x42
    case clipFetch = 0x43
    case clipFetchHeader = 0x44
    // Input — control-plane.md §5.1
    case inputEvent = 0x50
    case padIdentity = 0x51
    case padFeature = 0x52

    /// The largest body a reader accepts for this type (`ControlFrame.bodyLimit`).
    public var bodyLimit: Int { ControlFrame.bodyLimit(forType: rawValue) }
}
