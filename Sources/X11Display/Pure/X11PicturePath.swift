/// How pictures reach an X server's window, from what the server offers. Pure: the extension
/// versions are passed in (the screen reads them at connect; `check` reads them without a window).
///
/// Every path ends in a Present `PresentPixmap`; only where the pixmap's pixels come from differs:
/// - DRI3 ≥ 1.2 (`PixmapFromBuffers`, modifiers): a decoder's RGB dma-buf becomes a pixmap with no
///   copy. A VA-API surface is Y′CbCr (NV12/P010), which no X pixmap is: such pictures are read back
///   and converted like software ones (the DRI3 path is ready for an RGB export, not used by one yet).
/// - MIT-SHM with fd passing (1.2): the CPU conversion writes into shared memory the server reads.
/// - neither (a server on another machine): the conversion's rows go over the wire (`PutImage`).
public struct X11PicturePath: Sendable, Equatable {
    public enum Pixels: String, Sendable, Equatable {
        case sharedMemory = "mit-shm"
        case putImage = "put-image"
    }
    /// Where CPU pictures and the shell's canvas go.
    public var pixels: Pixels
    /// Whether RGB dma-bufs can become pixmaps (DRI3 ≥ 1.2).
    public var dmabufPixmaps: Bool
    /// Why not DRI3 (nil when it is used).
    public var dri3Why: String?
    /// Why not MIT-SHM (nil when it is used).
    public var shmWhy: String?

    /// - Parameters:
    ///   - dri3: the server's DRI3 version (nil: not offered).
    ///   - shm: MIT-SHM's version (nil: not offered); fd passing needs 1.2.
    ///   - shmAttachWorks: whether attaching a segment by fd succeeded (false for a server on another machine).
    public static func decide(dri3: (major: UInt32, minor: UInt32)?, shm: (major: UInt32, minor: UInt32)?,
                              shmAttachWorks: Bool) -> X11PicturePath {
        var dri3Why: String?
        if let v = dri3 {
            if (v.major, v.minor) < (1, 2) { dri3Why = "the server's DRI3 is \(v.major).\(v.minor); pixmaps from dma-bufs with modifiers need 1.2" }
        } else {
            dri3Why = "the X server offers no DRI3 (no GPU behind it, or a virtual server such as Xvfb)"
        }
        var shmWhy: String?
        if let v = shm {
            if (v.major, v.minor) < (1, 2) { shmWhy = "the server's MIT-SHM is \(v.major).\(v.minor); segments by fd need 1.2" }
            else if !shmAttachWorks { shmWhy = "the server could not attach our shared memory (it runs on another machine)" }
        } else {
            shmWhy = "the X server offers no MIT-SHM"
        }
        return X11PicturePath(pixels: shmWhy == nil ? .sharedMemory : .putImage, dmabufPixmaps: dri3Why == nil,
                              dri3Why: dri3Why, shmWhy: shmWhy)
    }

    /// One line for the start-up report and `check`.
    public var summary: String {
        let cpu = pixels == .sharedMemory ? "CPU pictures and the shell through MIT-SHM pixmaps"
            : "CPU pictures and the shell sent with PutImage (\(shmWhy ?? ""))"
        let gpu = dmabufPixmaps ? "RGB dma-bufs as DRI3 pixmaps; VA-API surfaces (NV12/P010) read back"
            : "no dma-buf pixmaps: \(dri3Why ?? ""); VA-API surfaces read back"
        return "\(cpu); \(gpu); all presented with Present"
    }
}
