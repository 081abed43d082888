import PunktfunkWire

/// The loss-recovery state machines (`LossAsks`, `ReanchorGate`, `AUAdmission`, `EpochHold`,
/// `DecodedAcks`) driven by a script of events, with invariants checked after every step.
///
/// Input = `refresh u8 ‖ first frame u32 LE ‖ start u8 ‖ events`. An event is one op byte —
/// low nibble the event, high nibble the time step taken before it (0 … 1 s, see `steps`; time
/// never goes backwards) — followed by the event's parameter bytes (0 once the input runs out):
///
/// - 0, 1, 2 `delivered  move flags`: the next frame, `move` picking in order / duplicate / gap /
///   backwards / a far jump either way / a jump to just below the u32 wrap; its order feeds
///   `AUAdmission`, a gap arms the gate;
/// - 3 `tailShort off`, 4 `nack off count`: about the frame `off` (signed) from the newest;
/// - 5 `keyframeNeeded`, 6 `tick`, 7, 8 `takeDueCopy` (the copy is put through the Feedback codec);
/// - 9 `arm reason`, 10, 11 `decoded flags` (bit 7 of `flags`: damaged), 12 `noOutput`,
///   13 `poll` (the gate; a true `noOutput` / `poll` asks `LossAsks` for a keyframe);
/// - 14 `epoch op`: `EpochHold` holds a frame of a small epoch, or a config releases one;
/// - 15 `restartSequence`.
///
/// Flags bytes map bit 0 → 0x04 keyframe, 1 → 0x10 recovery point, 2 → 0x20 anchor,
/// 3 → 0x200 close, 4 → 0x01, 5 → 0x02, 6 → 0x400.
///
/// Every invariant that fails traps (`preconditionFailure`), so libFuzzer reports it.
struct RecoveryFuzz {
    static let ms: UInt64 = 1_000_000
    static let steps: [UInt64] = [0, 1, 2, 4, 8, 16, 17, 33, 50, 99, 100, 101, 250, 499, 500, 1000].map { $0 * 1_000_000 }
    static let farJumps: [UInt32] = [255, 256, 257, 258, 1000, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001]
    static let refreshes: [UInt32] = [60, 30, 120, 144, 240, 10, 1000, 59]
    static let unitBytes: [Int] = [1, 1000, 100_000, 1 << 20, 4 << 20, 8 << 20, 16 << 20, 63 << 20]

    struct Unit: Equatable, Sendable { var epoch: UInt8; var id: Int; var bytes: Int }

    // Input.
    let bytes: [UInt8]
    var at = 0
    var now: UInt64 = 0

    // The machines.
    var asks: LossAsks
    var gate = ReanchorGate()
    var admission = AUAdmission()
    var hold: EpochHold<Unit>
    var acks = DecodedAcks()

    // LossAsks shadow.
    let interval: UInt64
    var lastFrame: UInt32
    var nextExpected: UInt32?
    var newest: UInt32?
    var prevAsk: FeedbackDatagram.Ask?
    var prevKind: LossAsks.Kind?
    var prevOpened = 0
    var prevAnswered = 0
    var prevGivenUp = 0
    var prevLost = 0
    var number: UInt16 = 0
    var openedAt: UInt64 = 0
    var openedAfter: UInt32?
    var lastTickAt: UInt64?
    var lastRFIOpenAt: UInt64?
    var lastCopy: (number: UInt16, at: UInt64)?

    // Gate shadow.
    var closesLatched = false
    var waveStartSeen = false
    var marksSinceArm = 0
    var armedAt: UInt64 = 0
    var lastPollAskAt: UInt64?
    var admissionWithholding = false
    var lastFed: UInt32 = 0
    var newestDecoded: UInt32?

    // EpochHold shadow.
    var held: [Unit] = []
    var overflowed = false
    var nextUnit = 0

    static func run(_ bytes: [UInt8]) {
        var f = RecoveryFuzz(bytes)
        f.script()
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        let refresh = Self.refreshes[Int(bytes.first ?? 0) & 7]
        asks = LossAsks(refreshHz: refresh)
        interval = LossAsks.interval(refresh)
        precondition(asks.repeatIntervalNs == interval)
        var first: UInt32 = 0
        for i in 0..<4 where 1 + i < bytes.count { first |= UInt32(bytes[1 + i]) << (8 * i) }
        lastFrame = first &- 1
        let start = bytes.count > 5 ? bytes[5] : 0
        at = min(bytes.count, 6)
        now = UInt64(start & 0x7F) * 1_000_000_000
        hold = EpochHold(active: start & 0x80 == 0)
    }

    mutating func next() -> UInt8 {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return bytes[at]
    }

    static func flags(_ b: UInt8) -> UInt32 {
        var f: UInt32 = 0
        for (bit, flag) in [(0, 0x04), (1, 0x10), (2, 0x20), (3, 0x200), (4, 0x01), (5, 0x02), (6, 0x400)] as [(UInt8, UInt32)]
        where b >> bit & 1 == 1 { f |= flag }
        return f
    }

    mutating func script() {
        var step = 0
        while at < bytes.count {
            let op = next()
            now += Self.steps[Int(op >> 4)]
            event(op & 0x0F, step: step)
            checkAsks(step: step)
            checkHold()
            step += 1
        }
    }

    // MARK: - Events

    mutating func event(_ op: UInt8, step: Int) {
        switch op {
        case 0, 1, 2: delivered(move: next(), flags: Self.flags(next()))
        case 3: asks.tailShort(frame: lastFrame &+ UInt32(bitPattern: Int32(Int8(bitPattern: next()))), now: now)
        case 4:
            let frame = lastFrame &+ UInt32(bitPattern: Int32(Int8(bitPattern: next())))
            let count = Int(next() & 31)
            asks.nack(frame: frame, shards: (0..<count).map { UInt16($0 * 3 + 1) }, now: now)
            if count > 0 {
                let n = asks.ask?.nack
                precondition(n?.frame == frame && n!.shards.count == min(count, 16), "NACK ask \(String(describing: n)) for \(count) shards of \(frame)")
            }
        case 5:
            let wasKeyframeAsk = asks.askKind == .keyframe && asks.ask != nil
            asks.keyframeNeeded(now: now)
            precondition(asks.askKind == .keyframe && asks.ask?.keyframe == true, "keyframeNeeded left no keyframe ask open")
            precondition(wasKeyframeAsk == (asks.asksOpened == prevOpened), "keyframeNeeded re-asked a repeating keyframe ask, or did not ask")
        case 6:
            asks.tick(now: now)
            lastTickAt = now
        case 7, 8: takeDueCopy()
        case 9: arm([.frameLoss, .decoderError, .damagedPicture, .noOutput][Int(next() & 3)])
        case 10, 11: decoded(next())
        case 12:
            let wasHolding = gate.holding
            if gate.noOutput(now: now) {
                precondition(gate.holding && gate.reason == .noOutput, "a no-output streak did not arm")
                resetWave(armed: true)
                asks.keyframeNeeded(now: now)
            } else {
                precondition(gate.holding == wasHolding, "noOutput changed the freeze without asking")
            }
        case 13: poll()
        case 14: epoch(next())
        default:
            asks.restartSequence()
            nextExpected = nil
        }
    }

    mutating func delivered(move: UInt8, flags: UInt32) {
        let frame: UInt32
        switch move >> 5 {
        case 0, 1, 2: frame = lastFrame &+ 1
        case 3: frame = lastFrame
        case 4: frame = lastFrame &+ 2 &+ UInt32(move & 31)
        case 5: frame = lastFrame &- UInt32(move & 31)
        case 6:
            let jump = Self.farJumps[Int(move & 7)] &+ UInt32(move >> 3 & 1)
            frame = move & 0x10 == 0 ? lastFrame &+ jump : lastFrame &- jump
        default: frame = UInt32.max &- UInt32(move & 15)
        }
        lastFrame = frame
        let order = asks.delivered(frame: frame, userFlags: flags, now: now)

        // The order, by the gap rule.
        let expected: LossAsks.FrameOrder
        if let e = nextExpected {
            let ahead = frame &- e
            expected = ahead == 0 ? .inOrder : ahead < 0x8000_0000 ? .gap(ahead) : .straggler
        } else {
            expected = .inOrder
        }
        precondition(order == expected, "frame \(frame) after expected \(String(describing: nextExpected)): \(order), not \(expected)")
        if case .gap(let n) = order {
            precondition(asks.framesLost == prevLost + Int(n), "a gap of \(n) counted \(asks.framesLost - prevLost) lost")
        } else {
            precondition(asks.framesLost == prevLost, "no gap, yet frames counted lost")
        }
        if order != .straggler {
            nextExpected = frame &+ 1
            if newest.map({ LossAsks.isAfter(frame, $0) }) ?? true { newest = frame }
        }

        // The answer rule.
        var answers = false
        if let open = prevAsk, order != .straggler, openedAfter.map({ LossAsks.isAfter(frame, $0) }) ?? true {
            answers = flags & 0x04 != 0
                || (prevKind == .rfi && flags & 0x30 != 0)
                || (prevKind == .nack && open.nack?.frame == frame)
        }
        let answered = asks.asksAnswered - prevAnswered
        precondition(answered == (answers ? 1 : 0),
                     "frame \(frame) flags \(flags) \(order) answered \(answered) of ask \(String(describing: prevAsk)) (\(String(describing: prevKind))) opened after \(String(describing: openedAfter))")
        if answered == 1, asks.asksOpened == prevOpened {
            precondition(asks.ask == nil, "an answered ask stays open")
        }

        // Admission, and the gate armed by a gap.
        let decision = admission.admit(order: order, userFlags: flags)
        switch order {
        case .straggler: precondition(decision == .withhold, "a straggler was fed")
        case .gap: admissionWithholding = true
        case .inOrder: break
        }
        if order != .straggler {
            if flags & 0x04 != 0 {
                precondition(decision == (admissionWithholding ? .restartThenFeed : .feed), "keyframe after a gap: \(decision)")
                admissionWithholding = false
            } else if flags & 0x30 != 0 {
                precondition(decision == .feed, "a re-entry point was \(decision)")
                admissionWithholding = false
            } else {
                precondition(decision == (admissionWithholding ? .withhold : .feed), "withholding \(admissionWithholding) gave \(decision)")
            }
        }
        precondition(admission.withholding == admissionWithholding, "admission's withholding differs")
        if decision != .withhold { lastFed = frame }
        if case .gap = order { arm(.frameLoss) }
    }

    mutating func takeDueCopy() {
        let open = asks.ask
        guard let copy = asks.takeDueCopy(now: now) else { return }
        precondition(copy == open && asks.ask == open, "takeDueCopy gave \(copy), the open ask is \(String(describing: open))")
        if let last = lastCopy, last.number == copy.number {
            precondition(now - last.at >= interval,
                         "ask \(copy.number) copied at \(last.at) and again at \(now), within the interval \(interval)")
        }
        lastCopy = (copy.number, now)
        let datagram = FeedbackDatagram(ask: copy, ack: acks.ack)
        precondition((try? FeedbackDatagram(body: datagram.body)) == datagram, "ask copy round trip differs: \(datagram)")
    }

    // MARK: - Gate

    mutating func resetWave(armed: Bool) {
        waveStartSeen = false
        marksSinceArm = 0
        if armed { armedAt = now }
    }

    mutating func arm(_ why: ReanchorGate.Reason) {
        let freezes = gate.freezes, wasHolding = gate.holding
        gate.arm(why, now: now)
        precondition(gate.holding && gate.reason == why, "arm did not hold")
        precondition(gate.freezes == freezes + (wasHolding ? 0 : 1), "a freeze miscounted")
        resetWave(armed: true)
    }

    mutating func decoded(_ b: UInt8) {
        let flags = Self.flags(b & 0x7F), damaged = b & 0x80 != 0
        let wasHolding = gate.holding
        let verdict = gate.decoded(userFlags: flags, damaged: damaged, now: now)
        let close = flags & 0x200 != 0, point = flags & 0x10 != 0
        if close { closesLatched = true }
        if damaged {
            precondition(verdict == .hold, "a damaged picture was shown (flags \(flags))")
            precondition(gate.holding, "a damaged picture left the gate open")
            if !wasHolding { resetWave(armed: true) }
            return
        }
        guard wasHolding else {
            precondition(verdict == .show, "a clean picture held while not frozen")
            acked(lastFed)
            return
        }
        // The lift rule: a keyframe, an anchor, or the wave rule.
        let wave: Bool
        if closesLatched {
            wave = close && waveStartSeen
            if point && !close { waveStartSeen = true }
        } else {
            if point { marksSinceArm += 1; waveStartSeen = true }
            wave = point && marksSinceArm >= ReanchorGate.marksToLift
        }
        let lifts = flags & 0x04 != 0 || flags & 0x20 != 0 || wave
        precondition((verdict == .show) == lifts,
                     "holding, flags \(flags) (closes latched \(closesLatched), start seen \(waveStartSeen), marks \(marksSinceArm)): \(verdict)")
        precondition(gate.holding == !lifts, "the verdict and the freeze disagree")
        if lifts {
            precondition(gate.heldSince == nil && gate.heldFor(now: now) == 0, "a lifted gate still counts a freeze")
            resetWave(armed: false)
            acked(lastFed)
        }
    }

    mutating func poll() {
        let wasHolding = gate.holding
        let asked = gate.poll(now: now)
        precondition(gate.holding == wasHolding, "poll changed the freeze")
        guard asked else { return }
        precondition(wasHolding, "poll asked for a keyframe while not frozen")
        precondition(now - armedAt >= ReanchorGate.backstopNs, "poll asked \(now - armedAt) ns after the arm")
        if let last = lastPollAskAt {
            precondition(now - last >= ReanchorGate.backstopNs, "poll asked twice within \(now - last) ns")
        }
        lastPollAskAt = now
        asks.keyframeNeeded(now: now)
    }

    mutating func acked(_ frame: UInt32) {
        acks.decoded(frame)
        if newestDecoded.map({ LossAsks.isAfter(frame, $0) }) ?? true { newestDecoded = frame }
        guard let ack = acks.ack else { preconditionFailure("no ACK after a decoded frame") }
        precondition(ack.lastFrame == newestDecoded, "ACK names \(ack.lastFrame), the newest decoded is \(String(describing: newestDecoded))")
        let d = FeedbackDatagram(ack: ack)
        precondition((try? FeedbackDatagram(body: d.body)) == d, "ACK round trip differs")
    }

    // MARK: - LossAsks invariants

    mutating func checkAsks(step: Int) {
        let opened = asks.asksOpened - prevOpened
        precondition(opened == 0 || opened == 1, "\(opened) asks opened in one step")
        let ask = asks.ask
        if opened == 1 {
            guard let a = ask else { preconditionFailure("an ask opened and is not open") }
            number &+= 1
            if number == 0 { number = 1 }
            precondition(a.number == number, "ask numbered \(a.number), the next number is \(number)")
            openedAt = now
            openedAfter = newest
            if asks.askKind == .rfi {
                if let last = lastRFIOpenAt {
                    precondition(now - last >= LossAsks.rfiThrottleNs, "two RFI asks \(now - last) ns apart")
                }
                lastRFIOpenAt = now
            }
        } else if let a = ask {
            precondition(a == prevAsk && asks.askKind == prevKind, "ask \(String(describing: prevAsk)) became \(a) without a new number")
        }
        if let a = ask {
            precondition(a.number != 0, "an open ask numbered 0")
            switch asks.askKind {
            case .rfi:
                guard let r = a.invalidate else { preconditionFailure("an RFI ask without a range") }
                let span = r.last &- r.first &+ 1
                precondition(span >= 1 && span <= LossAsks.rfiMaxRange, "RFI range \(r.first)…\(r.last) spans \(span)")
                precondition(!a.keyframe && a.nack == nil, "an RFI ask also asks \(a)")
            case .keyframe:
                precondition(a.keyframe && a.invalidate == nil && a.nack == nil, "a keyframe ask \(a)")
            case .nack:
                guard let n = a.nack else { preconditionFailure("a NACK ask without a NACK") }
                precondition(!n.shards.isEmpty && n.shards.count <= FeedbackDatagram.Nack.maxShards, "NACK of \(n.shards.count) shards")
                precondition(!a.keyframe && a.invalidate == nil, "a NACK ask also asks \(a)")
            case nil:
                preconditionFailure("an open ask without a kind")
            }
            if let t = lastTickAt, t >= openedAt {
                precondition(t - openedAt < LossAsks.giveUpNs,
                             "ask \(a.number) opened at \(openedAt) still open after the tick at \(t)")
            }
            if let d = asks.nextDeadline() {
                precondition(d <= openedAt + LossAsks.giveUpNs, "the next deadline \(d) is past the give-up")
            } else {
                preconditionFailure("an open ask without a deadline")
            }
        } else {
            precondition(asks.askKind == nil, "a kind without an ask")
        }
        let ended = asks.asksAnswered - prevAnswered + asks.asksGivenUp - prevGivenUp
        precondition(ended <= 1, "\(ended) asks ended in one step")
        if ended == 1 { precondition(prevAsk != nil, "an ask ended that was not open") }
        if prevAsk != nil, opened == 0, ask == nil { precondition(ended == 1, "an ask vanished uncounted") }
        prevAsk = ask
        prevKind = asks.askKind
        prevOpened = asks.asksOpened
        prevAnswered = asks.asksAnswered
        prevGivenUp = asks.asksGivenUp
        prevLost = asks.framesLost
    }

    // MARK: - EpochHold

    mutating func epoch(_ b: UInt8) {
        let epoch = b & 3 == 3 ? UInt8(b >> 2 & 0x1F) &+ 130 : b & 3
        if b & 0x80 == 0 {
            guard hold.mustHold(epoch: epoch) else { return }
            let unit = Unit(epoch: epoch, id: nextUnit, bytes: Self.unitBytes[Int(b >> 4 & 7)])
            nextUnit += 1
            let dropped = hold.framesDropped
            hold.hold(unit, epoch: epoch, bytes: unit.bytes)
            if hold.framesDropped != dropped {
                precondition(hold.framesDropped == dropped + held.count + 1, "dropped \(hold.framesDropped - dropped) of \(held.count + 1)")
                precondition(held.count + 1 > EpochHold<Unit>.maxFrames || held.reduce(unit.bytes) { $0 + $1.bytes } > EpochHold<Unit>.maxBytes,
                             "a batch within bounds dropped")
                held.removeAll()
                overflowed = true
            } else {
                held.append(unit)
            }
        } else {
            let (units, needsKeyframe) = hold.releaseOnConfig(epoch: epoch)
            for u in units { precondition(u.epoch == epoch, "config of epoch \(epoch) released a frame of epoch \(u.epoch)") }
            let expected = held.filter { $0.epoch == epoch }
            precondition(units == expected, "released \(units.map(\.id)), held \(expected.map(\.id))")
            precondition(needsKeyframe == overflowed, "needsKeyframe \(needsKeyframe) after overflow \(overflowed)")
            precondition(!hold.mustHold(epoch: epoch), "a configured epoch still holds")
            held.removeAll { $0.epoch == epoch }
            overflowed = false
        }
    }

    func checkHold() {
        precondition(hold.waiting == held.count, "\(hold.waiting) frames waiting, \(held.count) held")
        precondition(held.count <= EpochHold<Unit>.maxFrames, "\(held.count) frames held past the bound")
        let total = held.reduce(0) { $0 + $1.bytes }
        precondition(total <= EpochHold<Unit>.maxBytes, "\(total) bytes held past the bound")
    }
}
