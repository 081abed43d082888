import Testing
import Input
import PunktfunkWire

/// The upstream golden data (Tests/Fixtures/upstream, copied from the host project).
@Suite struct VectorTests {
    /// evdev-vk-vectors.json: every evdev key code 0…255 → VK (null = unmapped).
    @Test func evdevToVK() throws {
        let cases = try UpstreamVectors.json("evdev-vk-vectors.json")["cases"] as! [[String: Any]]
        #expect(cases.count == 256)
        var mapped = 0
        for c in cases {
            let code = c["evdev"] as! Int
            let want = c["vk"] as? Int
            #expect(EvdevKeyMap.vk(evdev: UInt16(code)).map(Int.init) == want, "evdev \(code)")
            if want != nil { mapped += 1 }
        }
        #expect(mapped == 114)
        #expect(EvdevKeyMap.vk(evdev: 256) == nil)
        #expect(EvdevKeyMap.vk(evdev: 0xFFFF) == nil)
    }

    /// key-vk-vectors.json: names (any case, trimmed, aliases, f-key quirks) → VK.
    @Test func keyNames() throws {
        let cases = try UpstreamVectors.json("key-vk-vectors.json")["cases"] as! [[String: Any]]
        #expect(cases.count > 100)
        for c in cases {
            let name = c["name"] as! String
            #expect(KeyNames.vk(named: name).map(Int.init) == c["vk"] as? Int, "name \(name.debugDescription)")
        }
    }

    /// gamepad-kind-vectors.json: wire bytes, names, aliases, rejected names, has_motion and
    /// the motion_reaches rule.
    @Test func gamepadKinds() throws {
        let v = try UpstreamVectors.json("gamepad-kind-vectors.json")
        let kinds = v["kinds"] as! [[String: Any]]
        #expect(kinds.count == GamepadKind.allCases.count)
        for k in kinds {
            let kind = try #require(GamepadKind(rawValue: UInt8(k["value"] as! Int)))
            #expect(kind.name == k["name"] as! String)
            #expect(kind.hasMotion == k["has_motion"] as! Bool, "\(kind)")
            for name in [k["name"] as! String] + (k["aliases"] as! [String]) {
                #expect(GamepadKind(named: name) == kind)
                #expect(GamepadKind(named: " " + name.uppercased() + "\n") == kind)
            }
        }
        for bad in v["rejected_names"] as! [String] { #expect(GamepadKind(named: bad) == nil, "\(bad)") }
        for m in v["motion_reaches"] as! [[String: Any]] {
            let got = GamepadKind.motionReaches(declared: GamepadKind(named: m["declared"] as! String)!,
                                                asked: GamepadKind(named: m["asked"] as! String)!,
                                                resolved: GamepadKind(named: m["resolved"] as! String)!)
            #expect(got == m["want"] as! Bool, "\(m["why"] as! String)")
        }
    }

    /// gamepad-button-vectors.json: an xpad-style pad's evdev codes reach the listed wire bits
    /// (the file lists the codes the Linux virtual pad emits, xpad's letters).
    @Test func gamepadButtons() throws {
        let buttons = try UpstreamVectors.json("gamepad-button-vectors.json")["buttons"] as! [[String: Any]]
        let layout = GamepadLayout.forDevice(vendor: 0x045E)
        var checked = 0
        for b in buttons {
            guard let code = b["code"] as? Int else { continue }
            #expect(layout.button(forKey: UInt16(code))?.rawValue == UInt32(b["bit"] as! Int), "\(b["name"]!)")
            checked += 1
        }
        #expect(checked == 15)
    }

    /// scroll-vectors.json "wheel detents" / "hi-res wheel quarters": the mapper's wheel path
    /// (v120 into the accumulator) gives the listed wire deltas.
    @Test func wheelScroll() throws {
        let cases = try UpstreamVectors.json("scroll-vectors.json")["cases"] as! [[String: Any]]
        let sink = RecordingSink()
        let m = InputMapper(sink: sink)
        m.setPolicy(InputPolicy())
        for c in cases where ["wheel detents", "hi-res wheel quarters"].contains(c["name"] as! String) {
            m.add(device: 1, role: .mouse)
            for step in c["steps"] as! [[String: Any]] {
                let delta = Int32(step["delta"] as! Double)
                if c["name"] as! String == "wheel detents" {
                    m.frame(1, [(EV.rel, EV.relWheel, delta / 120)])
                } else {
                    m.frame(1, [(EV.rel, EV.relWheelHiRes, delta)])
                }
                let wire = step["wire"] as! [String: Any]
                let want = ScrollEvent(source: .wheel, phase: .none, axis: .vertical, delta: Int32(wire["delta"] as! Int)).event
                #expect(sink.take() == [.event(want, reliable: false)])
            }
            m.remove(device: 1)
        }
    }
}
