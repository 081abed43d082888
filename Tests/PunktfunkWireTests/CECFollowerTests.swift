import Testing
@testable import PunktfunkWire

@Suite struct CECFollowerTests {
    static let ms: UInt64 = 1_000_000

    static func follower() -> CECFollower {
        var f = CECFollower(identity: .init(osdName: "punktfunk"))
        f.setAddresses(logical: 4, physical: 0x1000)
        return f
    }

    static func drain(_ f: inout CECFollower) -> [CECFollower.Action] {
        var out: [CECFollower.Action] = []
        while let a = f.poll() { out.append(a) }
        return out
    }

    static func sent(_ f: inout CECFollower) -> [String] {
        drain(&f).compactMap { if case .transmit(let fr) = $0 { fr.description } else { nil } }
    }

    @Test func answersEveryQueryATVMakesOfAPlaybackDevice() {
        var f = Self.follower()
        let queries: [(String, String)] = [
            ("04:46", "40:47:70:75:6e:6b:74:66:75:6e:6b"),   // Give OSD Name → Set OSD Name
            ("04:83", "4f:84:10:00:04"),                      // Give Physical Address → Report (broadcast)
            ("04:8c", "40:00:8c:04"),                         // no vendor id → Feature Abort [Refused]
            ("04:9f", "40:9e:05"),                            // Get CEC Version → 1.4
            ("04:8f", "40:90:00"),                            // Give Device Power Status → On
            ("04:8d:02", "40:8e:00"),                         // Menu Request [query] → Activated
            ("04:8d:01", "40:8e:01"),                         // Menu Request [deactivate] → Deactivated
            ("04:ff", "40:00:ff:04"),                         // Abort → Feature Abort [Refused]
            ("04:a5", "40:00:a5:00"),                         // unknown → Feature Abort [Unrecognized]
            ("04:04", "40:00:04:00"),                         // Image View On is the TV's
        ]
        for (i, (q, a)) in queries.enumerated() {
            f.handle(CECMessageTests.bytes(q), now: UInt64(i) * 100 * Self.ms)
            #expect(Self.sent(&f) == [a], "\(q)")
        }
        var withVendor = CECFollower(identity: .init(vendorID: 0x0000F0))
        withVendor.setAddresses(logical: 4, physical: 0x1000)
        withVendor.handle(CECMessageTests.bytes("04:8c"), now: 0)
        #expect(Self.sent(&withVendor) == ["4f:87:00:00:f0"])
    }

    @Test func neverAbortsBroadcastsOrAnswers() {
        var f = Self.follower()
        for q in ["0f:fe", "04:00:8f:00", "04:9e:05", "04:47:41", "0f:84:00:00:00", "0f:87:00:00:f0"] {
            f.handle(CECMessageTests.bytes(q), now: 0)
        }
        #expect(Self.sent(&f).isEmpty)
        #expect(f.counters.featureAborts == 1)
        #expect(f.counters.unknown == 1)
    }

    @Test func wrongAddressingAndOtherDestinationsAreIgnored() {
        var f = Self.follower()
        f.handle(CECMessageTests.bytes("0f:46"), now: 0)        // Give OSD Name broadcast: must be directed
        f.handle(CECMessageTests.bytes("04:82:10:00"), now: 0)  // Active Source directed: must be broadcast
        f.handle(CECMessageTests.bytes("08:46"), now: 0)        // to Playback 2
        f.handle(CECMessageTests.bytes("44:46"), now: 0)        // from our own address
        #expect(Self.sent(&f).isEmpty)
        #expect(f.counters.ignored == 4)
    }

    @Test func malformedFramesAreCounted() {
        var f = Self.follower()
        for q in [[], [0x0F, 0x82, 0x10], [0x04, 0x44], Array(repeating: UInt8(0x04), count: 17)] as [[UInt8]] {
            f.handle(q, now: 0)
        }
        #expect(f.counters.malformed == 4)
        #expect(Self.drain(&f).isEmpty)
    }

    @Test func oneTouchPlayThenStreamPathAndRequestActiveSource() {
        var f = Self.follower()
        f.becomeActiveSource(wakeTV: true)
        #expect(Self.sent(&f) == ["40:04", "4f:82:10:00"])
        #expect(f.isActiveSource)
        f.handle(CECMessageTests.bytes("0f:85"), now: 0)
        #expect(Self.sent(&f) == ["4f:82:10:00"])
        f.handle(CECMessageTests.bytes("3f:82:20:00"), now: 0)   // a tuner takes over
        #expect(Self.drain(&f) == [.lostActiveSource])
        f.handle(CECMessageTests.bytes("0f:85"), now: 0)
        #expect(Self.sent(&f).isEmpty)
        f.handle(CECMessageTests.bytes("0f:86:10:00"), now: 0)   // the TV picks our path
        #expect(Self.sent(&f) == ["4f:82:10:00"])
        f.becomeInactive()
        #expect(Self.sent(&f) == ["40:9d:10:00"])
        f.becomeActiveSource(wakeTV: false)
        #expect(Self.sent(&f) == ["4f:82:10:00"])
        f.standbyTV()
        #expect(Self.sent(&f) == ["40:36"])
    }

    @Test func nothingIsSentWithoutAnAddress() {
        var f = CECFollower(identity: .init())
        f.becomeActiveSource(wakeTV: true)
        f.standbyTV()
        f.handle(CECMessageTests.bytes("0f:46"), now: 0)
        #expect(Self.drain(&f).isEmpty)
    }

    @Test func standbyFromTheTV() {
        var f = Self.follower()
        f.handle(CECMessageTests.bytes("04:44:01"), now: 0)
        f.handle(CECMessageTests.bytes("0f:36"), now: 10 * Self.ms)
        #expect(Self.drain(&f) == [.keyPressed(1), .keyReleased(1, timedOut: false), .standby(.message(CECOpcode.standby))])
        // Already on its way: a second <Standby>, directed this time, asks nothing new.
        f.handle(CECMessageTests.bytes("04:36"), now: 20 * Self.ms)
        #expect(Self.drain(&f).isEmpty)
    }

    // MARK: - Power (CEC 13.3, 13.14)

    @Test func thePowerStatusFollowsTheRequestThenTheBoxsAnswer() {
        var f = Self.follower()
        f.handle(CECMessageTests.bytes("04:8f"), now: 0)
        #expect(Self.sent(&f) == ["40:90:00"])                      // On
        f.becomeActiveSource(wakeTV: false)
        _ = Self.drain(&f)
        f.handle(CECMessageTests.bytes("0f:36"), now: 0)
        #expect(Self.drain(&f) == [.standby(.message(0x36))])
        #expect(!f.isActiveSource)
        f.handle(CECMessageTests.bytes("04:8f"), now: 0)
        #expect(Self.sent(&f) == ["40:90:03"])                      // In transition On to Standby
        f.setPower(standby: true)
        f.handle(CECMessageTests.bytes("04:8f"), now: 0)
        #expect(Self.sent(&f) == ["40:90:01"])                      // Standby
        f.handle(CECMessageTests.bytes("04:36"), now: 0)            // not a toggle
        f.handle(CECMessageTests.bytes("0f:82:00:00"), now: 0)      // <Active Source> never wakes (CEC 2.0 11.3.3, cec-compliance)
        #expect(Self.drain(&f).isEmpty)
        #expect(f.power.status == CECPowerStatus.standby)
        f.handle(CECMessageTests.bytes("0f:86:10:00"), now: 0)      // <Set Stream Path> to us
        #expect(Self.drain(&f) == [.wake(.message(0x86))], "no <Active Source> before the box is on")
        f.handle(CECMessageTests.bytes("04:8f"), now: 0)
        #expect(Self.sent(&f) == ["40:90:02"])                      // In transition Standby to On
        f.setPower(standby: false)
        f.handle(CECMessageTests.bytes("04:8f"), now: 0)
        #expect(Self.sent(&f) == ["40:90:00"])
        f.becomeActiveSource(wakeTV: true)                           // the One Touch Play after the wake
        #expect(Self.sent(&f) == ["40:04", "4f:82:10:00"])
    }

    @Test func aDeclinedRequestSettlesWhereTheBoxIs() {
        var f = Self.follower()
        f.handle(CECMessageTests.bytes("0f:36"), now: 0)
        _ = Self.drain(&f)
        f.setPower(standby: false)   // the box stays on (the setting is off)
        f.handle(CECMessageTests.bytes("04:8f"), now: 0)
        #expect(Self.sent(&f) == ["40:90:00"])
    }

    @Test(arguments: [("0f:86:10:00", CECFollower.Cause.message(0x86)),
                      ("0f:80:20:00:10:00", .message(0x80)),
                      ("0f:81:10:00", .message(0x81)),
                      ("04:44:6d", .remoteKey(CECUserControl.powerOnFunction)),
                      ("04:44:6b", .remoteKey(CECUserControl.powerToggleFunction)),
                      ("04:44:40", .remoteKey(CECUserControl.power))])
    func everyWakePathWakesAndOnlyFromStandby(_ frame: String, _ cause: CECFollower.Cause) {
        var f = Self.follower()
        if cause == .message(0x86) {
            f.handle(CECMessageTests.bytes(frame), now: 0)   // on: Set Stream Path is answered, not a wake
            #expect(Self.sent(&f) == ["4f:82:10:00"])
        }
        f.setPower(standby: true)
        f.handle(CECMessageTests.bytes(frame), now: 0)
        #expect(Self.drain(&f) == [.wake(cause)])
        #expect(f.power.status == CECPowerStatus.inTransitionToOn)
        f.handle(CECMessageTests.bytes(frame), now: 0)   // again while waking: nothing new
        #expect(Self.sent(&f).isEmpty)
    }

    @Test func routingToAnotherAddressDoesNotWake() {
        var f = Self.follower()
        f.setPower(standby: true)
        for q in ["0f:86:20:00", "0f:80:10:00:20:00", "0f:81:20:00", "04:44:6c", "04:44:01", "0f:85"] {
            f.handle(CECMessageTests.bytes(q), now: 0)
        }
        #expect(Self.drain(&f).isEmpty, "Power Off, other keys and others' routes leave a box in standby alone")
    }

    @Test func thePowerKeysWhileOn() {
        for (key, wants) in [("6c", true), ("6b", true), ("40", true), ("6d", false)] {
            var f = Self.follower()
            f.handle(CECMessageTests.bytes("04:44:01"), now: 0)   // a held arrow goes up first
            f.handle(CECMessageTests.bytes("04:44:" + key), now: 0)
            var expected: [CECFollower.Action] = [.keyPressed(1), .keyReleased(1, timedOut: false)]
            if wants { expected.append(.standby(.remoteKey(UInt8(key, radix: 16)!))) }
            #expect(Self.drain(&f) == expected, "0x\(key)")
        }
    }

    @Test func inStandbyOnlyAnswersLeave() {
        var f = Self.follower()
        f.becomeActiveSource(wakeTV: false)
        _ = Self.drain(&f)
        f.setPower(standby: true)
        f.becomeActiveSource(wakeTV: true)
        f.becomeInactive()
        f.standbyTV()
        f.handle(CECMessageTests.bytes("0f:85"), now: 0)   // Request Active Source
        f.handle(CECMessageTests.bytes("04:44:01"), now: 0)
        #expect(Self.drain(&f).isEmpty)
        // What cec-compliance asks a device in standby is still answered.
        for (q, a) in [("04:46", "40:47:70:75:6e:6b:74:66:75:6e:6b"), ("04:83", "4f:84:10:00:04"), ("04:9f", "40:9e:05"),
                       ("04:ff", "40:00:ff:04"), ("04:fe", "40:00:fe:00"), ("04:8f", "40:90:01"), ("04:91", "40:00:91:00")] {
            f.handle(CECMessageTests.bytes(q), now: 0)
            #expect(Self.sent(&f) == [a], "\(q)")
        }
    }

    // MARK: - Remote keys and the auto-release rule

    @Test func pressAndReleasePairs() {
        var f = Self.follower()
        f.handle(CECMessageTests.bytes("04:44:01"), now: 0)
        f.handle(CECMessageTests.bytes("04:45"), now: 100 * Self.ms)
        #expect(Self.drain(&f) == [.keyPressed(1), .keyReleased(1, timedOut: false)])
        #expect(f.nextDeadline == nil)
        f.handle(CECMessageTests.bytes("04:45"), now: 200 * Self.ms)   // a stray release
        #expect(Self.drain(&f).isEmpty)
    }

    @Test func repeatsRefreshTheHoldAndAMissingReleaseTimesOut() {
        var f = Self.follower()
        f.handle(CECMessageTests.bytes("04:44:02"), now: 0)
        #expect(f.nextDeadline == 550 * Self.ms)
        // The initiator repeats every 200–500 ms while held (CEC 13.13.3).
        for t: UInt64 in [450, 900, 1400] {
            f.handleTimeout(now: t * Self.ms)
            f.handle(CECMessageTests.bytes("04:44:02"), now: t * Self.ms)
        }
        #expect(Self.drain(&f) == [.keyPressed(2), .keyRepeated(2), .keyRepeated(2), .keyRepeated(2)])
        f.handleTimeout(now: 1949 * Self.ms)
        #expect(Self.drain(&f).isEmpty)
        f.handleTimeout(now: 1950 * Self.ms)
        #expect(Self.drain(&f) == [.keyReleased(2, timedOut: true)])
        #expect(f.counters.autoReleases == 1)
        #expect(f.nextDeadline == nil)
    }

    @Test func anotherKeyReleasesTheHeldOne() {
        var f = Self.follower()
        f.handle(CECMessageTests.bytes("04:44:01"), now: 0)
        f.handle(CECMessageTests.bytes("04:44:03"), now: 100 * Self.ms)
        f.releaseHeld()
        #expect(Self.drain(&f) == [.keyPressed(1), .keyReleased(1, timedOut: false), .keyPressed(3), .keyReleased(3, timedOut: false)])
    }

    @Test func aFloodOfQueriesIsRateLimited() {
        var f = Self.follower()
        for i in 0..<100 { f.handle(CECMessageTests.bytes("04:46"), now: UInt64(i) * Self.ms) }
        #expect(Self.sent(&f).count == CECFollower.replyBudget)
        #expect(f.counters.repliesDropped == 100 - CECFollower.replyBudget)
        f.handle(CECMessageTests.bytes("04:46"), now: 1100 * Self.ms)
        #expect(Self.sent(&f).count == 1)
    }
}
