import PunktfunkWire

/// Bytes from the HDMI bus. The input is split into frames (each piece's first byte, mod 18, is
/// its length, so empty, short and overlong frames all occur; the same byte's top bits pick what
/// the box does next) and each frame:
/// - decodes or throws, never traps; what decodes re-encodes to the same value;
/// - goes into one `CECFollower` (a playback device at 4, 1.0.0.0) 100 ms after the previous,
///   with the timeout handled in between, while the box answers its power requests (going along
///   or declining) and now and then starts a stream or puts the TV to standby: every action is
///   well formed (frames ≤ 16 bytes from our address), nothing directed-only goes to address 15,
///   nothing but answers leaves while the box is not on, a power request comes only from the
///   state it leaves, no key is pressed while asleep, at most one key is held, and every press is
///   released by the end.
enum CECFuzz {
    static func run(_ bytes: [UInt8]) {
        var follower = CECFollower(identity: .init(osdName: "punktfunk", vendorID: bytes.first.map { UInt32($0) }))
        follower.setAddresses(logical: 4, physical: 0x1000)
        var i = 0
        var now: UInt64 = 0
        var down: UInt8?
        var decline = false
        func drain() {
            while let action = follower.poll() {
                switch action {
                case .transmit(let frame):
                    precondition(frame.encoded.count <= CECFrame.maxLength, "a frame past 16 bytes")
                    precondition(frame.initiator == 4, "a frame not from our address")
                    let op = frame.message!.opcode
                    precondition(CECMessageRules.mayAddress(op, to: frame.destination), "\(frame): directed-only to 15")
                    precondition(follower.power.isOn || CECMessageRules.maySendInStandby(op), "\(frame) sent while not on")
                case .keyPressed(let key):
                    precondition(down == nil, "a press while \(down!) is held")
                    precondition(follower.power.isOn, "a key pressed while asleep")
                    down = key
                case .keyRepeated(let key):
                    precondition(down == key, "a repeat of \(key) that is not held")
                case .keyReleased(let key, _):
                    precondition(down == key, "a release of \(key) that is not held")
                    down = nil
                case .standby:
                    precondition(follower.power.status == CECPowerStatus.inTransitionToStandby, "standby asked from \(follower.power)")
                    precondition(down == nil, "standby with \(down!) held")
                    follower.setPower(standby: !decline)
                case .wake:
                    precondition(follower.power.status == CECPowerStatus.inTransitionToOn, "wake asked from \(follower.power)")
                    follower.setPower(standby: decline)
                case .lostActiveSource: break
                }
            }
        }
        while i < bytes.count {
            let control = bytes[i]
            let n = Int(control) % 18
            let frame = Array(bytes[(i + 1)..<min(bytes.count, i + 1 + n)])
            i += 1 + n
            if let decoded = try? CECFrame(decoding: frame) {
                precondition((try? CECFrame(decoding: decoded.encoded)) == decoded, "CEC round trip differs: \(decoded)")
            }
            decline = control & 0x80 != 0
            now += 100_000_000
            follower.handleTimeout(now: now)
            follower.handle(frame, now: now)
            drain()
            switch control >> 5 & 0x3 {   // the box's own commands, now and then
            case 1 where control & 0x10 != 0: follower.becomeActiveSource(wakeTV: true)
            case 2 where control & 0x10 != 0: follower.standbyTV(); drain(); follower.setPower(standby: true)
            case 3 where control & 0x10 != 0: follower.setPower(standby: false)
            default: break
            }
            drain()
        }
        follower.handleTimeout(now: now + CECFollower.releaseTimeoutNs)
        drain()
        precondition(down == nil, "key \(down!) left held")
        precondition(follower.nextDeadline == nil, "a deadline with nothing held")
    }
}
