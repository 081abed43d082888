/// A QUIC application close (or stream reset) code of punktfunk/2 (control-plane.md §3.5),
/// with a sentence a TV can show.
///
/// `init(code:)` maps every code the spec lists to its case and anything else to `.unknown`, so
/// `.unknown` never carries a listed code when built that way.
public enum CloseCode: Hashable, Sendable, CustomStringConvertible {
    /// 0x00: normal close (also a reachability probe and pairing success).
    case normal
    /// 0x01: the client aborted or refused pairing.
    case pairingAborted
    /// 0x42 `busy`: another session holds the display (mode conflict).
    case busy
    /// 0x51 QUIT: deliberate quit; the host also uses it after a Redirect.
    case quit
    /// 0x52 APP_EXITED: the dedicated session's game exited.
    case appExited
    /// 0x60 `not-armed`: pairing not armed.
    case pairingNotArmed
    /// 0x61 `bound-other`: the pairing window is bound to another device.
    case pairingBoundToOther
    /// 0x62 `rate-limited`: global 2 s pairing cooldown.
    case pairingRateLimited
    /// 0x63 `identity-required`: no client certificate.
    case identityRequired
    /// 0x64 `denied`: the console denied the knock.
    case denied
    /// 0x65 `approval-timeout`: nobody approved within 180 s.
    case approvalTimeout
    /// 0x66 `superseded`: a newer knock from the same device.
    case superseded
    /// 0x67 `wire-version`: protocol version mismatch.
    case wireVersion
    /// 0x68 `setup-failed`: admitted, then compositor/capture/encoder setup failed.
    case setupFailed
    /// 0x69 `access-expired`: the per-client access deadline passed.
    case accessExpired
    /// 0x6A `launch-not-permitted`: `launch` asked without GRANT_LAUNCH.
    case launchNotPermitted
    /// 0x6B `host-power`: host sleeping, rebooting or shutting down.
    case hostPower
    /// 0x6C `profile-unknown`: requested profile unknown or another seat's.
    case profileUnknown
    /// 0x6D `no-seat`: all seats taken.
    case noSeat
    /// 0x6E `seat-occupied`: the profile's seat is in use.
    case seatOccupied
    /// 0x6F `seat-unavailable`: the seat was removed or would not start.
    case seatUnavailable
    /// 0x70 (stream code): clipboard transfer cancelled.
    case clipboardCancelled
    /// 0x71 (stream code, `STOP_UNKNOWN_STREAM`): unknown stream type stopped.
    case unknownStream
    /// 0x72: access-only hello approved; the device may now connect (not a rejection).
    case accessGranted
    /// Any code the spec does not list.
    case unknown(UInt64)

    private struct Entry: Sendable {
        let code: CloseCode
        let value: UInt64
        let token: String?
        let sentence: String
    }

    /// control-plane.md §3.5, in table order.
    private static let table: [Entry] = [
        Entry(code: .normal, value: 0x00, token: nil, sentence: "The session ended normally."),
        Entry(code: .pairingAborted, value: 0x01, token: nil, sentence: "Pairing was cancelled on this device."),
        Entry(code: .busy, value: 0x42, token: "busy", sentence: "The host is busy with another session."),
        Entry(code: .quit, value: 0x51, token: nil, sentence: "The stream was stopped."),
        Entry(code: .appExited, value: 0x52, token: nil, sentence: "The game on the host has exited."),
        Entry(code: .pairingNotArmed, value: 0x60, token: "not-armed",
              sentence: "The host is not ready to pair; start pairing on the host first."),
        Entry(code: .pairingBoundToOther, value: 0x61, token: "bound-other",
              sentence: "The host's pairing window is reserved for another device."),
        Entry(code: .pairingRateLimited, value: 0x62, token: "rate-limited",
              sentence: "Too many pairing attempts; wait a moment and try again."),
        Entry(code: .identityRequired, value: 0x63, token: "identity-required",
              sentence: "The host requires this device to have an identity certificate."),
        Entry(code: .denied, value: 0x64, token: "denied", sentence: "The host denied this device's request."),
        Entry(code: .approvalTimeout, value: 0x65, token: "approval-timeout",
              sentence: "Nobody approved this device on the host in time."),
        Entry(code: .superseded, value: 0x66, token: "superseded",
              sentence: "A newer request from this device replaced this one."),
        Entry(code: .wireVersion, value: 0x67, token: "wire-version",
              sentence: "The host and this device run different protocol versions; update both."),
        Entry(code: .setupFailed, value: 0x68, token: "setup-failed",
              sentence: "The host could not set up the stream."),
        Entry(code: .accessExpired, value: 0x69, token: "access-expired",
              sentence: "This device's access to the host has expired."),
        Entry(code: .launchNotPermitted, value: 0x6A, token: "launch-not-permitted",
              sentence: "The host has not given this device the launch permission, so it cannot start a game; ask the host's owner for it, or connect to the desktop."),
        Entry(code: .hostPower, value: 0x6B, token: "host-power",
              sentence: "The host is going to sleep, restarting or shutting down."),
        Entry(code: .profileUnknown, value: 0x6C, token: "profile-unknown",
              sentence: "The host does not know the requested profile."),
        Entry(code: .noSeat, value: 0x6D, token: "no-seat", sentence: "All of the host's seats are taken."),
        Entry(code: .seatOccupied, value: 0x6E, token: "seat-occupied",
              sentence: "Someone is already using this profile's seat."),
        Entry(code: .seatUnavailable, value: 0x6F, token: "seat-unavailable",
              sentence: "This profile's seat is not available right now."),
        Entry(code: .clipboardCancelled, value: 0x70, token: nil, sentence: "The clipboard transfer was cancelled."),
        Entry(code: .unknownStream, value: 0x71, token: nil,
              sentence: "The other side did not recognise a stream that was opened."),
        Entry(code: .accessGranted, value: 0x72, token: nil,
              sentence: "Access granted: this device may now connect."),
    ]

    /// Every code the spec lists, in numeric order.
    public static var allKnown: [CloseCode] { table.map(\.code) }

    private var entry: Entry? { Self.table.first { $0.code == self } }

    /// The case for a numeric code; `.unknown` for codes the spec does not list.
    public init(code: UInt64) {
        self = Self.table.first { $0.value == code }?.code ?? .unknown(code)
    }

    /// The numeric code on the wire.
    public var code: UInt64 {
        if case .unknown(let c) = self { return c }
        return entry?.value ?? 0  // every non-unknown case has a table entry
    }

    /// The host's reason token (`reject.rs`), nil where the spec names none.
    public var token: String? { entry?.token }

    /// One sentence for a TV screen explaining the close.
    public var explanation: String {
        if let e = entry { return e.sentence }
        return "The connection closed unexpectedly (code 0x\(String(code, radix: 16, uppercase: true)))."
    }

    /// `0x42 busy`-style log form.
    public var description: String {
        "0x\(String(code, radix: 16))" + (token.map { " \($0)" } ?? "")
    }
}
