import PunktfunkWire

/// What this box can honour end to end, each with the sentence that says why — the input of
/// `HelloPlan`. Gathered by `BoxAbilities.gather` (`BoxAbilities+Gather.swift`) from what `probe` and
/// `check` see; pure values here, so a plan can be tested from any facts.
public struct BoxAbilities: Sendable, Equatable {
    /// A yes/no (or a value) and why.
    public struct Fact<Value: Sendable & Equatable>: Sendable, Equatable {
        public var value: Value
        public var why: String
        public init(_ value: Value, _ why: String) { self.value = value; self.why = why }
    }

    /// What the screen can signal.
    public enum Panel: Sendable, Equatable {
        /// No screen (`--headless`): pictures are decoded or counted, never shown.
        case headless
        /// A screen without HDR signalling; `why` says what is missing.
        case sdr(why: String)
        /// A screen whose sink takes HDR10: the panel's metadata (ClientHello tag 13 body).
        case hdr10(HDRMetadata, why: String)
    }

    /// The decoder the session will use decodes HEVC Main10.
    public var main10: Fact<Bool>
    /// The decoder takes an AU of several slices (VIDEO_CAP_MULTI_SLICE).
    public var multiSlice: Fact<Bool>
    public var panel: Panel
    /// Channels the sound device can play (2, 6 or 8); nil when the session plays no sound.
    public var soundChannels: Fact<UInt8>?
    /// The CPU encrypts AES in hardware (else ChaCha20-Poly1305 is cheaper for the media path).
    public var aesInHardware: Fact<Bool>
    /// The machine's host name (the default device name).
    public var hostName: String
    /// The screen draws the host's pointer itself (CLIENT_CAP_CURSOR).
    public var drawsPointer: Fact<Bool>

    public init(main10: Fact<Bool>, multiSlice: Fact<Bool>, panel: Panel, soundChannels: Fact<UInt8>?,
                aesInHardware: Fact<Bool>, hostName: String,
                drawsPointer: Fact<Bool> = Fact(false, "no screen draws it")) {
        self.main10 = main10; self.multiSlice = multiSlice; self.panel = panel
        self.soundChannels = soundChannels; self.aesInHardware = aesInHardware; self.hostName = hostName
        self.drawsPointer = drawsPointer
    }
}
