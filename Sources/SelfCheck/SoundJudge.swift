/// The sound section: the ALSA device the kiosk would choose, why, and a short silent open.
public struct SoundObservation: Sendable {
    /// A silent open at 48 kHz with the sink's period size.
    public struct Open: Sendable, Equatable {
        public var device: String
        /// nil: it opened and played.
        public var error: String?
        /// The device's channel and rate ranges (hw_params), e.g. 2...8, 32000...192000.
        public var channels: ClosedRange<Int>?
        public var rates: ClosedRange<Int>?
        public var channelsUsed: Int
        public var rate: Int
        public var periodFramesAsked: Int
        public var periodFramesGranted: Int?
        /// Seconds of silence written.
        public var seconds: Double
        public init(device: String, error: String? = nil, channels: ClosedRange<Int>? = nil, rates: ClosedRange<Int>? = nil,
                    channelsUsed: Int = 2, rate: Int = 48000, periodFramesAsked: Int, periodFramesGranted: Int? = nil,
                    seconds: Double = 0.5) {
            self.device = device; self.error = error; self.channels = channels; self.rates = rates
            self.channelsUsed = channelsUsed; self.rate = rate; self.periodFramesAsked = periodFramesAsked
            self.periodFramesGranted = periodFramesGranted; self.seconds = seconds
        }
    }

    /// Sound cards seen (`/proc/asound/cards` names).
    public var cards: [String]
    /// The device the kiosk would choose and why (AudioDeviceChoice).
    public var device: String
    public var reason: String
    public var open: Open?

    public init(cards: [String], device: String, reason: String, open: Open?) {
        self.cards = cards; self.device = device; self.reason = reason; self.open = open
    }
}

public enum SoundJudge {
    public static func judge(_ o: SoundObservation) -> Section {
        if o.cards.isEmpty {
            return Section(.sound, [Finding("ALSA", .notAvailable, "no sound card: the stream plays without sound.",
                                            action: "Connect the display over HDMI/DP with audio, or load the sound card's driver.")])
        }
        var facts = [Fact("cards", o.cards.joined(separator: "; ")), Fact("why", o.reason)]
        guard let open = o.open else {
            return Section(.sound, [Finding(o.device, .notAvailable, "the kiosk would play to \(o.device) (\(o.reason)); it was not opened.", facts: facts)])
        }
        if let r = open.channels { facts.append(Fact("channels", "\(r.lowerBound)–\(r.upperBound)")) }
        if let r = open.rates {
            // Plugins and loopbacks report UINT_MAX as their maximum.
            facts.append(Fact("rates", r.upperBound >= 10_000_000 ? "\(r.lowerBound) Hz and up" : "\(r.lowerBound)–\(r.upperBound) Hz"))
        }
        facts.append(Fact("period", "\(open.periodFramesAsked) frames asked" + (open.periodFramesGranted.map { ", \($0) granted" } ?? "")))
        if let e = open.error {
            return Section(.sound, [Finding(o.device, .failed, "the kiosk would play to \(o.device) (\(o.reason)), but it does not open: \(e).",
                                            action: "Close the program holding it (a sound server) or choose another with --audio-device; `aplay -L` lists them.",
                                            facts: facts)])
        }
        if let r = open.rates, !r.contains(open.rate) {
            return Section(.sound, [Finding(o.device, .degraded, "\(o.device) does not take \(open.rate) Hz; the stream is resampled.",
                                            facts: facts)])
        }
        let seconds = "\(Int(open.seconds * 1000)) ms"
        return Section(.sound, [Finding(o.device, .ok,
                                        "plays to \(o.device) (\(o.reason)): \(seconds) of silence at \(open.rate / 1000) kHz, \(open.channelsUsed) channels.",
                                        facts: facts)])
    }
}
