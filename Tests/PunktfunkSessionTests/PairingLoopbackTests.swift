import Foundation
import Testing
import PunktfunkWire
@testable import PunktfunkSession
import SystemClock
import PunktfunkTestHost

/// The PIN ceremony of control-plane.md §6.2 over real QUIC on 127.0.0.1: `PairingClient` against
/// `HostSession`s (`SeriesRig`) answering PairRequest-first connections, then a pinned connect.
@Suite(.serialized) struct PairingLoopbackTests {
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theRightPinPairsAndTheNextConnectIsPinned() throws {
        let store = try Self.temporaryDirectory("pair-ok")
        defer { try? FileManager.default.removeItem(at: store) }
        let trustFile = store.appendingPathComponent(PairedClients.fileName)
        let rig = try SeriesRig(sessions: 2, pin: "0042", trusted: try PairedClients(file: trustFile))
        defer { rig.join() }

        let result = rig.pair(.pin(" 0042\n"))  // typed with whitespace: trimmed (§6.1)
        let hostFP = try result.get()
        // The fingerprint the client pins is the host certificate it saw in TLS.
        #expect(hostFP == rig.identity.fingerprint)
        // Host side: the device is stored (memory and file) under its certificate fingerprint and name;
        // the window is consumed.
        let clientFP = QuicLoopbackTests.clientIdentity.fingerprint
        #expect(rig.trusted.contains(clientFP))
        #expect(rig.trusted.name(of: clientFP) == "kiosk test")
        #expect(try PairedClients(file: trustFile).contains(clientFP))
        #expect(rig.window.consumed == 1)
        #expect(!rig.window.isArmed)

        // Client side: stored in the known-hosts store under the key connect uses (resolved ip:port).
        var known = KnownHosts()
        try known.trust(host: rig.address.description, fingerprint: hostFP)
        try known.store(in: store)
        let pin = try #require(try KnownHosts.load(from: store).fingerprint(for: rig.address.description))

        // The next connect is pinned to it and streams.
        let (frames, session, error) = rig.connect(trust: .pinned(pin))
        #expect(error == nil, "\(String(describing: error))")
        #expect(frames.count >= 5, "\(frames.count) AUs")
        #expect(session?.peerFingerprint == hostFP)
        #expect(rig.join())
    }

    @Test func aWrongPinFailsAndUsesTheOneGuess() throws {
        let rig = try SeriesRig(sessions: 3, pin: "0042", cooldownNs: 1_000_000_000)
        defer { rig.join() }

        let wrong = rig.pair(.pin("1234"))
        #expect(wrong.handshakeError == .wrongPIN, "\(wrong)")
        if case .failure(let e) = wrong {
            #expect(e.description.contains("PIN is wrong"))
            #expect(e.description.contains("one guess"))
        }
        // §6.2 step 3: the window was disarmed before the challenge went out; nothing was stored.
        #expect(rig.window.consumed == 1)
        #expect(!rig.window.isArmed)
        #expect(rig.trusted.count == 0)

        // Right away, the global cooldown refuses (0x62) …
        let again = rig.pair(.pin("0042"))
        #expect(again.handshakeError?.closeCode == .pairingRateLimited, "\(again)")
        // … and after it, the used-up window refuses (0x60): the right PIN no longer helps.
        Thread.sleep(forTimeInterval: 1.1)
        let late = rig.pair(.pin("0042"))
        #expect(late.handshakeError?.closeCode == .pairingNotArmed, "\(late)")
        if case .failure(let e) = late { #expect(e.description.contains(CloseCode.pairingNotArmed.explanation)) }
        #expect(rig.window.consumed == 1)
        #expect(rig.trusted.count == 0)
        #expect(rig.join())
    }

    @Test func aChangedHostCertificateIsRefused() throws {
        // Pair with one host, then the "same" host (same address) comes back with a new certificate.
        let first = try SeriesRig(sessions: 1, pin: "7777")
        let hostFP = try first.pair(.pin("7777")).get()
        let address = first.address
        #expect(first.join())

        let reinstalled = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        let second = try SeriesRig(sessions: 1, identity: reinstalled, bind: address)
        defer { second.join() }
        let (frames, _, error) = second.connect(trust: .pinned(hostFP))
        #expect(frames.isEmpty)
        let e = try #require(error)
        #expect(e.quicError == .pinMismatch(expected: hostFP, actual: reinstalled.fingerprint), "\(e)")
        #expect(e.description.contains("does not match the pinned fingerprint"))
    }

    @Test func hostGatesRefuseInTheSpecOrder() throws {
        // Not armed → 0x60.
        let unarmed = try SeriesRig(sessions: 2)
        defer { unarmed.join() }
        let r1 = unarmed.pair(.pin("0000"))
        #expect(r1.handshakeError?.closeCode == .pairingNotArmed, "\(r1)")
        // Bound to another device → 0x61, and the window is kept.
        try unarmed.window.arm(pin: "1111", boundTo: String(repeating: "cd", count: 32))
        Thread.sleep(forTimeInterval: 0.25)  // past the rig's 200 ms cooldown
        let r2 = unarmed.pair(.pin("1111"))
        #expect(r2.handshakeError?.closeCode == .pairingBoundToOther, "\(r2)")
        #expect(unarmed.window.isArmed)
        #expect(unarmed.window.consumed == 0)
        #expect(unarmed.join())
    }
}

/// The host's pairing responder inside `HostHandshake`, driven by hand over a `QuicLoopback`.
@Suite(.serialized) struct PairingHostHandshakeTests {
    @Test func anAnonymousClientCannotPairAndTheWindowIsKept() throws {
        var (client, server) = QuicLoopbackTests.configurations()
        client.identity = nil  // §1.5: no certificate, no device id
        let pair = try QuicLoopback(client: client, server: server)
        let window = PairingWindow(cooldownNs: 0)
        try window.arm(pin: "0042")
        let pairing = HostPairing(window: window, trusted: PairedClients())
        #expect(pair.connect())
        let host = HostHandshake(connection: try #require(pair.server),
                                 script: .init(decision: .silence, pairing: pairing), now: MonotonicClock.nowNs())
        let stream = try pair.client.openBidirectionalStream()
        let request = PairRequest(name: "anonymous", spakeA: [0x41] + [UInt8](repeating: 7, count: 32))
        try pair.client.write(stream: stream, [0x00] + ControlMessage.pairRequest(request).encoded)
        var fed = 0
        #expect(pair.run(seconds: 3) {
            while fed < pair.serverEvents.count {
                try? host.handle(pair.serverEvents[fed], now: MonotonicClock.nowNs(), hostNs: 0)
                fed += 1
            }
            return pair.client.peerClose != nil
        })
        #expect(host.state == .finished)
        #expect(pair.client.peerClose?.code == CloseCode.identityRequired.code)
        #expect(window.isArmed)
        #expect(window.consumed == 0)
    }
}

/// `PairingWindow`'s gates without a network (control-plane.md §6.2 step 2, §6.3).
@Suite struct PairingWindowTests {
    let client = String(repeating: "ab", count: 32)

    @Test func gatesRunInOrderAndTheCooldownIsChargedOnEveryAttempt() throws {
        let window = PairingWindow(cooldownNs: 2_000_000_000)
        // No certificate first, even when everything else would fail too (and it charges nothing).
        #expect(window.admit(clientFingerprint: nil, now: 10) == .refuse(.identityRequired))
        #expect(window.admit(clientFingerprint: client, now: 20) == .refuse(.pairingNotArmed))
        // The refused attempt at t=20 started the cooldown.
        try window.arm(pin: "0042")
        #expect(window.admit(clientFingerprint: client, now: 1_000_000_000) == .refuse(.pairingRateLimited))
        guard case .proceed(let pin, let generation) = window.admit(clientFingerprint: client, now: 3_100_000_000) else {
            Issue.record("expected the gate to pass")
            return
        }
        #expect(pin == "0042")
        #expect(window.consume(generation: generation))
        #expect(!window.consume(generation: generation))  // one guess per arming
        #expect(window.admit(clientFingerprint: client, now: 6_000_000_000) == .refuse(.pairingNotArmed))
    }

    @Test func aReArmedWindowCannotBeConsumedByAnOlderAttempt() throws {
        let window = PairingWindow(cooldownNs: 0)
        try window.arm(pin: "1234", boundTo: client)
        #expect(window.admit(clientFingerprint: String(repeating: "00", count: 32), now: 1) == .refuse(.pairingBoundToOther))
        guard case .proceed(_, let generation) = window.admit(clientFingerprint: client.uppercased(), now: 2) else {
            Issue.record("the bound device should pass")
            return
        }
        try window.arm(pin: "9999")
        #expect(!window.consume(generation: generation))
        #expect(window.isArmed)
        #expect(throws: PairingError.invalidPIN) { try window.arm(pin: "12345") }
        let random = PairingWindow.randomPIN()
        #expect(random.count == 4 && random.allSatisfy(\.isNumber))
    }
}
