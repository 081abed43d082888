import ArgumentParser
import Foundation
import PunktfunkSession
import PunktfunkWire

/// `pf-testhost`: a punktfunk/2 test host serving one session — Retry, handshake, then a looped AU
/// stream through the real packetizer/FEC/AEAD on the shared socket, with seeded loss. Every client
/// datagram is logged as one JSON line on stdout.
@main
struct PFTestHost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pf-testhost",
        abstract: "Serve one punktfunk/2 session from synthetic or Annex-B HEVC access units.")

    @Option(help: "UDP port to listen on (0 = ephemeral; the bound address is printed on stderr).") var port: UInt16 = 9777
    @Option(help: "Bind address.") var bind = "0.0.0.0"
    @Option(help: "Directory holding the host identity (created on first use).") var identityDir: String?
    @Option(help: "Frames to send, then end (0 = until the client leaves).") var frames = 0
    @Option(help: "Frame rate, frames per second.") var fps = 60.0
    @Option(help: "Size of each synthetic AU in bytes.") var auBytes = 30_000
    @Option(help: "Annex-B HEVC file streamed as AUs, looped (instead of synthetic AUs).") var hevc: String?
    @Option(help: "Media datagrams dropped on purpose, percent.") var loss = 0.0
    @Option(help: "Seed for the loss pattern and synthetic AU content.") var seed: UInt64 = 1
    @Option(help: "Close with this code (decimal or 0x-hex) after the ClientHello.") var refuse: String?
    @Option(help: "Give up after this many seconds.") var maxSeconds = 3600.0

    func validate() throws {
        guard (0...100).contains(loss) else { throw ValidationError("--loss must be 0…100") }
        guard fps > 0, auBytes > 0, frames >= 0 else { throw ValidationError("--fps and --au-bytes must be positive") }
        if let refuse, Self.parseCode(refuse) == nil { throw ValidationError("--refuse takes a close code such as 0x4A or 74") }
    }

    static func parseCode(_ text: String) -> UInt64? {
        text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }

    func run() throws {
        let identity: TLSIdentity
        if let identityDir {
            identity = try TLSIdentity.loadOrCreate(in: URL(fileURLWithPath: identityDir, isDirectory: true),
                                                    commonName: TLSIdentity.hostCommonName)
        } else {
            identity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        }
        let aus: [[UInt8]]
        if let hevc {
            let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: hevc)))
            aus = AnnexBSplitter.accessUnits(data)
            guard !aus.isEmpty else { throw ValidationError("\(hevc) holds no HEVC access units") }
        } else {
            aus = SyntheticAccessUnits.make(count: 60, bytes: auBytes, seed: seed)
        }
        guard let address = SocketAddress(ip: bind, port: port) else { throw ValidationError("--bind must be an IP literal") }
        var options = HostSession.Options(identity: identity, bind: address, accessUnits: aus)
        options.frames = frames
        options.fps = fps
        options.lossPercent = loss
        options.seed = seed
        options.refuse = refuse.flatMap(Self.parseCode).map { CloseCode(code: $0) }
        options.maxSeconds = maxSeconds
        let host = try HostSession(options: options)
        FileHandle.standardError.write(Data("pf-testhost listening on \(host.localAddress) fingerprint \(identity.fingerprint)\n".utf8))
        host.onClientDatagram = { result, now in
            FileHandle.standardOutput.write(Data((DatagramLog.json(result, monotonicNs: now) + "\n").utf8))
        }
        do {
            try host.run()
        } catch {
            FileHandle.standardError.write(Data("pf-testhost: \(error)\n".utf8))
            throw ExitCode(1)
        }
        FileHandle.standardError.write(Data("pf-testhost: sent \(host.framesSent) frames, dropped \(host.datagramsDropped) datagrams, received \(host.feedbackReceived) feedback datagrams\n".utf8))
    }
}
