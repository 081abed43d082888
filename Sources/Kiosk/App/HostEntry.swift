/// A host the kiosk can stream from or pair with, as the application knows it: given on the
/// command line, saved, or (later) discovered on the network.
///
/// `id` is stable for the life of the process and is what user actions name; `address` is the
/// `HOST[:PORT]` text the runner resolves before each dial (a name may resolve differently later).
public struct HostEntry: Sendable, Equatable, Identifiable {
    public var id: String
    /// What a person sees (the host's name, else its address).
    public var name: String
    /// `HOST[:PORT]`: a name, an IPv4 literal or a bracketed IPv6 literal; default port 9777.
    public var address: String
    /// A fingerprint given for this host outside the trust store (`--fp`, the embedded demo
    /// host's fresh identity): pinned when the store has none.
    public var givenFingerprint: String?
    /// The fingerprint a discovery advert claims (TXT `fp`): never trusted by itself; it only
    /// matches an advert to a host whose fingerprint is pinned.
    public var advertisedFingerprint: String?
    /// Wake-on-LAN MACs, `aa:bb:cc:dd:ee:ff` (saved, or from the advert's TXT).
    public var macs: [String]
    /// Titles pinned for this host in the config: its page offers each beside "Desktop".
    public var titles: [LaunchTitle]

    public init(id: String, name: String, address: String, givenFingerprint: String? = nil, advertisedFingerprint: String? = nil,
                macs: [String] = [], titles: [LaunchTitle] = []) {
        self.id = id; self.name = name; self.address = address; self.givenFingerprint = givenFingerprint
        self.advertisedFingerprint = advertisedFingerprint; self.macs = macs; self.titles = titles
    }

    /// What a person calls `launch` on this host: its pinned title's name, else the id itself.
    public func titleName(_ launch: String) -> String { titles.first { $0.id == launch }?.name ?? launch }

    /// A host typed as `HOST[:PORT]`: the text is its id, name and address.
    public init(address: String, givenFingerprint: String? = nil) {
        self.init(id: address, name: address, address: address, givenFingerprint: givenFingerprint)
    }
}
