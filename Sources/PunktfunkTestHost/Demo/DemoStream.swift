import HEVC

/// The stream `--demo` shows: 1 s of 640x360 60 fps HEVC (libx265, testsrc2 pattern, IDR at
/// frame 0, parameter sets repeated), embedded in the binary so a kiosk box needs no files.
public enum DemoStream {
    /// The embedded file's access units, its own bytes (60 of them).
    public static let accessUnits: [[UInt8]] = AccessUnitSplitter.splitPreservingBytes(PackageResources.demo_hevc)
    /// Indices into `accessUnits` of the IRAP access units ([0]).
    public static let keyframeIndices: [Int] = AccessUnitSplitter.keyframeIndices(accessUnits)
    /// Frames per second the stream was made at.
    public static let fps = 60.0
}
