import Testing
import PunktfunkWire
@testable import PunktfunkSession

/// Every refusal a user can meet while pairing or connecting reads as one sentence that names
/// the code (control-plane.md §1.4, §1.6, §3.5, §6.2).
@Suite struct SessionErrorSentenceTests {
    @Test(arguments: [CloseCode.pairingNotArmed, .pairingBoundToOther, .pairingRateLimited, .identityRequired,
                      .denied, .approvalTimeout, .superseded, .accessGranted, .unknown(0x99)])
    func hostClosesReadAsTheirSentenceAndCode(code: CloseCode) {
        let text = SessionError.handshake(.closedByPeer(code: code, reason: "")).description
        #expect(text.hasPrefix(code.explanation))
        #expect(text.contains("0x\(String(code.code, radix: 16))"))
        #expect(!text.contains("()"))
    }

    @Test func transportFailuresReadAsSentences() {
        let pin = SessionError.transport(.pinMismatch(expected: "aa", actual: "bb")).description
        #expect(pin.contains("does not match the pinned fingerprint") && pin.contains("Pair again"))
        let alpn = SessionError.transport(.peerClosed(QuicClose(isApplication: false, code: 0x100 + 120, reason: "")))
        #expect(alpn.description.contains("does not speak punktfunk/2"))
        #expect(SessionError.handshake(.transport(.idleTimeout)).description.contains("did not answer"))
        #expect(SessionError.handshake(.transport(.tlsHandshake(alert: 40, detail: "x"))).description.contains("TLS alert 40"))
    }

    @Test func pairingAndRedirectFailuresSayWhatToDo() {
        #expect(SessionError.handshake(.wrongPIN).description.contains("start pairing on the host again"))
        #expect(SessionError.redirectedTwice(addr: "", port: 9778).description.contains("only one redirect is followed"))
    }
}
