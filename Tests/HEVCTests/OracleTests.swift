import Testing
import FFmpegOracle
@testable import HEVC

/// Every syntax element the parser reads must equal what `ffmpeg -bsf:v trace_headers` prints for
/// the same stream: same name, same bit position, same value, in the same order.
@Suite("trace_headers oracle", .enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265 on PATH (Tests/tools/install-deps.sh)"))
struct OracleTests {
    @Test(arguments: Fixture.all)
    func everyElementMatches(_ fixture: Fixture) throws {
        let g = try fixture.load()
        let compared = Oracle.compare(g.bytes, with: g.trace, fixture: fixture.name)
        #expect(compared > 100)
        print("oracle \(fixture.name): \(compared) elements match")
    }

    /// Values the VA-API rung will need, checked on top of the element-by-element comparison.
    @Test func derivedValuesOfTheBaseFixture() throws {
        let g = try Fixture.all[0].load()
        var parser = HEVCParser()
        var slices: [SliceSegmentHeader] = []
        for case .success(let unit) in parser.parseAnnexB(g.bytes) {
            if case .slice(let s) = unit.payload { slices.append(s) }
        }
        let sps = try #require(parser.parameterSets.sps[0])
        #expect(sps.picWidthInLumaSamples == 192 && sps.picHeightInLumaSamples == 112)
        #expect(sps.conformanceWindow == (0, 0, 192, 108))
        #expect(sps.ctbSizeY == 64 && sps.picWidthInCtbsY == 3 && sps.picHeightInCtbsY == 2)
        #expect(slices.count == 8)
        #expect(slices.allSatisfy { $0.headerBitSize % 8 == 0 })
        // Low-delay P: every P slice references only earlier pictures.
        for s in slices where s.sliceType == .p {
            #expect(s.shortTermRefPicSet.numPositivePics == 0 && s.numPicTotalCurr >= 1)
        }
    }

    @Test func main10ColourDescription() throws {
        let g = try #require(Fixture.all.first { $0.name == "main10-bt2020-pq" }).load()
        var parser = HEVCParser()
        _ = parser.parseAnnexB(g.bytes)
        let sps = try #require(parser.parameterSets.sps[0])
        #expect(sps.bitDepthY == 10 && sps.bitDepthC == 10)
        #expect(sps.profileTierLevel.generalProfileIdc == 2)
        #expect(sps.vui.colourPrimaries == 9 && sps.vui.transferCharacteristics == 16 && sps.vui.matrixCoeffs == 9)
        #expect(sps.vui.videoFullRangeFlag)
    }

    /// A new SPS mid-stream replaces the old one by id; later slices parse against it.
    @Test func resolutionChange() throws {
        let g = try #require(Fixture.all.first { $0.name == "resolution-change" }).load()
        var parser = HEVCParser()
        var sizes: [String] = []
        for result in parser.parseAnnexB(g.bytes) {
            let unit = try result.get()
            if case .sps(let sps) = unit.payload {
                let w = sps.conformanceWindow
                sizes.append("\(w.width)x\(w.height)")
            }
        }
        #expect(sizes.first == "192x108" && sizes.last == "128x72")
        #expect(parser.parameterSets.sps[0]?.picWidthInLumaSamples == 128)
    }

    /// Slice addresses, header sizes and emulation prevention counts of a 3-slice picture.
    @Test func multipleSlicesPerPicture() throws {
        let g = try #require(Fixture.all.first { $0.name == "two-slices" }).load()
        var parser = HEVCParser()
        var addresses: [UInt32] = []
        for result in parser.parseAnnexB(g.bytes) {
            let unit = try result.get()
            guard case .slice(let s) = unit.payload else { continue }
            addresses.append(s.sliceSegmentAddress)
            #expect(s.headerBitSize % 8 == 0)
            let epb = unit.rbsp.emulationPreventionBytes(before: s.headerBitSize / 8)
            #expect(epb >= 0 && epb <= unit.rbsp.removedPositions.count)
        }
        #expect(addresses.prefix(3) == [0, 24, 48])
    }

    /// The range-extension fixtures really exercise the RExt profile branch and chroma formats.
    @Test(arguments: [("rext-444-8bit", 3), ("rext-422-10bit", 2), ("monochrome", 0)])
    func chromaFormats(_ name: String, _ chromaFormatIdc: Int) throws {
        let g = try #require(Fixture.all.first { $0.name == name }).load()
        var parser = HEVCParser()
        _ = parser.parseAnnexB(g.bytes)
        let sps = try #require(parser.parameterSets.sps[0])
        #expect(Int(sps.chromaFormatIdc) == chromaFormatIdc)
        #expect(sps.profileTierLevel.generalProfileIdc == 4)
    }

    /// 8.3.1 on real streams: low-delay P counts up across its CRA (open GOP: not a new CVS); the GOP
    /// with B pyramids is a permutation in decoding order; temporal sub-layers do not disturb it.
    @Test(arguments: [("lowdelay-p", [0, 1, 2, 3, 4, 5, 6, 7]),
                      ("b-pyramid-weighted-fade", nil),
                      ("temporal-sub-layers", nil)] as [(String, [Int32]?)])
    func pictureOrderCount(_ name: String, _ expected: [Int32]?) throws {
        let fixture = try #require(Fixture.all.first { $0.name == name })
        let g = try fixture.load()
        var parser = HEVCParser()
        var poc = PictureOrderCount()
        var values: [Int32] = []
        for result in parser.parseAnnexB(g.bytes) {
            let unit = try result.get()
            guard case .slice(let s) = unit.payload, s.firstSliceSegmentInPicFlag else { continue }
            let sps = try #require(parser.parameterSets.pps[s.slicePicParameterSetId].flatMap { parser.parameterSets.sps[$0.ppsSeqParameterSetId] })
            values.append(poc.derive(s, sps: sps))
        }
        #expect(values.count == fixture.frames)
        if let expected { #expect(values == expected) }
        else { #expect(Set(values) == Set((0..<Int32(fixture.frames)))) }
    }
}
