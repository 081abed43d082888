import Input
import PunktfunkSession
import PunktfunkWire

/// The input thread's way into the live session: the pipeline's current session's outbox (after
/// a resume, the new one). Queuing is a lock and an append into reserved storage — no
/// allocation per event; the pump encodes.
final class SessionInputSink: InputSink {
    private let pipeline: StreamPipeline

    init(pipeline: StreamPipeline) { self.pipeline = pipeline }

    func send(_ event: InputEvent, reliable: Bool) -> Bool {
        guard let outbox = pipeline.session?.outbox else { return false }
        return outbox.sendInput(reliable ? .edge(event) : .event(event))
    }

    func send(_ rich: RichInput) -> Bool {
        guard let outbox = pipeline.session?.outbox else { return false }
        return outbox.sendInput(.rich(rich))
    }
}
