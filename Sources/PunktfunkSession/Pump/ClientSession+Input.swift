import PunktfunkWire

extension ClientSession {
    /// Sends one input item the input thread queued (pump thread): key edges on the control
    /// stream as INPUT_EVENT 0x50, falling back to a datagram when the stream refuses
    /// (data-plane.md §6.1); everything else as a kind-0x02 datagram.
    func sendInput(_ item: ClientOutbox.QueuedInput, connection: QuicConnection, controlStream: Int64) {
        switch item {
        case .edge(let event):
            if let edge = InputEdge(event: event.encoded),
               (try? connection.write(stream: controlStream, ControlMessage.inputEvent(edge).encoded)) != nil {
                outboxSent += 1
                inputsSent += 1
                return
            }
            if (try? connection.sendDatagram(ClientDatagram.input(event).encoded)) != nil { outboxSent += 1; inputsSent += 1 }
        case .event(let event):
            if (try? connection.sendDatagram(ClientDatagram.input(event).encoded)) != nil { outboxSent += 1; inputsSent += 1 }
        case .rich(let rich):
            if (try? connection.sendDatagram(ClientDatagram.richInput(rich).encoded)) != nil { outboxSent += 1; inputsSent += 1 }
        }
    }
}
