import PunktfunkSession

/// The stream `--demo` shows: 1 s of 640x360 60 fps HEVC (libx265, testsrc2 pattern, IDR at
/// frame 0, parameter sets repeated), embedded in the binary so a kiosk box needs no files.
public enum DemoStream {
    public static let accessUnits: [[UInt8]] = AnnexBSplitter.accessUnits(PackageResources.demo_hevc)
    public static let keyframeIndices: [Int] = AnnexBSplitter.keyframeIndices(accessUnits)
    public static let fps = 60.0
}
