import Display
import Foundation

extension Presenter {
    /// Once the overlay is routed, one line on stderr: `{"overlay":"plane 40"}`, `"composited"` or
    /// `"none (reason)"` (the VM harness reads it), plus a sentence when it cannot be shown.
    func reportOverlay() {
        FileHandle.standardError.write(Data("{\"overlay\":\(JSON.string(overlayRouteName))}\n".utf8))
        if overlayOnGlass == nil, overlayRouteName.hasPrefix("none") {
            FileHandle.standardError.write(Data("punktfunk-kiosk: the stats overlay is not shown: \(overlayRouteName)\n".utf8))
        }
    }

    /// `--stats-dump`: the overlay image on glass as `PREFIX-frame-<n>.argb` (`OverlayImage.dump`
    /// format); a missing image or a failed write is said on stderr.
    func dumpOverlay(prefix: String, frame n: Int) {
        let path = "\(prefix)-frame-\(n).argb"
        guard let image = overlayOnGlass else {
            FileHandle.standardError.write(Data("punktfunk-kiosk: no overlay on glass at frame \(n)\n".utf8))
            return
        }
        if !image.dump(to: path) { FileHandle.standardError.write(Data("punktfunk-kiosk: cannot write \(path)\n".utf8)) }
    }
}
