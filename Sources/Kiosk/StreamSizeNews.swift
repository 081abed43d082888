import Foundation
import PunktfunkSession

/// What the kiosk says about the size the host streams at: "The host now streams W×H" only once
/// its pictures are that size — a host may accept a mode and keep sending another (the demo
/// host's 640×360) — and, when they never are, what they are and that they are fitted. Pure
/// (the answers and picture sizes come in as arguments); `StreamSizeMailbox` carries the answer
/// from the pump thread.
public struct StreamSizeNews: Sendable, Equatable {
    /// Pictures of another size after an accepted mode before the kiosk says so (about two
    /// seconds at 60 fps: the host switches at its next IDR).
    public static let patience = 120

    private var accepted: (width: Int, height: Int, refreshHz: Int)?
    private var otherPictures = 0

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.accepted?.width == b.accepted?.width && a.accepted?.height == b.accepted?.height
            && a.accepted?.refreshHz == b.accepted?.refreshHz && a.otherPictures == b.otherPictures
    }

    /// The host answered a mode request. - Returns: the sentence to say now (a refusal), or nil
    /// (an acceptance waits for its pictures).
    public mutating func answered(_ answer: ModeAnswer) -> String? {
        switch answer {
        case .accepted(let mode):
            accepted = (Int(mode.width), Int(mode.height), Int(mode.refreshHz))
            otherPictures = 0
            return nil
        case .refused(let requested, let active):
            accepted = nil
            return "The host keeps \(active.width)×\(active.height) (\(requested.width)×\(requested.height) was refused); it is scaled to fit."
        }
    }

    /// A picture of `width` × `height` (its visible size) is about to be shown. - Returns: the
    /// sentence when it settles what the host streams, else nil.
    public mutating func picture(width: Int, height: Int) -> String? {
        guard let a = accepted else { return nil }
        if width == a.width, height == a.height {
            accepted = nil
            return "The host now streams \(a.width)×\(a.height) at \(a.refreshHz) Hz."
        }
        otherPictures += 1
        guard otherPictures >= Self.patience else { return nil }
        accepted = nil
        return "The host agreed to stream \(a.width)×\(a.height) but still sends \(width)×\(height) pictures; they are fitted to the screen."
    }
}

/// The newest mode answer, handed from the session's pump thread to the presenting thread.
final class StreamSizeMailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var answer: ModeAnswer?

    func post(_ a: ModeAnswer) { lock.withLock { answer = a } }
    func take() -> ModeAnswer? { lock.withLock { defer { answer = nil }; return answer } }
}
