/// The kiosk's version as the About page shows it (the .deb's version starts with it).
public enum KioskVersion {
    public static let text = "0.1.0"
}
