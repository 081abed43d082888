import Foundation

/// Power off and restart through systemd-logind, asked over the system bus with `busctl` (part
/// of systemd, which the .deb depends on): one short-lived process per question, which keeps
/// D-Bus out of the process and a missing bus (containers, CI, the VM) a plain failure.
///
/// Only the answer "yes" to CanPowerOff / CanReboot counts as allowed: "challenge" means polkit
/// wants someone to authenticate, which a kiosk cannot do (docs/kiosk.md has the polkit rule that
/// makes it "yes" for the `kiosk` user). Calls never ask for interactive authorization.
struct Logind: Sendable {
    /// The `busctl` to run.
    var busctl = "/usr/bin/busctl"
    /// Extra environment for `busctl` (tests point DBUS_SYSTEM_BUS_ADDRESS somewhere).
    var environment: [String: String] = [:]
    /// Seconds a call may take.
    var timeoutSeconds = 5

    /// What logind allows this user now.
    func ability() -> PowerAbility {
        let off = ask("CanPowerOff")
        let reboot = ask("CanReboot")
        var why: [String] = []
        switch (off, reboot) {
        case (.failure(let reason), _), (_, .failure(let reason)):
            return PowerAbility(canPowerOff: false, canRestart: false,
                                sentence: "Power off and restart are not offered: logind could not be asked (\(reason)).")
        case (.success(let a), .success(let b)):
            if a != "yes" { why.append("power off: \(Self.meaning(a))") }
            if b != "yes" { why.append("restart: \(Self.meaning(b))") }
            return PowerAbility(canPowerOff: a == "yes", canRestart: b == "yes",
                                sentence: why.isEmpty ? nil : "logind does not allow it here — \(why.joined(separator: "; ")).")
        }
    }

    /// Powers the box off (`PowerOff(false)`). - Returns: why it failed, or nil.
    func powerOff() -> String? { act("PowerOff") }

    /// Restarts the box (`Reboot(false)`). - Returns: why it failed, or nil.
    func restart() -> String? { act("Reboot") }

    static func meaning(_ answer: String) -> String {
        switch answer {
        case "challenge": "it would ask for a password (add the polkit rule from docs/kiosk.md)"
        case "no": "not permitted for this user"
        case "na": "not supported on this machine"
        default: "logind answered \"\(answer)\""
        }
    }

    private enum Answer { case success(String), failure(String) }

    private func ask(_ method: String) -> Answer {
        switch call(method, []) {
        case .failure(let reason): return .failure(reason)
        case .success(let out):
            // `s "yes"`
            let parts = out.split(separator: "\"")
            guard out.hasPrefix("s "), parts.count >= 2 else { return .failure("\(method) answered \"\(out)\"") }
            return .success(String(parts[1]))
        }
    }

    private func act(_ method: String) -> String? {
        switch call(method, ["b", "false"]) {
        case .failure(let reason): "logind refused \(method): \(reason)"
        case .success: nil
        }
    }

    private func call(_ method: String, _ arguments: [String]) -> Answer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: busctl)
        process.arguments = ["--system", "--timeout=\(timeoutSeconds)", "--allow-interactive-authorization=no", "call",
                             "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", method] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            return .failure("\(busctl) cannot run: \(error.localizedDescription)")
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: stdout, as: UTF8.self).trimmingWhitespace()
        guard process.terminationStatus == 0 else {
            let reason = String(decoding: stderr, as: UTF8.self).trimmingWhitespace()
            return .failure(reason.isEmpty ? "busctl ended with status \(process.terminationStatus)" : reason)
        }
        return .success(text)
    }
}
