import Testing
import Audio

@Suite struct ChannelRoutingTests {
    @Test func stereoNeedsNeitherMapNorReorder() {
        #expect(ChannelRouting.plan(channels: 2, offer: .settable) == .asIs)
        #expect(ChannelRouting.plan(channels: 2, offer: .none) == .asIs)
    }

    @Test func surroundSetsTheWireOrderWhenTheDeviceTakesAMap() {
        // SND_CHMAP_FL FR FC LFE RL RR SL SR = 3 4 7 8 5 6 9 10.
        #expect(ChannelRouting.plan(channels: 6, offer: .settable) == .setMap([3, 4, 7, 8, 5, 6]))
        #expect(ChannelRouting.plan(channels: 8, offer: .settable) == .setMap([3, 4, 7, 8, 5, 6, 9, 10]))
        #expect(ChannelRouting.plan(channels: 8, offer: .fixedWireOrder) == .asIs)
    }

    @Test func surroundIsReorderedToAlsasDefaultOtherwise() {
        // ALSA default FL FR RL RR FC LFE (SL SR) takes wire channels 0 1 4 5 2 3 (6 7).
        #expect(ChannelRouting.plan(channels: 6, offer: .none) == .reorder([0, 1, 4, 5, 2, 3]))
        #expect(ChannelRouting.plan(channels: 8, offer: .none) == .reorder([0, 1, 4, 5, 2, 3, 6, 7]))
    }

    @Test func routeMovesEachWireChannelToItsSpeaker() {
        let routing = ChannelRouting.plan(channels: 6, offer: .none)
        // Two frames; sample value = 10 × frame + wire channel.
        let wire: [Float] = (0..<12).map { Float(($0 / 6) * 10 + $0 % 6) }
        var out = [Float](repeating: -1, count: 12)
        wire.withUnsafeBufferPointer { w in out.withUnsafeMutableBufferPointer { routing.route(w, into: $0, frames: 2, channels: 6) } }
        #expect(out == [0, 1, 4, 5, 2, 3, 10, 11, 14, 15, 12, 13])
        // Every output position carries the wire channel of the same speaker.
        let wirePositions = ChannelRouting.wireOrder(channels: 6)
        let alsa = ChannelRouting.alsaDefaultOrder(channels: 6)
        for i in 0..<6 { #expect(wirePositions[Int(out[i])] == alsa[i]) }
    }
}
