/// A pause at chosen pictures once they are on glass, for a test harness that inspects the screen
/// (a QMP screendump, a KMS state dump). The product never installs one.
///
/// The present loop only polls `descriptor` beside its signal fd; what the descriptor is and how
/// its input is read is the checkpoint's business, so the product's loop never reads stdin.
/// While paused no frame is produced or committed; quit signals still end the loop, VT signals
/// wait until the pause is over.
public protocol GlassCheckpoint: AnyObject {
    /// First-pass picture indices to pause at.
    var pictures: Set<Int> { get }
    /// Picture `n` (first-pass index) is on glass: announce it.
    /// - Returns: the descriptor whose readability may end the pause.
    func reached(_ n: Int) -> Int32
    /// The descriptor is readable (or hung up). - Returns: true when the pause is over.
    func descriptorReadable() -> Bool
}
