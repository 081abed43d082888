import Testing
import PunktfunkWire
import PunktfunkSession
@testable import Kiosk

/// "The host now streams W×H" only for what the pictures are (issue 29, item 5).
@Suite struct StreamSizeNewsTests {
    let tv = Mode(width: 1920, height: 1080, refreshHz: 60)

    @Test func anAcceptedModeIsSaidWhenItsPicturesArrive() {
        var news = StreamSizeNews()
        #expect(news.answered(.accepted(tv)) == nil)
        #expect(news.picture(width: 1280, height: 720) == nil, "the old size until the host's next IDR")
        #expect(news.picture(width: 1920, height: 1080) == "The host now streams 1920×1080 at 60 Hz.")
        #expect(news.picture(width: 1920, height: 1080) == nil, "said once")
    }

    /// The demo host accepts any mode and keeps sending 640×360.
    @Test func aHostThatAgreesButKeepsItsSizeIsNamedForWhatItSends() {
        var news = StreamSizeNews()
        _ = news.answered(.accepted(tv))
        for _ in 1..<StreamSizeNews.patience { #expect(news.picture(width: 640, height: 360) == nil) }
        #expect(news.picture(width: 640, height: 360)
                == "The host agreed to stream 1920×1080 but still sends 640×360 pictures; they are fitted to the screen.")
        #expect(news.picture(width: 640, height: 360) == nil)
    }

    @Test func aRefusalIsSaidAtOnceAndNoPictureIsAnnouncedWithoutAnAnswer() {
        var news = StreamSizeNews()
        #expect(news.picture(width: 1920, height: 1080) == nil)
        let sentence = news.answered(.refused(requested: tv, active: Mode(width: 1280, height: 720, refreshHz: 60)))
        #expect(sentence == "The host keeps 1280×720 (1920×1080 was refused); it is scaled to fit.")
        #expect(news.picture(width: 1280, height: 720) == nil)
    }
}
