import Display
import Foundation
import Glibc

/// The VM harness's screendump handshake as a `GlassCheckpoint`: once picture n is on glass it
/// prints `@@SCREENDUMP frame-<n>` on stdout and holds the present loop until a line arrives on
/// stdin (or stdin ends). The harness takes a QMP screendump (or a KMS state dump) in between.
/// `--stats-dump PREFIX` also writes the overlay image on glass as `PREFIX-frame-<n>.argb`.
public final class ScreendumpHandshake: GlassCheckpoint {
    public let pictures: Set<Int>
    private let presenter: Presenter
    private let overlayDumpPrefix: String?

    public init(pictures: Set<Int>, presenter: Presenter, overlayDumpPrefix: String?) {
        self.pictures = pictures
        self.presenter = presenter
        self.overlayDumpPrefix = overlayDumpPrefix
    }

    public func reached(_ n: Int) -> Int32 {
        if let overlayDumpPrefix { dumpOverlay(prefix: overlayDumpPrefix, frame: n) }
        // Where this picture lies on the CRTC (the harness judges the dump there).
        if let p = presenter.placementOnGlass {
            var line = "{\"screendump\":{\"frame\":\(n),\"picture\":\"\(p.picture)\",\"place\":\"\(p.place)\",\"scaler\":\"\(p.route.name)\""
            if case .oneToOne(let why) = p.route { line += ",\"why\":\(JSON.string(why))" }
            FileHandle.standardError.write(Data((line + "}}\n").utf8))
        }
        print("@@SCREENDUMP frame-\(n)")
        fflush(nil)  // all C streams, stdout included (print writes through it)
        return 0
    }

    /// Reads one byte of the acknowledgement line: the pause ends at its newline or at EOF.
    public func descriptorReadable() -> Bool {
        var byte: UInt8 = 0
        let r = read(0, &byte, 1)
        return r <= 0 || byte == UInt8(ascii: "\n")
    }

    /// The overlay image on glass as `PREFIX-frame-<n>.argb` (`OverlayImage.dump` format); a
    /// missing image or a failed write is said on stderr.
    private func dumpOverlay(prefix: String, frame n: Int) {
        let path = "\(prefix)-frame-\(n).argb"
        guard let image = presenter.overlayOnGlass else {
            FileHandle.standardError.write(Data("punktfunk-kiosk: no overlay on glass at frame \(n)\n".utf8))
            return
        }
        if !image.dump(to: path) { FileHandle.standardError.write(Data("punktfunk-kiosk: cannot write \(path)\n".utf8)) }
    }

    /// `--screendump-at 5,20`: picture numbers (display order, first pass). Nil when the text is
    /// not a comma-separated list of non-negative integers.
    public static func parse(_ text: String?) -> Set<Int>? {
        guard let text else { return [] }
        var out = Set<Int>()
        for part in text.split(separator: ",") {
            guard let n = Int(part.trimmingCharacters(in: .whitespaces)), n >= 0 else { return nil }
            out.insert(n)
        }
        return out
    }
}
