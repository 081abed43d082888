import Foundation
import Testing
import PunktfunkSession
import VideoDecode
@testable import Kiosk
import PunktfunkTestHost

/// `--demo` without glass: the embedded host, a real loopback session, the decode thread with the
/// software rung. Every picture that comes out must be a picture of the demo stream.
@Suite(.serialized) struct DemoPipelineTests {
    @Test func theDemoStreamIsEmbeddedAndStartsWithAKeyframe() {
        #expect(DemoStream.accessUnits.count == 60)
        #expect(DemoStream.keyframeIndices.first == 0)
    }

    @Test func aDemoSessionDecodesTheEmbeddedStreamOverLoopback() throws {
        // Reference: the demo stream decoded directly, hashed per picture.
        let reference = try SoftwareDecoder()
        var expected = Set<String>()
        for (i, au) in DemoStream.accessUnits.enumerated() {
            for frame in try reference.decode(accessUnit: au, pts: Int64(i)) { expected.insert(FrameMD5.hex(FrameMD5.nativeBytes(of: frame))) }
        }
        for frame in reference.flush() { expected.insert(FrameMD5.hex(FrameMD5.nativeBytes(of: frame))) }
        #expect(expected.count >= 50)

        let host = try DemoHost(seconds: 3)
        defer { host.stop() }
        let options = ClientSession.Options(remote: host.address, identity: nil,
                                            trust: .pinned(host.fingerprint), seconds: 1.5)
        let pipeline = StreamPipeline(options: options, decoder: .init(rungs: [.software]))
        pipeline.start()
        var shown = 0
        var foreign = 0
        while true {
            guard let picture = pipeline.stage!.output.pop(timeout: 0.1) else {
                if pipeline.stage!.output.isClosed { break }
                continue
            }
            guard case .cpu(let frame) = picture else { Issue.record("software rung gave a non-CPU picture"); continue }
            if expected.contains(FrameMD5.hex(FrameMD5.nativeBytes(of: frame))) { shown += 1 } else { foreign += 1 }
            picture.release()
        }
        pipeline.wait()
        if case .failure(let error)? = pipeline.result { Issue.record("session failed: \(error)") }
        #expect(foreign == 0)
        // ~60 fps for 1.5 s.
        #expect(shown >= 60, "\(shown) pictures")
        #expect(pipeline.stage!.rung == .software)
    }
}
