/// How pictures reach an X server's window, from what the server offers. Pure: the extension
/// versions are passed in (the screen reads them at connect; `check` reads them without a window).
///
/// Every path ends in a Present `PresentPixmap` of an XRGB8888 pixmap; only where its pixels come
/// from differs:
/// - MIT-SHM with fd passing (1.2): the CPU conversion writes into shared memory the server reads.
/// - without it (a server on another machine): the conversion's rows go over the wire (`PutImage`).
///
/// GPU pictures are read back and converted like software ones. DRI3 (`PixmapFromBuffers`) makes
/// pixmaps of RGB dma-bufs only, and a VA-API surface is Y′CbCr (NV12/P010), which no X pixmap
/// holds: zero copy under X11 would need a VA-API video-processing step to RGB first, which the
/// kiosk does not have. Whether the server offers DRI3 is reported, not used.
public struct X11PicturePath: Sendable, Equatable {
    public enum Pixels: String, Sendable, Equatable {
        case sharedMemory = "mit-shm"
        case putImage = "put-image"
    }
    /// Where CPU pictures and the shell's canvas go.
    public var pixels: Pixels
    /// Whether the server offers DRI3 ≥ 1.2 (pixmaps from dma-bufs with modifiers).
    public var dri3Offered: Bool
    /// What DRI3 there is, in words.
    public var dri3Note: String
    /// Why not MIT-SHM (nil when it is used).
    public var shmWhy: String?

    /// - Parameters:
    ///   - dri3: the server's DRI3 version (nil: not offered).
    ///   - shm: MIT-SHM's version (nil: not offered); fd passing needs 1.2.
    ///   - shmAttachWorks: whether attaching a segment by fd succeeded (false for a server on another machine).
    public static func decide(dri3: (major: UInt32, minor: UInt32)?, shm: (major: UInt32, minor: UInt32)?,
                              shmAttachWorks: Bool) -> X11PicturePath {
        let dri3Note: String
        var offered = false
        if let v = dri3 {
            offered = (v.major, v.minor) >= (1, 2)
            dri3Note = offered ? "the server offers DRI3 \(v.major).\(v.minor), unused: VA-API surfaces are NV12/P010, which no X pixmap holds"
                : "the server's DRI3 is \(v.major).\(v.minor) (dma-bufs with modifiers need 1.2)"
        } else {
            dri3Note = "the X server offers no DRI3 (no GPU behind it, or a virtual server such as Xvfb)"
        }
        var shmWhy: String?
        if let v = shm {
            if (v.major, v.minor) < (1, 2) { shmWhy = "the server's MIT-SHM is \(v.major).\(v.minor); segments by fd need 1.2" }
            else if !shmAttachWorks { shmWhy = "the server could not attach our shared memory (it runs on another machine)" }
        } else {
            shmWhy = "the X server offers no MIT-SHM"
        }
        return X11PicturePath(pixels: shmWhy == nil ? .sharedMemory : .putImage, dri3Offered: offered, dri3Note: dri3Note,
                              shmWhy: shmWhy)
    }

    /// One line for the start-up report and `check`.
    public var summary: String {
        let cpu = pixels == .sharedMemory ? "pictures and the shell through MIT-SHM pixmaps"
            : "pictures and the shell sent with PutImage (\(shmWhy ?? ""))"
        return "\(cpu), presented with Present; VA-API pictures read back and converted on the CPU — \(dri3Note)"
    }
}
