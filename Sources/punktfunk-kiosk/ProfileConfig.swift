import Foundation
import Kiosk
import PunktfunkSession

/// The profile's config, its problems said on stderr.
enum ProfileConfig {
    static var directory: URL? { ConfigDirectory.resolve(environment: ProcessInfo.processInfo.environment) }

    static func load() -> KioskConfig {
        guard let directory else { return KioskConfig() }
        do {
            let config = try ConfigFile.load(from: directory)
            for problem in config.problems { note(problem.description) }
            return config
        } catch {
            note("cannot read \(directory.path)/config: \(error)")
            return KioskConfig()
        }
    }
}
