/// Any punktfunk/2 control-stream message, decoded by frame type (control-plane.md §2.1).
///
/// A frame whose type this build does not know (including retired types such as 0x2D) becomes
/// `.unknown(type:body:)`, which the caller skips; its bytes are kept so it re-encodes exactly.
/// A known type with a malformed body throws.
public enum ControlMessage: Equatable, Sendable {
    case clientHello(ClientHello)
    case serverHello(ServerHello)
    case ready(Ready)
    case pending(Pending)
    case redirect(Redirect)
    case refused(Refused)
    case pairRequest(PairRequest)
    case pairChallenge(PairChallenge)
    case pairProof(PairProof)
    case pairResult(PairResult)
    case authChallenge(AuthChallenge)
    case authResponse(AuthResponse)
    case reconfigure(Reconfigure)
    case reconfigured(Reconfigured)
    case streamConfig(StreamConfig)
    case audioConfig(AudioConfig)
    case setBitrate(SetBitrate)
    case bitrateChanged(BitrateChanged)
    case pipelineGap(PipelineGap)
    case probeRequest(ProbeRequest)
    case probeResult(ProbeResult)
    case cursorShape(CursorShape)
    case cursorRenderMode(CursorRenderMode)
    case accessUpdate(AccessUpdate)
    case audioState(AudioState)
    case launchOutcome(LaunchOutcome)
    case padSlots(PadSlots)
    case shardPayloadChanged(ShardPayloadChanged)
    case shardPayloadAck(ShardPayloadAck)
    case clockProbe(ClockProbe)
    case clockEcho(ClockEcho)
    case clipControl(ClipControl)
    case clipState(ClipState)
    case clipOffer(ClipOffer)
    case clipFetch(ClipFetch)
    case clipFetchHeader(ClipFetchHeader)
    case inputEvent(InputEdge)
    case padIdentity(PadIdentity)
    case padFeature(PadFeature)
    /// A frame type this build does not decode; skip it.
    case unknown(type: UInt64, body: [UInt8])

    /// Decodes `frame` by its type; unknown types map to `.unknown`.
    public init(frame: ControlFrame) throws(WireError) {
        guard let type = ControlMessageType(rawValue: frame.type) else {
            self = .unknown(type: frame.type, body: frame.body)
            return
        }
        let b = frame.body
        switch type {
        case .clientHello: self = .clientHello(try ClientHello(body: b))
        case .serverHello: self = .serverHello(try ServerHello(body: b))
        case .ready: self = .ready(try Ready(body: b))
        case .pending: self = .pending(try Pending(body: b))
        case .redirect: self = .redirect(try Redirect(body: b))
        case .refused: self = .refused(try Refused(body: b))
        case .pairRequest: self = .pairRequest(try PairRequest(body: b))
        case .pairChallenge: self = .pairChallenge(try PairChallenge(body: b))
        case .pairProof: self = .pairProof(try PairProof(body: b))
        case .pairResult: self = .pairResult(try PairResult(body: b))
        case .authChallenge: self = .authChallenge(try AuthChallenge(body: b))
        case .authResponse: self = .authResponse(try AuthResponse(body: b))
        case .reconfigure: self = .reconfigure(try Reconfigure(body: b))
        case .reconfigured: self = .reconfigured(try Reconfigured(body: b))
        case .streamConfig: self = .streamConfig(try StreamConfig(body: b))
        case .audioConfig: self = .audioConfig(try AudioConfig(body: b))
        case .setBitrate: self = .setBitrate(try SetBitrate(body: b))
        case .bitrateChanged: self = .bitrateChanged(try BitrateChanged(body: b))
        case .pipelineGap: self = .pipelineGap(try PipelineGap(body: b))
        case .probeRequest: self = .probeRequest(try ProbeRequest(body: b))
        case .probeResult: self = .probeResult(try ProbeResult(body: b))
        case .cursorShape: self = .cursorShape(try CursorShape(body: b))
        case .cursorRenderMode: self = .cursorRenderMode(try CursorRenderMode(body: b))
        case .accessUpdate: self = .accessUpdate(try AccessUpdate(body: b))
        case .audioState: self = .audioState(try AudioState(body: b))
        case .launchOutcome: self = .launchOutcome(try LaunchOutcome(body: b))
        case .padSlots: self = .padSlots(try PadSlots(body: b))
        case .shardPayloadChanged: self = .shardPayloadChanged(try ShardPayloadChanged(body: b))
        case .shardPayloadAck: self = .shardPayloadAck(try ShardPayloadAck(body: b))
        case .clockProbe: self = .clockProbe(try ClockProbe(body: b))
        case .clockEcho: self = .clockEcho(try ClockEcho(body: b))
        case .clipControl: self = .clipControl(try ClipControl(body: b))
        case .clipState: self = .clipState(try ClipState(body: b))
        case .clipOffer: self = .clipOffer(try ClipOffer(body: b))
        case .clipFetch: self = .clipFetch(try ClipFetch(body: b))
        case .clipFetchHeader: self = .clipFetchHeader(try ClipFetchHeader(body: b))
        case .inputEvent: self = .inputEvent(try InputEdge(body: b))
        case .padIdentity: self = .padIdentity(try PadIdentity(body: b))
        case .padFeature: self = .padFeature(try PadFeature(body: b))
        }
    }

    /// Decodes one whole encoded frame (header + body, nothing after it).
    public init(decoding bytes: [UInt8]) throws(WireError) {
        try self.init(frame: ControlFrame.decode(bytes))
    }

    /// The typed message inside, nil for `.unknown`.
    public var message: (any ControlMessageCodable)? {
        switch self {
        case .clientHello(let m): return m
        case .serverHello(let m): return m
        case .ready(let m): return m
        case .pending(let m): return m
        case .redirect(let m): return m
        case .refused(let m): return m
        case .pairRequest(let m): return m
        case .pairChallenge(let m): return m
        case .pairProof(let m): return m
        case .pairResult(let m): return m
        case .authChallenge(let m): return m
        case .authResponse(let m): return m
        case .reconfigure(let m): return m
        case .reconfigured(let m): return m
        case .streamConfig(let m): return m
        case .audioConfig(let m): return m
        case .setBitrate(let m): return m
        case .bitrateChanged(let m): return m
        case .pipelineGap(let m): return m
        case .probeRequest(let m): return m
        case .probeResult(let m): return m
        case .cursorShape(let m): return m
        case .cursorRenderMode(let m): return m
        case .accessUpdate(let m): return m
        case .audioState(let m): return m
        case .launchOutcome(let m): return m
        case .padSlots(let m): return m
        case .shardPayloadChanged(let m): return m
        case .shardPayloadAck(let m): return m
        case .clockProbe(let m): return m
        case .clockEcho(let m): return m
        case .clipControl(let m): return m
        case .clipState(let m): return m
        case .clipOffer(let m): return m
        case .clipFetch(let m): return m
        case .clipFetchHeader(let m): return m
        case .inputEvent(let m): return m
        case .padIdentity(let m): return m
        case .padFeature(let m): return m
        case .unknown: return nil
        }
    }

    /// The frame type on the wire.
    public var type: UInt64 {
        if case .unknown(let type, _) = self { return type }
        return message.map { Swift.type(of: $0).messageType.rawValue } ?? 0
    }

    /// This message as a frame.
    public var frame: ControlFrame {
        if case .unknown(let type, let body) = self { return ControlFrame(type: type, body: body) }
        return message?.frame ?? ControlFrame(type: 0, body: [])  // every other case has a message
    }

    /// Header plus body, ready for the control stream.
    public var encoded: [UInt8] { frame.encoded }
}
