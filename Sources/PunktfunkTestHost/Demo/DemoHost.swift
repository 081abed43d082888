import Foundation
import PunktfunkSession

/// The embedded test host behind `--demo`: a `HostSession` on 127.0.0.1 (ephemeral port) with a
/// fresh identity, looping `DemoStream` through the real packetizer/FEC/AEAD, on its own thread.
/// The client then connects to it exactly as to a real host (pinned to its fingerprint).
public final class DemoHost: @unchecked Sendable {
    public let session: HostSession
    public let fingerprint: String
    private let done = DispatchSemaphore(value: 0)

    public var address: SocketAddress { session.localAddress }

    public init(seconds: Double) throws {
        let identity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        var options = HostSession.Options(identity: identity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: DemoStream.accessUnits)
        options.keyframeIndices = DemoStream.keyframeIndices
        options.fps = DemoStream.fps
        options.maxSeconds = seconds + 30
        session = try HostSession(options: options)
        fingerprint = identity.fingerprint
        let session = self.session
        let done = self.done
        let thread = Thread { try? session.run(); done.signal() }
        thread.name = "demo-host"
        thread.start()
    }

    /// Stops the host and waits (≤ 5 s) for its thread.
    public func stop() {
        session.stop()
        _ = done.wait(timeout: .now() + 5)
    }
}
