import Foundation

/// The display section under a Wayland compositor: who it is, whether the kiosk's required
/// globals are there (else the backend does not start), each missing optional protocol with what
/// the backend does without it (its own notice), and whether a decoded surface would be taken as
/// a dma-buf.
extension DisplayJudge {
    static func wayland(_ w: WaylandObservation, vaExports: [VAExport], vaUnavailable: String?) -> [Finding] {
        if let error = w.error {
            return [Finding("compositor", .notAvailable,
                            "WAYLAND_DISPLAY=\(w.display) is set, but the probe could not talk to the compositor: \(error).",
                            action: "Run the check inside the compositor's session (or unset WAYLAND_DISPLAY on a text console: the kiosk then drives KMS).")]
        }
        let who = compositorName(w)
        var facts = [Fact("compositor", who + " — " + w.nameSource),
                     Fact("globals", w.globals.map { "\($0.interface) v\($0.version)" }.joined(separator: ", "))]
        facts += outputFacts(w) + seatFacts(w)
        facts.append(Fact("wl_shm formats", w.shmFormats.isEmpty ? "none listed" : w.shmFormats.map(shmFormatName).joined(separator: " ")))
        if let clock = w.presentationClockID {
            let name = clockName(clock)
            facts.append(Fact("presentation clock", clock == 1 ? name : "\(name) (mapped onto MONOTONIC, re-sampled about once a second)"))
        }
        var out: [Finding] = []
        let missing = w.missing
        let missingRequired = missing.filter(\.required)
        if !missingRequired.isEmpty {
            out.append(Finding("compositor", .failed,
                               "\(who) (\(w.display)) lacks what the Wayland backend needs: \(missingRequired.map(\.without).joined(separator: "; ")).",
                               action: "Run the kiosk from a text console, where it drives KMS itself, or under a compositor with xdg-shell (weston, sway, cage, mutter, kwin).",
                               facts: facts))
            return out
        }
        let required = w.kioskProtocols.filter(\.required).map(bound(w)).joined(separator: ", ")
        out.append(Finding("compositor", .ok, "\(who) (\(w.display)) offers what the Wayland backend needs: \(required).",
                           facts: facts))
        let present = w.kioskProtocols.filter { !$0.required && !missing.contains($0) }
        let presentFact = Fact("bound", present.isEmpty ? "none" : present.map(bound(w)).joined(separator: ", "))
        if missing.isEmpty {
            out.append(Finding("protocols", .ok, "every optional protocol the kiosk uses is offered.", facts: [presentFact]))
        }
        for p in missing {
            let advertised = w.version(of: p.interface).map { " (only v\($0), needs v\(p.minimum))" } ?? ""
            out.append(Finding(p.interface, .degraded, "\(p.without)\(advertised).",
                               action: "A compositor that offers \(p.interface) avoids this; the kiosk works without it.",
                               facts: p == missing.first ? [presentFact] : []))
        }
        out += dmabuf(w, who: who, vaExports: vaExports, vaUnavailable: vaUnavailable)
        return out
    }

    /// "weston" or "an unnamed compositor".
    static func compositorName(_ w: WaylandObservation) -> String { w.name ?? "an unnamed compositor" }

    /// `wl_compositor v4` (bound) or `xdg_wm_base v3 (of 6)` when the compositor offers more.
    static func bound(_ w: WaylandObservation) -> (WaylandObservation.KioskProtocol) -> String {
        { p in
            let advertised = w.version(of: p.interface) ?? 0
            let v = min(advertised, p.version)
            return advertised > v ? "\(p.interface) v\(v) (of v\(advertised))" : "\(p.interface) v\(v)"
        }
    }

    static func outputFacts(_ w: WaylandObservation) -> [Fact] {
        if w.outputs.isEmpty { return [Fact("outputs", "none")] }
        return w.outputs.map { o in
            let current = o.current.map { describe($0) } ?? "no current mode"
            let others = o.modes.filter { $0 != o.current }.prefix(6).map(describe)
            let more = others.isEmpty ? "" : "; also " + others.joined(separator: ", ") + (o.modes.count - 1 > 6 ? ", …" : "")
            return Fact("output \(o.name)", "\(current), scale \(o.scale)\(more)")
        }
    }

    static func seatFacts(_ w: WaylandObservation) -> [Fact] {
        if w.seats.isEmpty { return [Fact("seats", "none (no wl_seat)")] }
        return w.seats.map { s in
            var caps: [String] = []
            if s.capabilities & 2 != 0 { caps.append("keyboard") }
            if s.capabilities & 1 != 0 { caps.append("pointer") }
            if s.capabilities & 4 != 0 { caps.append("touch") }
            return Fact("seat \(s.name.isEmpty ? "(unnamed)" : s.name)", caps.isEmpty ? "no devices" : caps.joined(separator: ", "))
        }
    }

    // MARK: dma-buf

    static let nv12: UInt32 = fourcc("NV12")
    static let p010: UInt32 = fourcc("P010")

    static func dmabuf(_ w: WaylandObservation, who: String, vaExports: [VAExport], vaUnavailable: String?) -> [Finding] {
        guard let feedback = w.feedback else {
            if let e = w.feedbackError {
                return [Finding("dma-buf import", .degraded,
                                "\(who)'s linux-dmabuf feedback could not be read (\(e)): VA-API pictures are read back and shown through wl_shm.",
                                action: "Report this with the whole output.")]
            }
            return [Finding("dma-buf import", .notAvailable,
                            "no decoded surface can be imported: \(who) offers no linux-dmabuf v4 feedback.",
                            informational: true)]
        }
        var facts = [Fact("main device", deviceName(feedback.mainDevice))]
        for (i, t) in feedback.tranches.enumerated() {
            facts.append(Fact("tranche \(i) (\(t.scanout ? "scan-out" : "composited"), device \(deviceName(t.targetDevice)))",
                              trancheSummary(t)))
        }
        guard !vaExports.isEmpty else {
            let video = feedback.tranches.flatMap(\.pairs).filter { $0.fourcc == nv12 || $0.fourcc == p010 }
            let listing = video.isEmpty ? "it lists no NV12 or P010" : "it lists NV12/P010"
            return [Finding("dma-buf import", .notAvailable,
                            "not known whether a decoded surface is accepted (\(listing)): \(vaUnavailable ?? "no VA-API surface was exported").",
                            action: "Run the check on a box with VA-API decode to compare its surfaces against the compositor's feedback.",
                            facts: facts)]
        }
        var out: [Finding] = []
        var seen = Set<String>()
        for e in vaExports where seen.insert(e.format).inserted {
            let subject = "\(e.format) dma-buf"
            var f = facts
            f.append(Fact("exported by", "\(e.node)\(e.device.map { " (device \(deviceName($0)))" } ?? ""): \(e.format) with modifier \(modifierName(e.modifier))"))
            guard let index = feedback.tranches.firstIndex(where: { $0.pairs.contains(.init(fourcc: e.fourcc, modifier: e.modifier)) }) else {
                out.append(Finding(subject, .degraded,
                                   "\(who) does not list \(e.format) with modifier \(modifierName(e.modifier)), which \(e.node) exports: VA-API pictures are read back and shown through wl_shm.",
                                   action: "Expect higher CPU load and latency; a compositor (or GPU driver) that imports \(e.format) avoids the copy.",
                                   facts: f))
                continue
            }
            let tranche = feedback.tranches[index]
            let scanoutIndex = feedback.tranches.firstIndex { $0.scanout && $0.pairs.contains(.init(fourcc: e.fourcc, modifier: e.modifier)) }
            if let device = e.device, device != tranche.targetDevice, device != feedback.mainDevice {
                f.append(Fact("device", "the compositor renders on \(deviceName(feedback.mainDevice)), not on the decoding device: the import may be refused"))
            }
            let route = scanoutIndex.map { "in scan-out tranche \($0): it may go on a plane directly" }
                ?? "in tranche \(index) (composited, not scan-out)"
            out.append(Finding(subject, .ok,
                               "\(who) lists \(e.format) with modifier \(modifierName(e.modifier)) (as \(e.node) exports it) \(route).",
                               facts: f))
        }
        return out
    }

    /// `NV12: linear 0x…; P010: linear; 23 other formats`.
    static func trancheSummary(_ t: WaylandObservation.Tranche) -> String {
        var parts: [String] = []
        for format in [nv12, p010] {
            let mods = t.pairs.filter { $0.fourcc == format }.map { modifierName($0.modifier) }
            if !mods.isEmpty { parts.append("\(fourccName(format)): \(mods.joined(separator: " "))") }
        }
        let others = Set(t.pairs.map(\.fourcc)).subtracting([nv12, p010])
        if !others.isEmpty {
            let names = others.sorted().prefix(8).map(fourccName).joined(separator: " ")
            parts.append("\(others.count) other format\(others.count == 1 ? "" : "s") (\(names)\(others.count > 8 ? " …" : ""))")
        }
        return parts.isEmpty ? "no formats" : parts.joined(separator: "; ")
    }

    static func fourcc(_ s: String) -> UInt32 {
        s.utf8.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    static func fourccName(_ code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (8 * $0)) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { return "0x" + String(code, radix: 16) }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// wl_shm's two special codes, else the fourcc.
    static func shmFormatName(_ code: UInt32) -> String {
        switch code {
        case 0: "ARGB8888"
        case 1: "XRGB8888"
        default: fourccName(code)
        }
    }

    static func clockName(_ id: Int32) -> String {
        switch id {
        case 0: "REALTIME"
        case 1: "MONOTONIC"
        case 4: "MONOTONIC_RAW"
        case 7: "BOOTTIME"
        default: "clock \(id)"
        }
    }

    /// A dev_t as major:minor (glibc's encoding).
    static func deviceName(_ dev: UInt64) -> String {
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        return "\(major):\(minor)"
    }
}
