import Crypto
import Foundation
import Testing
@testable import PunktfunkSession

/// Behaviour of the pairing ceremony (control-plane.md §6.1–§6.2) with random scalars.
@Suite struct PairingCeremonyTests {
    static let clientFP = Array(SHA256.hash(data: Array("client certificate".utf8)))
    static let hostFP = Array(SHA256.hash(data: Array("host certificate".utf8)))
    static let mitmFP = Array(SHA256.hash(data: Array("mitm certificate".utf8)))

    static func hex(_ s: String) -> [UInt8] { SPAKE2Fixture.hexDecode(s)! }

    /// Runs the whole exchange; returns nil when both confirmations verified, else the error.
    static func run(clientPIN: String, hostPIN: String,
                    clientSeesHost: [UInt8] = hostFP, hostIs: [UInt8] = hostFP) throws -> PairingError? {
        let client = try PairingCeremony.Client(pin: clientPIN, clientFingerprint: clientFP, hostFingerprint: clientSeesHost)
        let host = try PairingCeremony.Host(pin: hostPIN, clientFingerprint: clientFP, hostFingerprint: hostIs)
        #expect(client.requestMessage.count == 33 && client.requestMessage[0] == 0x41)
        let (spakeB, hostConfirm) = try host.respond(spakeA: client.requestMessage)
        #expect(spakeB.count == 33 && spakeB[0] == 0x42 && hostConfirm.count == 32)
        do {
            let proof = try client.finish(challengeSpakeB: spakeB, hostConfirm: hostConfirm)
            #expect(proof.count == 32)
            try host.verify(clientConfirm: proof)
            return nil
        } catch {
            return error
        }
    }

    @Test func samePINAgreesAndBothConfirmationsVerify() throws {
        for pin in ["0042", "0000", "9999", " 1234\n"] {
            #expect(try Self.run(clientPIN: pin, hostPIN: pin.trimmingCharacters(in: .whitespacesAndNewlines)) == nil)
        }
    }

    @Test func wrongPINFailsKeyConfirmation() throws {
        #expect(try Self.run(clientPIN: "1235", hostPIN: "1234") == .confirmationMismatch)
        #expect(try Self.run(clientPIN: "0042", hostPIN: "4200") == .confirmationMismatch)
    }

    /// A wrong PIN does not error inside SPAKE2; it yields a different key (§6.1).
    @Test func wrongPINGivesADifferentKey() throws {
        let a = try SPAKE2Party(side: .a, password: Array("1234".utf8), idA: Self.clientFP, idB: Self.hostFP)
        let b = try SPAKE2Party(side: .b, password: Array("1243".utf8), idA: Self.clientFP, idB: Self.hostFP)
        let keyA = try a.finish(peerMessage: b.message)
        let keyB = try b.finish(peerMessage: a.message)
        #expect(keyA != keyB)
    }

    /// Split-cert MITM: the client binds the certificate it saw, the host its own; with
    /// different host identities the keys differ even with the right PIN (§6.1).
    @Test func identitiesAreBound() throws {
        #expect(try Self.run(clientPIN: "0042", hostPIN: "0042", clientSeesHost: Self.mitmFP, hostIs: Self.hostFP)
                == .confirmationMismatch)
        let x = try #require(PairingVectorTests.fixture.cases.first)
        let a = try SPAKE2Party(side: .a, password: Array(x.pin.utf8), idA: x["idA"], idB: Self.mitmFP, secretScalar: x["x"])
        let b = try SPAKE2Party(side: .b, password: Array(x.pin.utf8), idA: x["idA"], idB: x["idB"], secretScalar: x["y"])
        // Same scalars and PIN as the vector: messages are identical, only the transcript differs.
        #expect(a.message == x["msgA"] && b.message == x["msgB"])
        #expect(try a.finish(peerMessage: b.message) != b.finish(peerMessage: a.message))
        // A different client identity on the host's side fails the same way.
        let client = try PairingCeremony.Client(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        let host = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.mitmFP, hostFingerprint: Self.hostFP)
        let (spakeB, confirm) = try host.respond(spakeA: client.requestMessage)
        #expect(throws: PairingError.confirmationMismatch) {
            try client.finish(challengeSpakeB: spakeB, hostConfirm: confirm)
        }
    }

    @Test func hostRejectsAForgedOrShortProof() throws {
        let client = try PairingCeremony.Client(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        let host = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        let (_, hostConfirm) = try host.respond(spakeA: client.requestMessage)
        // Reflecting the host's own confirmation is not a client confirmation.
        #expect(throws: PairingError.confirmationMismatch) { try host.verify(clientConfirm: hostConfirm) }
        // One attempt per ceremony.
        #expect(throws: PairingError.outOfOrder("Host.verify")) { try host.verify(clientConfirm: hostConfirm) }

        let host2 = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        _ = try host2.respond(spakeA: client.requestMessage)
        #expect(throws: PairingError.malformedConfirmation(byteCount: 31)) {
            try host2.verify(clientConfirm: [UInt8](repeating: 0, count: 31))
        }
    }

    @Test func clientRejectsAShortHostConfirmation() throws {
        let client = try PairingCeremony.Client(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        let host = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        let (spakeB, hostConfirm) = try host.respond(spakeA: client.requestMessage)
        #expect(throws: PairingError.malformedConfirmation(byteCount: 33)) {
            try client.finish(challengeSpakeB: spakeB, hostConfirm: hostConfirm + [0])
        }
        #expect(throws: PairingError.outOfOrder("Client.finish")) {
            try client.finish(challengeSpakeB: spakeB, hostConfirm: hostConfirm)
        }
    }

    @Test func stepsOutOfOrderThrow() throws {
        let host = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        #expect(throws: PairingError.outOfOrder("Host.verify")) {
            try host.verify(clientConfirm: [UInt8](repeating: 0, count: 32))
        }
        let client = try PairingCeremony.Client(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        _ = try host.respond(spakeA: client.requestMessage)
        #expect(throws: PairingError.outOfOrder("Host.respond")) { _ = try host.respond(spakeA: client.requestMessage) }
    }

    // MARK: Malformed peer messages

    /// The first fixture case's valid B message, for mutations.
    static var validB: [UInt8] { PairingVectorTests.fixture.cases[0]["msgB"] }

    static func clientForVector() throws -> PairingCeremony.Client {
        let v = PairingVectorTests.fixture.cases[0]
        return try PairingCeremony.Client(pin: v.pin, clientFingerprint: v["idA"], hostFingerprint: v["idB"],
                                          secretScalar: v["x"])
    }

    static func clientFinishError(_ spakeB: [UInt8]) throws -> PairingError? {
        let client = try clientForVector()
        do {
            _ = try client.finish(challengeSpakeB: spakeB, hostConfirm: [UInt8](repeating: 0, count: 32))
            return nil
        } catch {
            return error
        }
    }

    @Test func wrongLengthIsMalformed() throws {
        #expect(try Self.clientFinishError(Array(Self.validB.dropLast())) == .malformedMessage(byteCount: 32))
        #expect(try Self.clientFinishError(Self.validB + [0]) == .malformedMessage(byteCount: 34))
        #expect(try Self.clientFinishError([]) == .malformedMessage(byteCount: 0))
        let host = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        #expect(throws: PairingError.malformedMessage(byteCount: 1)) { _ = try host.respond(spakeA: [0x41]) }
    }

    @Test func wrongSideByteIsRejected() throws {
        var own = Self.validB
        own[0] = 0x41  // the client's own side
        #expect(try Self.clientFinishError(own) == .wrongSide(0x41))
        own[0] = 0x43
        #expect(try Self.clientFinishError(own) == .wrongSide(0x43))
        // The host refuses a B message in the A slot.
        let host = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        #expect(throws: PairingError.wrongSide(0x42)) { _ = try host.respond(spakeA: Self.validB) }
    }

    @Test func invalidPointsAreRejected() throws {
        let invalid = [
            // y = 2: not on the curve (python-spake2 decodepoint raises NotOnCurve).
            "0200000000000000000000000000000000000000000000000000000000000000",
            // y = p: non-canonical encoding of y = 0.
            "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            // all ones: non-canonical.
            "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
            // msgA's point plus the order-2 point: on the curve, not in the prime-order subgroup.
            "261778210e03359e44c9b7d80ef60d4f8617b45b76b10c2b8f818e5c7df88784",
        ]
        for point in invalid {
            #expect(try Self.clientFinishError([0x42] + Self.hex(point)) == .invalidPoint, "\(point)")
        }
    }

    @Test func smallOrderPointsAreRejected() throws {
        let smallOrder = [
            "0100000000000000000000000000000000000000000000000000000000000000",  // identity
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // order 2 (y = −1)
            "0000000000000000000000000000000000000000000000000000000000000000",  // order 4
            "0000000000000000000000000000000000000000000000000000000000000080",  // order 4
            "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  // order 8
        ]
        for point in smallOrder {
            #expect(try Self.clientFinishError([0x42] + Self.hex(point)) == .invalidPoint, "\(point)")
        }
        let host = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        #expect(throws: PairingError.invalidPoint) { _ = try host.respond(spakeA: [0x41] + Self.hex(smallOrder[0])) }
    }

    @Test func reflectedMessageIsRejected() throws {
        let client = try PairingCeremony.Client(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        let reflected = [0x42] + client.requestMessage.dropFirst()
        #expect(throws: PairingError.reflectedMessage) {
            try client.finish(challengeSpakeB: reflected, hostConfirm: [UInt8](repeating: 0, count: 32))
        }
    }

    /// Y = pw·N (a "host" with y = 0) leaves Y − pw·N = identity; libsodium's scalar
    /// multiplication returns −1 and that maps to `.degenerateExchange`.
    /// pw·N for PIN "0042" computed with python-spake2.
    @Test func identityUnblindedPointIsDegenerate() throws {
        let pwN = Self.hex("4403e68a897d74a272f0c0331ed70b7e85e2d21a67c0cf64232dda4fc6469b79")
        #expect(try Self.clientFinishError([0x42] + pwN) == .degenerateExchange)
    }

    // MARK: Inputs

    @Test func pinValidation() throws {
        #expect(try PairingCeremony.normalizedPIN("0042") == "0042")
        #expect(try PairingCeremony.normalizedPIN(" \t0042\n") == "0042")
        for bad in ["", "42", "042", "00042", "00a2", "12 34", "-123", "+123", "１２３４", "٠١٢٣"] {
            #expect(throws: PairingError.invalidPIN, "\(bad)") { _ = try PairingCeremony.normalizedPIN(bad) }
        }
        #expect(throws: PairingError.invalidPIN) {
            _ = try PairingCeremony.Client(pin: "12345", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        }
    }

    @Test func fingerprintsMustBe32Bytes() {
        #expect(throws: PairingError.invalidFingerprint(role: "client", byteCount: 31)) {
            _ = try PairingCeremony.Client(pin: "0042", clientFingerprint: Array(Self.clientFP.dropLast()),
                                           hostFingerprint: Self.hostFP)
        }
        #expect(throws: PairingError.invalidFingerprint(role: "host", byteCount: 64)) {
            _ = try PairingCeremony.Host(pin: "0042", clientFingerprint: Self.clientFP,
                                         hostFingerprint: Self.hostFP + Self.hostFP)
        }
    }

    @Test func randomScalarsDiffer() throws {
        let a = try PairingCeremony.Client(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        let b = try PairingCeremony.Client(pin: "0042", clientFingerprint: Self.clientFP, hostFingerprint: Self.hostFP)
        #expect(a.requestMessage != b.requestMessage)
    }

    @Test func errorsReadAsSentences() {
        let all: [PairingError] = [
            .invalidPIN, .invalidFingerprint(role: "host", byteCount: 3), .malformedMessage(byteCount: 2),
            .wrongSide(0x43), .invalidPoint, .reflectedMessage, .degenerateExchange,
            .malformedConfirmation(byteCount: 1), .confirmationMismatch, .outOfOrder("x"), .sodiumUnavailable,
        ]
        for error in all {
            #expect(error.description.first?.isUppercase == true && error.description.hasSuffix("."), "\(error)")
        }
    }
}
