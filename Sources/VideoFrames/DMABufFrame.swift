/// A decoded picture that stays in GPU memory: the DRM PRIME export of a VA surface, ready to
/// become a KMS framebuffer (drmModeAddFB2WithModifiers) without a copy.
///
/// The fds belong to `lease`; they stay open until the lease is released, and the surface is
/// not reused by the decoder before that (the surface-lifetime rule: a surface is rewritten only
/// when it is no reference, not pending display and not on screen). Release the lease once the
/// display no longer scans the buffer out (after the next page flip).
public struct DMABufFrame: Sendable {
    /// One dma-buf object (fd) of the export.
    public struct Object: Sendable, Equatable {
        public var fd: Int32
        /// Bytes.
        public var size: UInt32
        /// DRM format modifier (the same for every object of a frame; validated on export).
        public var modifier: UInt64
        public init(fd: Int32, size: UInt32, modifier: UInt64) { self.fd = fd; self.size = size; self.modifier = modifier }
    }

    /// One plane: a layer of the SEPARATE_LAYERS export (luma R8/R16, chroma GR88/GR1616).
    public struct Plane: Sendable, Equatable {
        /// DRM fourcc of the layer.
        public var drmFormat: UInt32
        /// Index into `objects`.
        public var objectIndex: Int
        /// Bytes from the start of the object.
        public var offset: UInt32
        /// Bytes per row.
        public var pitch: UInt32
        public init(drmFormat: UInt32, objectIndex: Int, offset: UInt32, pitch: UInt32) {
            self.drmFormat = drmFormat; self.objectIndex = objectIndex; self.offset = offset; self.pitch = pitch
        }
    }

    /// What the reader waits for before scanning out.
    public enum Fence: Sendable, Equatable {
        /// sync_file fds (one per object) from DMA_BUF_IOCTL_EXPORT_SYNC_FILE; signalled when
        /// the decode finished. Owned by the lease like the object fds; pass as IN_FENCE_FD.
        case syncFiles([Int32])
        /// The decoder waited (vaSyncSurface): the picture is complete.
        case completed
    }

    public var pts: Int64
    /// Coded size in luma samples (the surface; may exceed the visible window).
    public var width: Int
    public var height: Int
    /// The visible window (SPS conformance window).
    public var crop: FrameCrop
    /// Colour of this picture (its SPS VUI).
    public var colour: FrameColour
    public var pixelFormat: DecodedPixelFormat
    /// DRM fourcc of the whole surface (NV12 or P010), from the descriptor's top level.
    public var fourcc: UInt32
    public var objects: [Object]
    public var planes: [Plane]
    public var fence: Fence
    /// The VASurfaceID and the session generation it belongs to: a key for caching imported
    /// framebuffers (a rebuilt session reuses ids with a new generation).
    public var surface: UInt32
    public var generation: Int
    /// Keeps the surface and the fds alive; `release()` gives both back.
    public var lease: SurfaceLease
    /// The decoder knows the picture is inexact (decoded from a concealed reference, or from a
    /// picture that was); false says nothing went wrong that it could see.
    public var damaged: Bool

    public init(pts: Int64, width: Int, height: Int, crop: FrameCrop, colour: FrameColour, pixelFormat: DecodedPixelFormat,
                fourcc: UInt32, objects: [Object], planes: [Plane], fence: Fence, surface: UInt32, generation: Int,
                lease: SurfaceLease, damaged: Bool = false) {
        self.pts = pts; self.width = width; self.height = height; self.crop = crop; self.colour = colour
        self.pixelFormat = pixelFormat; self.fourcc = fourcc; self.objects = objects; self.planes = planes
        self.fence = fence; self.surface = surface; self.generation = generation; self.lease = lease
        self.damaged = damaged
    }

    /// Visible size in luma samples.
    public var visibleWidth: Int { max(0, width - crop.left - crop.right) }
    public var visibleHeight: Int { max(0, height - crop.top - crop.bottom) }
}
