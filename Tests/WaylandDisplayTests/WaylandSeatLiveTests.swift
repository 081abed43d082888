import Foundation
import Testing
import Input
import PunktfunkWire
@testable import WaylandDisplay

/// `WaylandSeat` against a real compositor: run by Tests/wayland/run.sh under headless sway with
/// `PF_WL_SEAT_LIVE=KEY_SCRIPT` (the harness injects that script's keys, then pointer motion,
/// through its virtual keyboard/pointer once this test prints "seat-live: ready"). The window is
/// the kiosk's own `WaylandScreen` showing a canvas, the seat its `makeSeat`, streaming-captured
/// (lock, relative, inhibitor). Skipped without the variable (no compositor in a plain
/// `swift test`).
@Suite struct WaylandSeatLiveTests {
    static let script = ProcessInfo.processInfo.environment["PF_WL_SEAT_LIVE"]

    /// A progress line for the harness: appended to `PF_WL_SEAT_LIVE_MARKS` (a file of its own,
    /// opened and closed per line), and printed.
    func mark(_ line: String) {
        print(line)
        guard let path = ProcessInfo.processInfo.environment["PF_WL_SEAT_LIVE_MARKS"] else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    @Test(.enabled(if: script != nil, "needs a compositor: Tests/wayland/run.sh sets PF_WL_SEAT_LIVE"))
    func seatEventsFromALiveCompositorMapToTheHost() throws {
        let want = try String(contentsOfFile: Self.script!, encoding: .utf8).split(separator: "\n").compactMap { line -> (UInt32, UInt32)? in
            let f = line.split(separator: " ")
            guard f.count == 3, f[0] == "key", let c = UInt32(f[1]), let s = UInt32(f[2]) else { return nil }
            return (c, s)
        }
        // The kiosk's own screen (fullscreen toplevel), mapped by one grey canvas, and its seat.
        let screen = try WaylandScreen(appID: "pf-seat-live")
        defer { screen.close() }
        func commitCanvas(_ id: UInt64) throws {
            guard let canvas = try screen.canvas(id: id) else { return }
            for row in 0..<canvas.height {
                let p = (canvas.pixels + row * canvas.pitch).assumingMemoryBound(to: UInt32.self)
                for col in 0..<canvas.width { p[col] = 0xFF40_4040 }
            }
            try screen.commitCanvas(id: id, damage: nil)
        }
        try commitCanvas(1)
        var events: [SeatEvent] = []
        let seat = screen.makeSeat { events.append($0) }
        defer { seat.destroy() }
        for n in seat.notices { FileHandle.standardOutput.write(Data("seat-live notice: \(n)\n".utf8)) }
        seat.setCapture(true)
        screen.setStreaming(true)
        mark("seat-live: ready")
        let deadline = Date().addingTimeInterval(15)
        var recommitted = false
        func keys() -> [(UInt32, UInt32)] { events.compactMap { if case .key(let c, let s) = $0 { (c, s) } else { nil } } }
        func relative() -> Int { events.filter { if case .relativeMotion = $0 { true } else { false } }.count }
        /// Relative motions after the lock took hold (before it, they are not the host's).
        func relativeWhileLocked() -> Int {
            guard let at = events.firstIndex(of: .pointerLocked(true)) else { return 0 }
            return events[at...].filter { if case .relativeMotion = $0 { true } else { false } }.count
        }
        while Date() < deadline, keys().count < want.count || relativeWhileLocked() == 0 {
            _ = screen.service(timeoutMs: 100)
            _ = screen.takeCanvasShown()
            if !recommitted, screen.canCommitCanvas, events.contains(where: { if case .pointerEnter = $0 { true } else { false } }) {
                recommitted = true
                try commitCanvas(2)   // a frame after the enter, as a stream would commit (the lock is made on enter)
            }
        }
        // Focus loss (PF_WL_SEAT_LIVE_FOCUS): the harness holds S, then opens another window.
        let focusPhase = ProcessInfo.processInfo.environment["PF_WL_SEAT_LIVE_FOCUS"] != nil
        let keyS: UInt32 = 31
        var leftWhileHolding = false
        if focusPhase {
            mark("seat-live: hold now")
            let until = Date().addingTimeInterval(10)
            var saidHolding = false
            while Date() < until, !leftWhileHolding {
                _ = screen.service(timeoutMs: 100)
                if let press = events.lastIndex(of: .key(code: keyS, state: 1)) {
                    if !saidHolding { saidHolding = true; mark("seat-live: holding") }
                    leftWhileHolding = events[press...].contains(.keyboardLeave)
                        && !events[press...].contains(.key(code: keyS, state: 0))
                }
            }
        }
        let summary = "seat-live: \(events.count) seat events, \(keys().count) key edges (\(want.count) injected), "
            + "\(relative()) relative motions (\(relativeWhileLocked()) while locked), locked \(events.contains(.pointerLocked(true)))\n"
            + (focusPhase ? "seat-live: S held, then keyboard leave: \(leftWhileHolding)\n" : "")
            + "seat-live: events: \(events)\n"
        FileHandle.standardOutput.write(Data(summary.utf8))
        #expect(events.contains { if case .keyboardEnter = $0 { true } else { false } })
        let injected = Array(keys().prefix(want.count))
        #expect(injected.map(\.0) == want.map(\.0) && injected.map(\.1) == want.map(\.1))
        #expect(events.contains(.pointerLocked(true)))   // sway offers the lock; the pointer is on the window
        #expect(relativeWhileLocked() > 0)

        // The same events through the mapping: the host gets exactly the VKs, nothing held.
        final class Sink: InputSink {
            var events: [InputEvent] = []
            func send(_ event: InputEvent, reliable: Bool) -> Bool { events.append(event); return true }
            func send(_ rich: RichInput) -> Bool { true }
        }
        let sink = Sink()
        let mapper = InputMapper(sink: sink)
        mapper.setPolicy(InputPolicy(normalisedScroll: false))
        let navigation = NavigationMapper()
        navigation.setRoute(.host)
        let seatInput = SeatInput(mapper: mapper, navigation: navigation)
        for e in events { seatInput.handle(e) }
        let hostKeys = sink.events.filter { $0.kind == .keyDown || $0.kind == .keyUp }
        var wantVKs = want.compactMap { c, s in EvdevKeyMap.vk(evdev: UInt16(c)).map { (s == 1, UInt32($0)) } }
        if focusPhase {
            // S went down on the host; the leave took it back (its real release went to the other window).
            #expect(leftWhileHolding)
            wantVKs += [(true, 0x53), (false, 0x53)]
            #expect(seatInput.keyboard.down.isEmpty && !seatInput.keyboard.focused)
        }
        #expect(hostKeys.map { ($0.kind == .keyDown, $0.code) }.elementsEqual(wantVKs, by: { $0 == $1 }))
        #expect(sink.events.contains { $0.kind == .mouseMove })
        seatInput.handle(.keyboardLeave)
        seatInput.handle(.pointerLeave)
        #expect(mapper.held.isEmpty)
    }
}
