import Input
import PunktfunkSession
import PunktfunkWire
import Screen

extension KioskRunner {
    /// Chains the host's pointer onto `session` (from the pipeline's `prepare`; pump thread): when
    /// the hello said the box draws it (CLIENT_CAP_CURSOR) and the host forwards it
    /// (HOST_CAP_CURSOR), the session begins drawing (CursorRenderMode says so to the host), each
    /// CursorShape is kept and each 0xD0 followed; a new epoch's mode bounds the local pointer.
    static func followPointer(_ session: ClientSession, pointer: HostPointer) {
        let draws = session.options.hello.features.clientCaps.contains(.cursor)
        let established = session.onEstablished
        session.onEstablished = { [unowned session] params in
            established?(params)
            let on = draws && params.serverHello.features.hostCaps.contains(.cursor)
            pointer.begin(enabled: on, videoWidth: Int(params.serverHello.mode.width), videoHeight: Int(params.serverHello.mode.height))
            if on { _ = session.outbox.sendControl(.cursorRenderMode(CursorRenderMode(clientDraws: true))) }
        }
        let control = session.onControl
        session.onControl = { message in
            control?(message)
            switch message {
            case .cursorShape(let shape): pointer.shape(shape)
            case .streamConfig(let config) where config.mode.width > 0 && config.mode.height > 0:
                pointer.setVideo(width: Int(config.mode.width), height: Int(config.mode.height))
            default: break
            }
        }
        let hostDatagram = session.onHostDatagram
        session.onHostDatagram = { datagram in
            hostDatagram?(datagram)
            if case .cursor(let state) = datagram { pointer.host(state) }
        }
    }
}

/// The presenting thread's side of `HostPointer`: the shape's image (made once per serial) and
/// what the screen was told last, so the screen hears only changes.
struct PointerDrawing {
    private var told: ScreenPointer?
    private var image: CursorImage?

    /// Tells `screen` the pointer to draw at `now` (nil when the host hides it, captured it, or
    /// its shape has not come yet).
    mutating func update(_ pointer: HostPointer, on screen: any Screen, now: UInt64) {
        var next: ScreenPointer?
        if let view = pointer.view(now: now) {
            if image?.serial != view.serial, let shape = pointer.shape(serial: view.serial) {
                image = CursorImage(serial: shape.serial, width: Int(shape.width), height: Int(shape.height),
                                    hotX: Int(shape.hotX), hotY: Int(shape.hotY), straightRGBA: shape.rgba)
            }
            if let image, image.serial == view.serial {
                next = ScreenPointer(image: image, x: view.x, y: view.y, videoWidth: view.videoWidth, videoHeight: view.videoHeight)
            }
        }
        guard next != told else { return }
        told = next
        screen.setPointer(next)
    }

    /// The stream left the screen: nothing is drawn.
    mutating func clear(on screen: (any Screen)?) {
        if told != nil { screen?.setPointer(nil) }
        told = nil
    }
}
