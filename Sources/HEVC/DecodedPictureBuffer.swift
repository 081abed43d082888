/// The decoded picture buffer as the output order conformance process sees it (H.265 C.5.2):
/// every stored picture with its reference marking (8.3.2), "needed for output" flag and
/// PicLatencyCount, and the bumping process (C.5.2.4).
public struct DecodedPictureBuffer: Sendable, Equatable {
    /// Reference marking of a picture (8.3.2).
    public enum Marking: Sendable, Equatable { case shortTerm, longTerm, unused }

    /// One picture in the DPB.
    public struct Picture: Sendable, Equatable {
        /// PicOrderCntVal.
        public var poc: Int32
        public var surface: SurfaceID
        public var marking: Marking
        /// "needed for output" (C.5.2.3).
        public var neededForOutput: Bool
        /// PicLatencyCount (C.5.2.3).
        public var picLatencyCount: Int
        /// Position in decoding order among all pictures the planner decoded (for tests and logs).
        public var decodeIndex: Int
        /// A picture generated for a missing reference (8.3.3.2): no decoded content.
        public var generated: Bool
        /// Conformance window to crop to on output.
        public var cropWindow: CropWindow
        /// Known to be inexact: generated, decoded from a missing or damaged "Curr" reference,
        /// or reported failed by the decoder (`DecodePlanner.markDamaged(surface:)`).
        public var damaged = false

        public var isReference: Bool { marking != .unused }
    }

    public private(set) var pictures: [Picture] = []

    public init() {}

    public var count: Int { pictures.count }
    public var numNeededForOutput: Int { pictures.filter(\.neededForOutput).count }

    mutating func insert(_ p: Picture) { pictures.append(p) }

    mutating func setMarking(_ marking: Marking, at index: Int) { pictures[index].marking = marking }

    mutating func markDamaged(surface: SurfaceID) {
        for i in pictures.indices where pictures[i].surface == surface { pictures[i].damaged = true }
    }

    /// Marks every picture "unused for reference" (IRAP with NoRaslOutputFlag = 1, 8.3.2).
    mutating func markAllUnused() {
        for i in pictures.indices { pictures[i].marking = .unused }
    }

    /// Removes the pictures neither needed for output nor used for reference (C.5.2.2) and
    /// returns their surfaces.
    mutating func removeUnneeded() -> [SurfaceID] {
        let gone = pictures.filter { !$0.neededForOutput && !$0.isReference }.map(\.surface)
        pictures.removeAll { !$0.neededForOutput && !$0.isReference }
        return gone
    }

    /// Empties the DPB without output (NoOutputOfPriorPicsFlag = 1, C.5.2.2); returns the surfaces.
    mutating func removeAll() -> [SurfaceID] {
        defer { pictures.removeAll() }
        return pictures.map(\.surface)
    }

    /// The bumping process (C.5.2.4): outputs the picture with the smallest PicOrderCntVal of
    /// those needed for output, and empties its buffer when it is no longer a reference.
    /// - Returns: the output picture and the surface freed by the DPB, if any; nil when no
    ///   picture is needed for output.
    mutating func bump() -> (output: Picture, freed: SurfaceID?)? {
        guard let i = pictures.indices.filter({ pictures[$0].neededForOutput })
            .min(by: { pictures[$0].poc < pictures[$1].poc }) else { return nil }
        pictures[i].neededForOutput = false
        let p = pictures[i]
        if !p.isReference {
            pictures.remove(at: i)
            return (p, p.surface)
        }
        return (p, nil)
    }

    /// C.5.2.3: when the current picture is output, every picture needed for output that follows
    /// it in output order has PicLatencyCount incremented.
    mutating func countLatency(after currentPOC: Int32) {
        for i in pictures.indices where pictures[i].neededForOutput && pictures[i].poc > currentPOC {
            pictures[i].picLatencyCount += 1
        }
    }
}

/// The conformance cropping window of an output picture, in luma samples (7.4.3.2).
public struct CropWindow: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}
