import CV4L2
import FFmpegOracle
import Foundation
import Testing
@testable import HEVC
@testable import VideoDecode

/// The V4L2 controls the rung builds from the planner's pictures, checked for what must hold
/// whatever the values: every DPB index names the picture the planner's lists name, counts and
/// indices agree, byte offsets and sizes match the bitstream. The values themselves are compared
/// with GStreamer's v4l2slh265dec on the kernel's visl decoder in the VM harness (`v4l2` check).
@Suite("V4L2 stateless controls from the planner")
struct V4L2ControlsTests {
    /// Every picture of a B-frame stream: DPB indices resolve to the planner's POCs.
    @Test(.enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265"))
    func dpbIndicesNameThePlannersReferences() throws {
        let g = try DecodeFixture.all.first { $0.name == "b-frames-odd-size" }!.load()
        var parser = HEVCParser()
        var planner = DecodePlanner(headroom: 2)
        var pictures = 0, references = 0
        for au in AccessUnitSplitter.split(g.bytes) {
            let units = AnnexB.nalUnits(in: au).compactMap { try? parser.parseNALUnit($0) }
            guard let plan = planner.plan(units).picture else { continue }
            pictures += 1
            let stamps = Dictionary(uniqueKeysWithValues: plan.referenceFrames.map { ($0.surface, UInt64($0.surface + 1) * 1000) })
            let d = V4L2Controls.decodeParams(plan) { stamps[$0] ?? 0 }
            let dpb = withUnsafeBytes(of: d.dpb) { Array($0.bindMemory(to: v4l2_hevc_dpb_entry.self)) }
            #expect(Int(d.num_active_dpb_entries) == plan.referenceFrames.count)
            #expect(d.pic_order_cnt_val == plan.poc)
            for (i, r) in plan.referenceFrames.enumerated() {
                #expect(dpb[i].pic_order_cnt_val == r.poc && dpb[i].timestamp == stamps[r.surface])
                #expect((dpb[i].flags & UInt8(V4L2_HEVC_DPB_ENTRY_LONG_TERM_REFERENCE) != 0) == r.isLongTerm)
            }
            func pocs<T>(_ tuple: T, count: UInt8) -> [Int32?] {
                withUnsafeBytes(of: tuple) { raw in raw.prefix(Int(count)).map { $0 == 0xFF ? nil : dpb[Int($0)].pic_order_cnt_val } }
            }
            #expect(pocs(d.poc_st_curr_before, count: d.num_poc_st_curr_before) == plan.rps.stCurrBefore.map(\.picturePOC))
            #expect(pocs(d.poc_st_curr_after, count: d.num_poc_st_curr_after) == plan.rps.stCurrAfter.map(\.picturePOC))
            #expect(pocs(d.poc_lt_curr, count: d.num_poc_lt_curr) == plan.rps.ltCurr.map(\.picturePOC))
            let index = V4L2Controls.dpbIndex(plan)
            for slice in plan.slices {
                let s = V4L2Controls.sliceParams(slice, plan: plan, nalBytes: 100, startCodeBytes: 0, dpbIndex: index)
                #expect(pocs(s.ref_idx_l0, count: UInt8(slice.refPicList0.count)) == slice.refPicList0.map(\.picturePOC))
                #expect(pocs(s.ref_idx_l1, count: UInt8(slice.refPicList1.count)) == slice.refPicList1.map(\.picturePOC))
                // past the lists: unused
                withUnsafeBytes(of: s.ref_idx_l0) { #expect($0.dropFirst(slice.refPicList0.count).allSatisfy { $0 == 0xFF }) }
                references += slice.refPicList0.count + slice.refPicList1.count
            }
            for (k, slice) in plan.slices.enumerated() {
                _ = k
                let s = V4L2Controls.sliceParams(slice, plan: plan, nalBytes: 100, startCodeBytes: 0, dpbIndex: index)
                #expect(s.slice_pic_order_cnt == plan.poc)
                #expect(Int(s.slice_type) == Int(slice.header.sliceType.rawValue))
            }
        }
        #expect(pictures == 8 && references > 0)
    }

    /// bit_size covers the NAL unit and the start code in front of it; data_byte_offset points
    /// past the slice header (emulation prevention bytes not counted) and the start code.
    @Test func sliceByteOffsetsCountTheStartCode() throws {
        var h = SliceSegmentHeader()
        h.headerBitSize = 8 * 13
        h.sliceType = .i
        let slice = SlicePlan(header: h, nalIndex: 0, refPicList0: [], refPicList1: [])
        let plan = PicturePlan(poc: 4, surface: 0, nalUnitType: 1, sps: SequenceParameterSet(), pps: PictureParameterSet(),
                               noRaslOutputFlag: false, picOutputFlag: true, rps: ReferencePictureSet(), referenceFrames: [],
                               slices: [slice], decodeIndex: 0)
        let none = V4L2Controls.sliceParams(slice, plan: plan, nalBytes: 500, startCodeBytes: 0, dpbIndex: { _ in nil })
        let annexB = V4L2Controls.sliceParams(slice, plan: plan, nalBytes: 500, startCodeBytes: 3, dpbIndex: { _ in nil })
        #expect(none.bit_size == 4000 && none.data_byte_offset == 13)
        #expect(annexB.bit_size == 4024 && annexB.data_byte_offset == 16)
    }

    /// Scaling lists go in raster order: the scan visits every position of the block once, along
    /// up-right diagonals from the top-left (H.265 6.5.3).
    @Test func upRightDiagonalScanIsAPermutationAlongDiagonals() {
        for n in [4, 8] {
            let order = UpRightDiagonalScan.order(blockSize: n)
            #expect(order.count == n * n)
            #expect(Set(order.map { $0.y * n + $0.x }).count == n * n)
            // each step goes up-right within a diagonal or starts the next one at its bottom-left
            for (a, b) in zip(order, order.dropFirst()) {
                let sameDiagonal = b.x + b.y == a.x + a.y && b.x == a.x + 1 && b.y == a.y - 1
                #expect(sameDiagonal || b.x + b.y > a.x + a.y)
            }
            #expect(order.prefix(3).map { [$0.x, $0.y] } == [[0, 0], [0, 1], [1, 0]])
        }
    }

    /// Without scaling_list_enabled_flag the matrix is all zero; with the default lists the DC
    /// values are 16 and every list is placed whole.
    @Test func scalingMatrixFollowsTheFlag() {
        var sps = SequenceParameterSet()
        let plan = { (sps: SequenceParameterSet) in
            PicturePlan(poc: 0, surface: 0, nalUnitType: 19, sps: sps, pps: PictureParameterSet(), noRaslOutputFlag: true,
                        picOutputFlag: true, rps: ReferencePictureSet(), referenceFrames: [], slices: [], decodeIndex: 0)
        }
        let off = V4L2Controls.scalingMatrix(plan(sps))
        #expect(withUnsafeBytes(of: off) { $0.allSatisfy { $0 == 0 } })
        sps.scalingListEnabledFlag = true
        sps.scalingList = .default
        let on = V4L2Controls.scalingMatrix(plan(sps))
        #expect(withUnsafeBytes(of: on.scaling_list_dc_coef_16x16) { Array($0) } == [UInt8](repeating: 16, count: 6))
        #expect(withUnsafeBytes(of: on.scaling_list_4x4) { $0.allSatisfy { $0 == 16 } })
        // every coded coefficient lands somewhere: the multiset of values is the coded list's
        let intra8 = withUnsafeBytes(of: on.scaling_list_8x8) { Array($0.prefix(64)) }
        #expect(intra8.sorted() == ScalingList.default.lists[1][0].sorted())
    }
}

@Suite("V4L2 decoders: discovery and capture formats")
struct V4L2DeviceTests {
    /// This machine (and CI) has no media controller device: none is found, the ladder's chooser
    /// says so, and an explicit node that is not a decoder is refused with the nodes found.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/media0"), "this machine has a media device"))
    func noMediaDeviceMeansNoDecoder() {
        let (devices, skipped) = V4L2Decoders.scan()
        #expect(devices.isEmpty && skipped.isEmpty)
        #expect(throws: V4L2Error.noDecoder("no media controller device (/dev/media*)")) { try V4L2Decoders.choose(path: nil) }
        #expect(throws: V4L2Error.self) { try V4L2Decoders.choose(path: "/dev/video9") }
    }

    /// A directory of media nodes that are not devices: each is skipped with the reason.
    @Test func unreadableMediaNodesAreSkippedWithAReason() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("v4l2-scan-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("media0").path, contents: Data())
        _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("mediafoo").path, contents: Data())
        let (devices, skipped) = V4L2Decoders.scan(devDirectory: dir.path)
        #expect(devices.isEmpty)
        #expect(skipped.map(\.path) == [dir.appendingPathComponent("media0").path])
        #expect(skipped.first?.reason.contains("MEDIA_IOC_G_TOPOLOGY") == true)
    }

    @Test func captureFormatPreference() {
        let nv12 = V4L2FourCC.nv12, nm12 = V4L2FourCC.nv12m, p010 = V4L2FourCC.p010, nc12 = V4L2FourCC.nv12Col128
        #expect(CaptureFormat.choose([nc12, nm12, nv12], bitDepth: 8)?.v4l2 == nv12)
        #expect(CaptureFormat.choose([nc12, nm12], bitDepth: 8)?.v4l2 == nm12)
        #expect(CaptureFormat.choose([nc12], bitDepth: 8)?.columns == true)
        #expect(CaptureFormat.choose([nv12, p010], bitDepth: 10)?.v4l2 == p010)
        // the Pi's 10-bit columns have no display path: such a stream goes to software
        #expect(CaptureFormat.choose([nv12, V4L2FourCC.nv12Col128TenBit], bitDepth: 10) == nil)
        #expect(V4L2FourCC.text(V4L2FourCC.hevcSlice) == "S265")
    }

    /// NV12 in one buffer: chroma after bytesperline × height; in two (NM12): its own object;
    /// columns: chroma after `height` lines of each 128-byte column, the column height in the
    /// modifier (Broadcom vendor 0x07, SAND128 = 4).
    @Test func captureLayouts() throws {
        let one = CaptureFormat.known[0]
        let l = try #require(one.layout(width: 320, height: 192, bytesPerLine: [384], sizes: [384 * 192 * 3 / 2]))
        #expect(l.planes.map(\.offset) == [0, 384 * 192] && l.planes.map(\.pitch) == [384, 384] && l.modifier == 0)
        #expect(one.layout(width: 320, height: 192, bytesPerLine: [384], sizes: [384 * 100]) == nil, "chroma outside the buffer")
        let two = CaptureFormat.known[1]
        let m = try #require(two.layout(width: 320, height: 180, bytesPerLine: [320, 320], sizes: [57600, 28800]))
        #expect(m.planes.map(\.object) == [0, 1] && m.planes.map(\.offset) == [0, 0])
        let columns = CaptureFormat.known[3]
        let c = try #require(columns.layout(width: 1920, height: 1088, bytesPerLine: [1632], sizes: [3_342_336]))
        #expect(c.planes.map(\.offset) == [0, 1088 * 128] && c.planes.map(\.pitch) == [1920, 1920])
        #expect(c.modifier == 0x0700_0000_0006_6004, "SAND128_COL_HEIGHT(1632)")
    }
}
