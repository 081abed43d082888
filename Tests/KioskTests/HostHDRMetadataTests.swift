import Foundation
import Testing
import PunktfunkSession
import PunktfunkWire
@testable import Kiosk
import VideoFrames
import PunktfunkTestHost

/// The host's 0xCE HDR metadata: wire units to the HDMI descriptor's, and the newest-wins hand-off
/// from the pump thread, over a real loopback session.
@Suite(.serialized) struct HostHDRMetadataTests {
    /// BT.2020 primaries in the wire's G, B, R order; 1000 cd/m² peak, 0.005 cd/m² black.
    static let wire = HDRMetadata(
        green: .init(x: 8_500, y: 39_850), blue: .init(x: 6_550, y: 2_300), red: .init(x: 35_400, y: 14_600),
        whitePoint: .init(x: 15_635, y: 16_450), maxMasteringLuminance: 10_000_000, minMasteringLuminance: 50,
        maxCLL: 1_000, maxFALL: 400)
    static let descriptor = HDRStaticMetadata(
        red: .init(x: 35_400, y: 14_600), green: .init(x: 8_500, y: 39_850), blue: .init(x: 6_550, y: 2_300),
        whitePoint: .init(x: 15_635, y: 16_450), maxMasteringLuminance: 1_000, minMasteringLuminance: 50,
        maxCLL: 1_000, maxFALL: 400)

    @Test func wireMetadataInDescriptorUnits() {
        #expect(HDRStaticMetadata(wire: Self.wire) == Self.descriptor)
        var big = Self.wire
        big.maxMasteringLuminance = .max
        big.minMasteringLuminance = 70_000
        let m = HDRStaticMetadata(wire: big)
        #expect(m.maxMasteringLuminance == 65_535 && m.minMasteringLuminance == 65_535)
    }

    @Test func newestWinsAndRepeatsAreNoNews() {
        let box = LatestHDRMetadata()
        #expect(box.takeNew() == nil)
        var other = Self.descriptor
        other.maxCLL = 4_000
        box.offer(Self.descriptor)
        box.offer(other)
        #expect(box.takeNew() == other)
        #expect(box.takeNew() == nil)
        box.offer(other)  // the host re-sends on every keyframe
        #expect(box.takeNew() == nil)
        box.offer(Self.descriptor)
        #expect(box.takeNew() == Self.descriptor)
        #expect(box.latest == Self.descriptor)
    }

    @Test func theHostsDatagramReachesThePipeline() throws {
        let identity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        var options = HostSession.Options(identity: identity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: DemoStream.accessUnits)
        options.keyframeIndices = DemoStream.keyframeIndices
        options.fps = DemoStream.fps
        options.maxSeconds = 20
        var later = Self.wire
        later.maxCLL = 1_500
        options.events = [ScriptedEvent(frame: 3, action: .datagram(.hdrMetadata(Self.wire))),
                          ScriptedEvent(frame: 20, action: .datagram(.hdrMetadata(later)))]
        let host = try HostSession(options: options)
        let done = DispatchSemaphore(value: 0)
        Thread { try? host.run(); done.signal() }.start()
        defer { host.stop(); _ = done.wait(timeout: .now() + 5) }

        let client = ClientSession.Options(remote: host.localAddress, identity: nil,
                                           trust: .pinned(identity.fingerprint), seconds: 1.5)
        let pipeline = StreamPipeline(options: client, decoder: .init(rungs: [.software]))
        pipeline.start()
        var seen: [HDRStaticMetadata] = []
        while true {
            if let m = pipeline.hostHDR.takeNew() { seen.append(m) }
            if let p = pipeline.stage!.output.pop(timeout: 0.02) { p.release(); continue }
            if pipeline.stage!.output.isClosed { break }
        }
        pipeline.wait()
        if let m = pipeline.hostHDR.takeNew() { seen.append(m) }
        var expectedLater = Self.descriptor
        expectedLater.maxCLL = 1_500
        #expect(host.eventsSent == 2)
        #expect(seen.last == expectedLater)
        #expect(pipeline.hostHDR.latest == expectedLater)
        #expect(seen.allSatisfy { $0 == Self.descriptor || $0 == expectedLater })
    }
}
