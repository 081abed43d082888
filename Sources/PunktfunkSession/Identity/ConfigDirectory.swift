import Foundation

/// Where the kiosk keeps its identity, known hosts and settings (issue 3, item 5):
/// `$XDG_CONFIG_HOME/punktfunk-kiosk/`, else `$HOME/.config/punktfunk-kiosk/`.
public enum ConfigDirectory {
    public static let applicationName = "punktfunk-kiosk"

    /// Resolves the directory from `environment` (pass `ProcessInfo.processInfo.environment`).
    /// An empty or relative XDG_CONFIG_HOME is ignored, as the XDG Base Directory spec says.
    /// - Returns: nil if neither XDG_CONFIG_HOME nor HOME is usable.
    public static func resolve(environment: [String: String]) -> URL? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent(applicationName, isDirectory: true)
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".config", isDirectory: true)
                .appendingPathComponent(applicationName, isDirectory: true)
        }
        return nil
    }
}
