import PunktfunkWire

/// Bytes from the HDMI bus. The input is split into frames (each piece's first byte, mod 18, is
/// its length, so empty, short and overlong frames all occur) and each frame:
/// - decodes or throws, never traps; what decodes re-encodes to the same value;
/// - goes into one `CECFollower` (a playback device at 4, 1.0.0.0) 100 ms after the previous,
///   with the timeout handled in between: every action is well formed (frames ≤ 16 bytes from
///   our address), at most one key is held, every press is released by the end, and replies
///   never exceed the budget.
enum CECFuzz {
    static func run(_ bytes: [UInt8]) {
        var follower = CECFollower(identity: .init(osdName: "punktfunk", vendorID: bytes.first.map { UInt32($0) }))
        follower.setAddresses(logical: 4, physical: 0x1000)
        var i = 0
        var now: UInt64 = 0
        var down: UInt8?
        var sentThisSecond = 0
        var second: UInt64 = 0
        func drain() {
            while let action = follower.poll() {
                switch action {
                case .transmit(let frame):
                    precondition(frame.encoded.count <= CECFrame.maxLength, "a frame past 16 bytes")
                    precondition(frame.initiator == 4, "a frame not from our address")
                    if now / 1_000_000_000 != second { second = now / 1_000_000_000; sentThisSecond = 0 }
                    sentThisSecond += 1
                case .keyPressed(let key):
                    precondition(down == nil, "a press while \(down!) is held")
                    down = key
                case .keyRepeated(let key):
                    precondition(down == key, "a repeat of \(key) that is not held")
                case .keyReleased(let key, _):
                    precondition(down == key, "a release of \(key) that is not held")
                    down = nil
                case .standby, .lostActiveSource: break
                }
            }
        }
        while i < bytes.count {
            let n = Int(bytes[i]) % 18
            let frame = Array(bytes[(i + 1)..<min(bytes.count, i + 1 + n)])
            i += 1 + n
            if let decoded = try? CECFrame(decoding: frame) {
                precondition((try? CECFrame(decoding: decoded.encoded)) == decoded, "CEC round trip differs: \(decoded)")
            }
            now += 100_000_000
            follower.handleTimeout(now: now)
            follower.handle(frame, now: now)
            drain()
        }
        follower.handleTimeout(now: now + CECFollower.releaseTimeoutNs)
        drain()
        precondition(down == nil, "key \(down!) left held")
        precondition(follower.nextDeadline == nil, "a deadline with nothing held")
    }
}
