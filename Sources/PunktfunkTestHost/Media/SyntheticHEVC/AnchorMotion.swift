/// Where the synthetic picture sits at POC `t` (frames since its IDR): a wander of ±2 luma
/// samples per frame in x and in y, as triangle waves with different periods (192 frames in x,
/// 128 in y), so it always moves, never leaves |x| ≤ 48, |y| ≤ 32, and comes back to (0, 0).
///
/// A P picture at POC t predicting from the picture at POC r uses the motion vector
/// `position(t) − position(r)`, so every picture equals its IDR moved by `position(t)`
/// (edges replicated), whichever reference it was predicted from.
enum AnchorMotion {
    static func position(poc t: Int32) -> MotionVector {
        MotionVector(x: 2 * triangle(Int(t), quarter: 24), y: 2 * triangle(Int(t), quarter: 16))
    }

    /// 0 at t = 0, rising by one per step to `quarter`, falling to −`quarter`, rising back;
    /// period 4 × `quarter`.
    private static func triangle(_ t: Int, quarter q: Int) -> Int {
        let phase = ((t % (4 * q)) + 4 * q) % (4 * q)
        if phase <= q { return phase }
        if phase <= 3 * q { return 2 * q - phase }
        return phase - 4 * q
    }
}

/// A displacement in whole luma samples. As a motion vector: the prediction of sample (x, y) is
/// the reference's sample (x + self.x, y + self.y), clamped to the picture.
struct MotionVector: Equatable, Hashable, Sendable {
    var x: Int
    var y: Int
    init(x: Int, y: Int) { self.x = x; self.y = y }
    static func - (a: MotionVector, b: MotionVector) -> MotionVector { MotionVector(x: a.x - b.x, y: a.y - b.y) }
}
