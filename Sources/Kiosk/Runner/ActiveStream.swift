import VideoFrames
import Screen
import PunktfunkSession
import VideoDecode
import Input

/// The stream the runner is running for one job: a session pipeline (pump and decode threads)
/// or a file decoded on the presenting thread, plus what the runner tracks about it.
///
/// - Precondition: used only on the runner's thread.
final class ActiveStream {
    enum Source {
        case session(StreamPipeline, LiveStats)
        case file(FileSource, FilePlayback)
    }

    let job: Int
    let source: Source
    /// The first picture, held from its arrival until the stream takes the display.
    var first: DecodedPicture?
    /// A file's first frame as its source numbered it, handed to the present loop before the
    /// source's next one (its picture is `first`).
    var firstFileFrame: SourcedFrame?
    /// Pictures decoded and given back while headless (the count said at the end).
    var pictures = 0
    /// The first picture was reported (`.firstPicture`).
    var started = false
    /// The present loop ran for this stream (it does not take the display twice).
    var presented = false
    /// A file stream was asked to stop (a session stops through its pipeline).
    var stopRequested = false
    /// The process-lived input with this session attached, and the session's sink (nil for a
    /// file, or with `--input none`).
    var input: (shell: ShellInput, sink: InputSink)?

    init(job: Int, source: Source) {
        self.job = job
        self.source = source
    }

    var pipeline: StreamPipeline? {
        if case .session(let p, _) = source { return p }
        return nil
    }

    /// The decode stage's eventfd (readable when a picture is ready); -1 without one.
    var pictureDescriptor: Int32 { pipeline?.stage?.wakeDescriptor ?? -1 }

    /// Ends the stream soon: the session quits (0x51) at the pump's next pass; a file stops at
    /// its next frame.
    func stop() {
        stopRequested = true
        stopInput()
        pipeline?.stop()
        if case .session(_, let live) = source { live.audio?.stop() }
    }

    /// Detaches the session from the input: the host gets its last releases (queued before the
    /// session's quit), the pads' feedback is reset. Idempotent.
    func stopInput() {
        if let (shell, sink) = input { shell.detach(sink) }
        input = nil
    }

    /// Gives back every picture still held (the display no longer wants them).
    func releasePictures() {
        first?.release()
        first = nil
        if let output = pipeline?.stage?.output {
            for picture in output.drain() { picture.release() }
        }
    }
}
