/// Which ALSA device plays the session, and the sentence that says why (the start-up line).
/// Pure: the caller scans the cards (`AlsaCardScan`) and reads the connector's EDID.
///
/// Order: an explicit `--audio-device`; else the HDMI/DP PCM whose ELD names the display on the
/// kiosk's connector; else, when exactly one HDMI/DP jack reports a sink present, that one (a
/// box with one screen plugged in); else `default`.
public struct AudioDeviceChoice: Equatable, Sendable {
    /// The PCM name for `snd_pcm_open`.
    public var device: String
    /// Why it was chosen, for the start-up line.
    public var reason: String

    public init(device: String, reason: String) { self.device = device; self.reason = reason }

    /// One HDMI/DP output of a card: its PCM device number, its jack and its ELD.
    public struct HDMIOutput: Equatable, Sendable {
        public var card: Int
        /// The card's id (`CARD=` in PCM names), e.g. "PCH", "HDMI".
        public var cardID: String
        public var device: Int
        /// The jack control reports a sink (nil: the card has no jack control for it).
        public var jackPresent: Bool?
        /// The sink the ELD describes (nil: no ELD or empty: nothing connected).
        public var sink: DisplayIdentity?

        public init(card: Int, cardID: String, device: Int, jackPresent: Bool?, sink: DisplayIdentity?) {
            self.card = card; self.cardID = cardID; self.device = device
            self.jackPresent = jackPresent; self.sink = sink
        }

        /// `hdmi:CARD=id,DEV=n` names the card's n-th HDMI PCM in alsa-lib's card configs; the
        /// plain `hw:` form works on every card and is what we open.
        public var pcmName: String { "hw:CARD=\(cardID),DEV=\(device)" }
        /// A sink is connected (jack says so, or an ELD is present).
        public var connected: Bool { jackPresent ?? (sink != nil) || sink != nil }
    }

    /// - Parameters:
    ///   - explicit: `--audio-device`, if given.
    ///   - display: the kiosk's connector name and the identity its EDID gives (nil when headless
    ///     or unreadable).
    ///   - outputs: every HDMI/DP output found.
    public static func choose(explicit: String?, display: (connector: String, identity: DisplayIdentity?)?,
                              outputs: [HDMIOutput]) -> AudioDeviceChoice {
        if let explicit { return .init(device: explicit, reason: "given with --audio-device") }
        if let display, let identity = display.identity {
            let matched = outputs.filter { $0.sink.map { $0.matches(identity) } ?? false }
            if let first = matched.first {
                let also = matched.count > 1 ? " (first of \(matched.count) matching outputs)" : ""
                return .init(device: first.pcmName,
                             reason: "the HDMI/DP output whose ELD names \(identity), the display on \(display.connector)\(also)")
            }
        }
        let connected = outputs.filter(\.connected)
        if connected.count == 1, let only = connected.first {
            let sink = only.sink.map { " (\($0))" } ?? ""
            let why = display == nil ? "headless" : display?.identity == nil ? "the connector's EDID is unreadable" : "no ELD matched the display"
            return .init(device: only.pcmName, reason: "the only HDMI/DP output with a sink connected\(sink); \(why)")
        }
        let why: String
        if outputs.isEmpty { why = "no HDMI/DP outputs found" }
        else if connected.isEmpty { why = "no HDMI/DP output reports a sink" }
        else { why = "\(connected.count) HDMI/DP outputs have sinks and none matched the display" }
        return .init(device: "default", reason: why)
    }
}
