import PunktfunkSession

/// How the kiosk decides whether to trust a host before dialling it (control-plane.md §1.4,
/// §6.6), in this order:
/// 1. the trust store (`known-hosts`, written by pairing and by first use) pins the fingerprint
///    recorded for the host's resolved `ip:port`;
/// 2. else a fingerprint given for the host (`--fp`, the embedded demo host) is pinned;
/// 3. else, when first use is allowed (`--tofu`), any certificate is accepted and recorded once
///    the session is established;
/// 4. else the connect is refused with a sentence that says how to pair.
///
/// Pure: the caller passes the store's snapshot in.
public enum TrustDecision: Sendable, Equatable {
    case pinned(fingerprint: String, source: PinSource)
    case trustOnFirstUse
    case refused(sentence: String)

    public enum PinSource: Sendable, Equatable {
        case trustStore
        case given
    }

    /// - Parameters:
    ///   - key: the resolved `ip:port` the trust store is keyed by.
    ///   - host: the host as the user named it (for the refusal sentence) and its given fingerprint.
    public static func decide(key: String, host: HostEntry, knownHosts: KnownHosts, allowFirstUse: Bool) -> TrustDecision {
        if let known = knownHosts.fingerprint(for: key) { return .pinned(fingerprint: known, source: .trustStore) }
        if let given = host.givenFingerprint.flatMap(CertificateFingerprint.normalize) {
            return .pinned(fingerprint: given, source: .given)
        }
        if allowFirstUse { return .trustOnFirstUse }
        return .refused(sentence: unknownHostSentence(host.address))
    }

    /// The refusal: which host, and the three ways to trust it.
    public static func unknownHostSentence(_ host: String) -> String {
        "The host \(host) is not known. Pair with it (punktfunk-kiosk pair \(host) --pin PIN), "
            + "or pass its certificate fingerprint with --fp, or trust it on first use with --tofu."
    }

    /// What the QUIC layer checks; nil for a refusal.
    public var hostTrust: HostTrust? {
        switch self {
        case .pinned(let fp, _): .pinned(fp)
        case .trustOnFirstUse: .trustOnFirstUse
        case .refused: nil
        }
    }
}
