import Foundation
import Testing
import PunktfunkWire
@testable import PunktfunkSession
import PunktfunkTestHost

/// Admission over real QUIC on 127.0.0.1 (control-plane.md §3.4, §6.5): require-pairing, knocks
/// (Pending, approve / deny 0x64 / timeout 0x65), request-access (0x72), scripted Pending and
/// Redirect, all through `ClientSession`/`SessionDialer`/`PairingClient` against `HostSession`s.
@Suite(.serialized) struct AdmissionLoopbackTests {
    static let other = try! TLSIdentity.generate(commonName: TLSIdentity.clientCommonName)

    @Test func requirePairingRefusesAnAnonymousClientWith0x63() throws {
        let rig = try SeriesRig(sessions: 1) { options in
            options.admission = HostAdmission(requirePairing: true, trusted: PairedClients())
        }
        defer { rig.join() }
        let (frames, _, error) = rig.connect(trust: .pinned(rig.identity.fingerprint), identity: nil)
        #expect(frames.isEmpty)
        let e = try #require(error)
        guard case .handshake(let h) = e else { Issue.record("\(e)"); return }
        #expect(h.closeCode == .identityRequired)
        #expect(e.description.contains(CloseCode.identityRequired.explanation))
    }

    @Test func anUnknownDeviceKnocksAndIsDenied() throws {
        let trusted = PairedClients()
        let knocking = try SeriesRig(sessions: 1, trusted: trusted) { options in
            options.admission = HostAdmission(requirePairing: true, trusted: trusted, knock: .denyAfter(350_000_000),
                                              pendingEvery: 100_000_000)
        }
        defer { knocking.join() }
        var pendings: [Int] = []
        let (frames, _, error) = knocking.connect(trust: .pinned(knocking.identity.fingerprint)) { pendings.append($0) }
        #expect(frames.isEmpty)
        let e = try #require(error)
        guard case .handshake(let h) = e else { Issue.record("\(e)"); return }
        #expect(h.closeCode == .denied)
        #expect(e.description.contains(CloseCode.denied.explanation))
        // Pending at once and every 100 ms until the console answered at 350 ms.
        #expect(pendings.first == 1)
        #expect(pendings.count >= 2, "\(pendings)")
        #expect(trusted.count == 0)
    }

    @Test func anUndecidedKnockEndsInTheApprovalTimeout() throws {
        let trusted = PairedClients()
        let rig = try SeriesRig(sessions: 1, trusted: trusted) { options in
            options.admission = HostAdmission(requirePairing: true, trusted: trusted, knock: .ignore,
                                              pendingEvery: 100_000_000, approvalWait: 400_000_000)
        }
        defer { rig.join() }
        var pendings = 0
        let (_, _, error) = rig.connect(trust: .pinned(rig.identity.fingerprint)) { pendings = $0 }
        guard case .handshake(let h)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(h.closeCode == .approvalTimeout)
        #expect(pendings >= 3)
    }

    @Test func anApprovedKnockStreamsOnTheSameConnectionAndIsRemembered() throws {
        let trusted = PairedClients()
        let rig = try SeriesRig(sessions: 2, trusted: trusted) { options in
            options.admission = HostAdmission(requirePairing: true, trusted: trusted, knock: .approveAfter(250_000_000),
                                              pendingEvery: 100_000_000)
        }
        defer { rig.join() }
        var pendings = 0
        let first = rig.connect(trust: .pinned(rig.identity.fingerprint)) { pendings = $0 }
        #expect(first.error == nil, "\(String(describing: first.error))")
        #expect(pendings >= 1)
        #expect(first.frames.count >= 5)
        #expect(trusted.contains(QuicLoopbackTests.clientIdentity.fingerprint))
        // Now paired: the next connect is admitted without a knock.
        var again = 0
        let second = rig.connect(trust: .pinned(rig.identity.fingerprint)) { again = $0 }
        #expect(second.error == nil, "\(String(describing: second.error))")
        #expect(again == 0)
        #expect(second.frames.count >= 5)
    }

    @Test func aPairedDeviceIsAdmittedAndAnotherOneKnocks() throws {
        let trusted = PairedClients()
        let rig = try SeriesRig(sessions: 3, pin: "2468", trusted: trusted) { options in
            options.admission = HostAdmission(requirePairing: true, trusted: trusted, knock: .denyAfter(200_000_000),
                                              pendingEvery: 100_000_000)
        }
        defer { rig.join() }
        let hostFP = try rig.pair(.pin("2468")).get()
        var pendings = 0
        let paired = rig.connect(trust: .pinned(hostFP)) { pendings = $0 }
        #expect(paired.error == nil, "\(String(describing: paired.error))")
        #expect(pendings == 0)
        #expect(paired.frames.count >= 5)
        // A different certificate is not paired: it knocks and is denied with its code.
        let stranger = rig.connect(trust: .pinned(hostFP), identity: Self.other)
        guard case .handshake(let h)? = stranger.error else { Issue.record("\(String(describing: stranger.error))"); return }
        #expect(h.closeCode == .denied)
    }

    @Test func requestAccessIsApprovedWith0x72AndTheHostIsPinned() throws {
        let trusted = PairedClients()
        let rig = try SeriesRig(sessions: 2, trusted: trusted) { options in
            options.admission = HostAdmission(requirePairing: true, trusted: trusted, knock: .approveAfter(250_000_000),
                                              pendingEvery: 100_000_000)
        }
        defer { rig.join() }
        var pendings = 0
        let result = rig.pair(.requestAccess, identity: Self.other) { pendings = $0 }
        // §6.5: the host closed 0x72 after approval; the client keeps the fingerprint it observed.
        #expect(try result.get() == rig.identity.fingerprint)
        #expect(pendings >= 1)
        #expect(trusted.contains(Self.other.fingerprint))
        let session = rig.connect(trust: .pinned(try result.get()), identity: Self.other)
        #expect(session.error == nil, "\(String(describing: session.error))")
        #expect(session.frames.count >= 5)
    }

    @Test func scriptedPendingIsShownThenTheSessionStreams() throws {
        let rig = try SeriesRig(sessions: 1) { options in
            options.pendingCount = 3
            options.pendingEveryNs = 80_000_000
        }
        defer { rig.join() }
        var pendings: [Int] = []
        let (frames, _, error) = rig.connect(trust: .pinned(rig.identity.fingerprint)) { pendings.append($0) }
        #expect(error == nil, "\(String(describing: error))")
        #expect(pendings == [1, 2, 3])
        #expect(frames.count >= 5)
    }

    @Test func aRedirectIsFollowedOnceWithItsPin() throws {
        let target = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        let b = try SeriesRig(sessions: 1, identity: target)
        defer { b.join() }
        // A redirects to B: same address (empty addr), B's port, B's fingerprint as the pin.
        let redirecting = try SeriesRig(sessions: 1) { options in
            options.redirect = Redirect(addr: "", port: b.address.port, pin: target.fingerprint)
        }
        defer { redirecting.join() }
        // The client trusts A's certificate; B's comes pinned by the Redirect.
        let (frames, session, error) = redirecting.connect(trust: .pinned(redirecting.identity.fingerprint))
        #expect(error == nil, "\(String(describing: error))")
        #expect(frames.count >= 5)
        #expect(session?.options.remote == b.address)
        #expect(session?.peerFingerprint == target.fingerprint)
        #expect(redirecting.join())
        #expect(b.join())
    }

    @Test func aSecondRedirectIsAnError() throws {
        let last = try SeriesRig(sessions: 1) { options in
            options.redirect = Redirect(addr: "127.0.0.1", port: 9, pin: "")
        }
        defer { last.join() }
        let first = try SeriesRig(sessions: 1) { options in
            options.redirect = Redirect(addr: "127.0.0.1", port: last.address.port, pin: "")
        }
        defer { first.join() }
        let (frames, _, error) = first.connect(trust: .pinned(QuicLoopbackTests.hostIdentity.fingerprint))
        #expect(frames.isEmpty)
        let e = try #require(error)
        guard case .redirectedTwice(let addr, let port) = e else { Issue.record("\(e)"); return }
        #expect(addr == "127.0.0.1" && port == 9)
        #expect(e.description.contains("only one redirect is followed"))
    }
}
