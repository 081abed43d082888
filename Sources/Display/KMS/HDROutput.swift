internal import CDRM
import VideoFrames
#if canImport(Glibc)
import Glibc
#endif

/// What the connector is told about the picture's signal.
public enum OutputSignal: Sendable, Equatable, CustomStringConvertible {
    /// HDR10: `HDR_OUTPUT_METADATA` = static metadata (EOTF ST 2084), `Colorspace` = the named enum.
    case hdr10(colorspace: String)
    /// No HDR signalling (`HDR_OUTPUT_METADATA` 0, `Colorspace` "Default"); PQ content is shown
    /// as it is, without tone mapping. `reason` says why, for the report.
    case sdr(reason: String)

    public var isHDR: Bool { if case .hdr10 = self { true } else { false } }

    public var description: String {
        switch self {
        case .hdr10(let cs): "HDR10 (\(cs))"
        case .sdr(let why): "SDR (\(why))"
        }
    }
}

/// The presenter's HDR output state for one connector: which signal the current layout gets, the
/// newest static metadata, and the `HDR_OUTPUT_METADATA` blob the modeset requests carry.
///
/// Invariants: `blob` (when not 0) holds `encode(blobMetadata)` and is ours to destroy; a request
/// built by `addModesetState` sets both properties, either to HDR10 or to 0 / "Default". Restoring
/// them on exit is `SavedState`'s job (it always writes 0 / "Default" back).
struct HDROutput {
    let connector: UInt32
    let metadataProperty: PropertyInfo?
    let colorspaceProperty: PropertyInfo?
    /// The signal of the current layout.
    private(set) var signal: OutputSignal = .sdr(reason: "no frame yet")
    /// Newest metadata known (frame side data or the host's datagram); stays until replaced.
    private(set) var metadata: HDRStaticMetadata?
    private var blob: UInt32 = 0
    private var blobMetadata: HDRStaticMetadata?

    /// `Colorspace` enums for BT.2020 / PQ, best first. The display engine converts a YCbCr plane
    /// to RGB itself (the plane's COLOR_ENCODING says how), so the link carries RGB for NV12/P010
    /// planes as well as XRGB ones; the YCC name is only a fallback for a driver without the RGB one.
    static let colorspaceNames = ["BT2020_RGB", "BT2020_YCC"]

    init(connector: UInt32, properties: ObjectProperties) {
        self.connector = connector
        metadataProperty = properties["HDR_OUTPUT_METADATA"]
        colorspaceProperty = properties["Colorspace"]
    }

    /// HDR10 for BT.2020 primaries (9) with the PQ transfer (16), when the connector offers a
    /// writable `HDR_OUTPUT_METADATA` blob and a `Colorspace` with a BT.2020 enum; SDR otherwise.
    static func decide(colour: FrameColour, metadataProperty: PropertyInfo?, colorspaceProperty: PropertyInfo?) -> OutputSignal {
        guard colour.primaries == 9, colour.transfer == 16 else {
            return .sdr(reason: "stream colour primaries \(colour.primaries) transfer \(colour.transfer), not BT.2020/PQ")
        }
        guard let mp = metadataProperty, mp.isBlob, !mp.immutable else {
            return .sdr(reason: "connector has no HDR_OUTPUT_METADATA")
        }
        guard let cp = colorspaceProperty, !cp.immutable, cp.enums["Default"] != nil,
              let name = colorspaceNames.first(where: { cp.enums[$0] != nil }) else {
            return .sdr(reason: "connector has no Colorspace with BT2020")
        }
        return .hdr10(colorspace: name)
    }

    /// Chooses the signal for a layout's colour. - Returns: whether it changed.
    mutating func select(for colour: FrameColour) -> Bool {
        let s = Self.decide(colour: colour, metadataProperty: metadataProperty, colorspaceProperty: colorspaceProperty)
        defer { signal = s }
        return s != signal
    }

    /// The driver refused HDR10 for this layout (TEST_ONLY): SDR until the next `select`.
    mutating func refuse(because error: KMSError) {
        signal = .sdr(reason: "the driver refused HDR10: \(error)")
    }

    /// Takes newer metadata. - Returns: whether the signal on glass must change (HDR10 is shown
    /// with other metadata), i.e. the next commit must carry the modeset state again.
    mutating func update(metadata m: HDRStaticMetadata) -> Bool {
        metadata = m
        return signal.isHDR && blobMetadata != nil && blobMetadata != m
    }

    /// Adds `HDR_OUTPUT_METADATA` and `Colorspace` for the current signal to a modeset request,
    /// creating the metadata blob first when the metadata changed (the old blob is destroyed; a
    /// committed state keeps its own reference).
    mutating func addModesetState(to req: inout AtomicRequest, device: DRMDevice) throws(KMSError) {
        if case .hdr10(let name) = signal, let mp = metadataProperty, let cp = colorspaceProperty, let value = cp.enums[name] {
            let m = metadata ?? .unknown
            if blob == 0 || blobMetadata != m {
                let created = try device.createBlob(HDROutputMetadataBlob.encode(m))
                if blob != 0 { device.destroyBlob(blob) }
                blob = created
                blobMetadata = m
            }
            req.add(connector, mp, UInt64(blob))
            req.add(connector, cp, value)
            return
        }
        addSignalOff(to: &req)
    }

    /// Adds `HDR_OUTPUT_METADATA` 0 and `Colorspace` "Default" (each when the connector has it).
    func addSignalOff(to req: inout AtomicRequest) {
        if let mp = metadataProperty { req.add(connector, mp, 0) }
        if let cp = colorspaceProperty, let d = cp.enums["Default"] { req.add(connector, cp, d) }
    }

    /// Destroys our blob (after the saved state went back).
    mutating func destroyBlob(device: DRMDevice) {
        if blob != 0 { device.destroyBlob(blob) }
        blob = 0
        blobMetadata = nil
    }
}

extension DRMDevice {
    /// A property blob holding `bytes`. - Returns: its id (ours until `destroyBlob`).
    func createBlob(_ bytes: [UInt8]) throws(KMSError) -> UInt32 {
        var id: UInt32 = 0
        let rc = bytes.withUnsafeBytes { drmModeCreatePropertyBlob(fd, $0.baseAddress, $0.count, &id) }
        if rc != 0 { throw .ioctl("drmModeCreatePropertyBlob", errno: -rc > 0 ? -rc : errno) }
        return id
    }
}
