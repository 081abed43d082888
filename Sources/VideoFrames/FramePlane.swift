/// One CPU plane: `height` rows of `stride` bytes; the first `rowBytes` of each row are samples.
public struct FramePlane: Sendable, Equatable {
    /// Row-major bytes, `bytes.count >= stride * (height - 1) + rowBytes`.
    public var bytes: PlaneBytes
    /// Bytes from the start of one row to the next (≥ `rowBytes`).
    public var stride: Int
    /// Bytes of samples per row.
    public var rowBytes: Int
    /// Rows.
    public var height: Int

    public init(bytes: [UInt8], stride: Int, rowBytes: Int, height: Int) {
        self.init(bytes: PlaneBytes(bytes), stride: stride, rowBytes: rowBytes, height: height)
    }

    public init(bytes: PlaneBytes, stride: Int, rowBytes: Int, height: Int) {
        self.bytes = bytes
        self.stride = stride
        self.rowBytes = rowBytes
        self.height = height
    }
}
