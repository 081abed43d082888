import VideoFrames

/// A CAPTURE format the rung can hand to the display, and how its buffers become a two-plane
/// NV12/P010 dma-buf description.
struct CaptureFormat: Sendable, Equatable {
    /// The V4L2 pixel format.
    var v4l2: UInt32
    var pixelFormat: DecodedPixelFormat
    /// Luma and chroma in separate buffers (NV12M) rather than one.
    var separatePlanes: Bool
    /// The Raspberry Pi's 128-byte column layout (NC12): chroma follows luma inside each column.
    var columns: Bool

    /// Formats in preference order: linear first (every display path takes them), then the
    /// Pi's columns for 8-bit. 10-bit columns (NC30) are not listed: the display has no P030
    /// path, so such a stream decodes in software.
    static let known: [CaptureFormat] = [
        CaptureFormat(v4l2: V4L2FourCC.nv12, pixelFormat: .nv12, separatePlanes: false, columns: false),
        CaptureFormat(v4l2: V4L2FourCC.nv12m, pixelFormat: .nv12, separatePlanes: true, columns: false),
        CaptureFormat(v4l2: V4L2FourCC.p010, pixelFormat: .p010, separatePlanes: false, columns: false),
        CaptureFormat(v4l2: V4L2FourCC.nv12Col128, pixelFormat: .nv12, separatePlanes: false, columns: true),
    ]

    /// The preferred format among `offered` for `bitDepth` (8: NV12 layouts, 9…10: P010).
    static func choose(_ offered: [UInt32], bitDepth: Int) -> CaptureFormat? {
        let wanted: DecodedPixelFormat = bitDepth > 8 ? .p010 : .nv12
        return known.first { $0.pixelFormat == wanted && offered.contains($0.v4l2) }
    }

    /// The DRM fourcc of the whole picture (NV12 or P010, the same characters as V4L2's).
    var drmFourcc: UInt32 { pixelFormat == .nv12 ? V4L2FourCC.nv12 : V4L2FourCC.p010 }

    /// DRM layer formats of the luma and chroma planes (R8/GR88, R16/GR1616), as VA's
    /// SEPARATE_LAYERS export names them.
    var planeDRMFormats: (UInt32, UInt32) {
        pixelFormat == .nv12 ? (V4L2FourCC.code("R8  "), V4L2FourCC.code("GR88"))
                             : (V4L2FourCC.code("R16 "), V4L2FourCC.code("GR32"))
    }

    /// DRM_FORMAT_MOD_BROADCOM_SAND128_COL_HEIGHT(h): vendor 0x07, type 4, column height in
    /// the parameter bits 8…55 (libdrm's drm_fourcc.h).
    static func sand128Modifier(columnHeight: UInt32) -> UInt64 {
        (0x07 << 56) | (UInt64(columnHeight) << 8) | 4
    }

    /// The planes of one CAPTURE buffer as the display takes them, from the negotiated format.
    /// - Parameters:
    ///   - bytesPerLine, sizes: per V4L2 plane (one entry, or two for separate planes).
    ///   - height: the format's height in lines (the buffer's, possibly aligned above the coded size).
    /// - Returns: per display plane (luma, chroma): the dma-buf object index, offset and pitch, and the
    ///   modifier of every object.
    func layout(width: Int, height: Int, bytesPerLine: [UInt32], sizes: [UInt32])
        -> (planes: [(object: Int, offset: UInt32, pitch: UInt32)], modifier: UInt64)? {
        guard let pitch = bytesPerLine.first else { return nil }
        if separatePlanes {
            guard bytesPerLine.count >= 2 else { return nil }
            return ([(0, 0, pitch), (1, 0, bytesPerLine[1])], 0)
        }
        if columns {
            // bytesperline is the column height in 128-byte lines; chroma starts after `height`
            // luma lines in every column; the pitch is the row's bytes (drm_fourcc.h).
            let rowBytes = UInt32((width + 127) / 128 * 128)
            return ([(0, 0, rowBytes), (0, UInt32(height) * 128, rowBytes)], Self.sand128Modifier(columnHeight: pitch))
        }
        let chroma = UInt64(pitch) * UInt64(height)
        guard chroma <= UInt64(UInt32.max), let size = sizes.first, chroma < UInt64(size) else { return nil }
        return ([(0, 0, pitch), (0, UInt32(chroma), pitch)], 0)
    }
}
