import Testing
@testable import WaylandDisplay

/// Feedback tables in the byte layout of linux-dmabuf-unstable-v1.xml v4 (format table entries of
/// u32 format, u32 padding, u64 modifier; tranche_formats as u16 indices; devices as dev_t). No
/// GPU here, so the tables are written down from what an Intel (i915, render node 226:128) box's
/// `weston-simple-dmabuf-feedback` lists: a scan-out tranche with XRGB8888/NV12/P010 linear and
/// X-tiled, then the render tranche adding Y-tiled and the CCS modifier.
@Suite struct DmabufFeedbackTests {
    static let nv12: UInt32 = 0x3231_564E     // 'NV12'
    static let p010: UInt32 = 0x3031_3050     // 'P010'
    static let xrgb: UInt32 = 0x3432_5258     // 'XR24'
    static let linear: UInt64 = 0
    static let xTiled: UInt64 = 0x0100_0000_0000_0001   // I915_FORMAT_MOD_X_TILED
    static let yTiled: UInt64 = 0x0100_0000_0000_0002   // I915_FORMAT_MOD_Y_TILED
    static let yTiledCCS: UInt64 = 0x0100_0000_0000_0004
    static let renderNode = DmabufFeedback.device(major: 226, minor: 128)
    static let cardNode = DmabufFeedback.device(major: 226, minor: 0)

    static let table: [(UInt32, UInt64)] = [
        (xrgb, linear), (xrgb, xTiled), (nv12, linear), (nv12, xTiled), (p010, linear),
        (nv12, yTiled), (p010, yTiled), (nv12, yTiledCCS), (xrgb, yTiled),
    ]

    static func tableBytes(_ entries: [(UInt32, UInt64)]) -> [UInt8] {
        var out: [UInt8] = []
        for (format, modifier) in entries {
            withUnsafeBytes(of: format.littleEndian) { out += $0 }
            out += [0, 0, 0, 0]
            withUnsafeBytes(of: modifier.littleEndian) { out += $0 }
        }
        return out
    }
    static func bytes(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func indices(_ i: [UInt16]) -> [UInt8] { i.flatMap { v in withUnsafeBytes(of: v.littleEndian) { Array($0) } } }

    /// Replays one batch of events into a builder.
    static func recorded(table: [(UInt32, UInt64)]? = Self.table, main: UInt64 = renderNode,
                         tranches: [(UInt64, [UInt16], UInt32)],
                         into builder: inout DmabufFeedbackBuilder) -> Result<DmabufFeedback, DmabufFeedbackError> {
        if let table { tableBytes(table).withUnsafeBytes { builder.handleFormatTable($0) } }
        bytes(main).withUnsafeBytes { builder.handleMainDevice($0) }
        for (device, idx, flags) in tranches {
            bytes(device).withUnsafeBytes { builder.handleTrancheTargetDevice($0) }
            indices(idx).withUnsafeBytes { builder.handleTrancheFormats($0) }
            builder.handleTrancheFlags(flags)
            builder.handleTrancheDone()
        }
        return builder.handleDone()
    }

    static let intelBatch: [(UInt64, [UInt16], UInt32)] = [
        (cardNode, [0, 1, 2, 3, 4], 1),                 // scan-out tranche
        (renderNode, [0, 1, 2, 3, 4, 5, 6, 7, 8], 0),   // render tranche
    ]

    @Test func parsesTranchesAndMainDevice() throws {
        var builder = DmabufFeedbackBuilder()
        let feedback = try Self.recorded(tranches: Self.intelBatch, into: &builder).get()
        #expect(DmabufFeedback.deviceNumbers(feedback.mainDevice) == (226, 128))
        #expect(feedback.tranches.count == 2)
        #expect(feedback.tranches[0].scanout && !feedback.tranches[1].scanout)
        #expect(feedback.tranches[0].pairs.count == 5)
        #expect(feedback.tranches[1].pairs[7] == FormatModifier(format: Self.nv12, modifier: Self.yTiledCCS))
        #expect(feedback.tranches[0].targetDevice == Self.cardNode)
    }

    @Test func choosesTheScanoutTrancheFirstAndOnlyListedPairs() throws {
        var builder = DmabufFeedbackBuilder()
        let feedback = try Self.recorded(tranches: Self.intelBatch, into: &builder).get()
        // The VA surface is Y-tiled: only the render tranche lists it.
        let yTiled = feedback.choose(format: Self.nv12, modifiers: [Self.yTiled])
        #expect(yTiled?.trancheIndex == 1 && yTiled?.scanout == false)
        // Linear is listed in both: the scan-out tranche wins.
        let linear = feedback.choose(format: Self.nv12, modifiers: [Self.yTiled, Self.linear])
        #expect(linear?.trancheIndex == 0 && linear?.scanout == true && linear?.pair.modifier == Self.linear)
        // P010 with CCS is not listed anywhere: no import.
        #expect(feedback.choose(format: Self.p010, modifiers: [Self.yTiledCCS]) == nil)
        #expect(!feedback.lists(format: Self.p010, modifier: Self.yTiledCCS))
        #expect(feedback.lists(format: Self.p010, modifier: Self.yTiled))
    }

    @Test func scanoutTrancheListedSecondIsStillTriedFirst() throws {
        var builder = DmabufFeedbackBuilder()
        let feedback = try Self.recorded(tranches: [(Self.renderNode, [2, 3], 0), (Self.cardNode, [2], 1)],
                                         into: &builder).get()
        #expect(feedback.choose(format: Self.nv12, modifiers: [Self.linear])?.trancheIndex == 1)
        #expect(feedback.choose(format: Self.nv12, modifiers: [Self.xTiled])?.trancheIndex == 0)
    }

    @Test func aLaterBatchKeepsTheTableAndMainDevice() throws {
        // After going fullscreen the compositor re-sends tranches only (mpv #14544).
        var builder = DmabufFeedbackBuilder()
        _ = try Self.recorded(tranches: Self.intelBatch, into: &builder).get()
        Self.bytes(Self.renderNode).withUnsafeBytes { builder.handleTrancheTargetDevice($0) }
        Self.indices([5]).withUnsafeBytes { builder.handleTrancheFormats($0) }
        builder.handleTrancheFlags(0)
        builder.handleTrancheDone()
        let second = try builder.handleDone().get()
        #expect(second.tranches == [.init(targetDevice: Self.renderNode, pairs: [.init(format: Self.nv12, modifier: Self.yTiled)],
                                          scanout: false)])
        #expect(second.mainDevice == Self.renderNode)
    }

    @Test func malformedPayloadsAreErrorsNotTraps() {
        var builder = DmabufFeedbackBuilder()
        [UInt8](repeating: 0, count: 15).withUnsafeBytes { builder.handleFormatTable($0) }
        #expect(builder.handleDone() == .failure(.formatTableSize(15)))
        var b2 = DmabufFeedbackBuilder()
        #expect(Self.recorded(tranches: [(Self.renderNode, [9], 0)], into: &b2) == .failure(.indexOutOfRange(index: 9, tableCount: 9)))
        var b3 = DmabufFeedbackBuilder()
        #expect(Self.recorded(table: nil, tranches: [(Self.renderNode, [0], 0)], into: &b3) == .failure(.noFormatTable))
        var b4 = DmabufFeedbackBuilder()
        [UInt8](repeating: 0, count: 4).withUnsafeBytes { b4.handleMainDevice($0) }
        #expect(b4.handleDone() == .failure(.deviceSize(4)))
        var b5 = DmabufFeedbackBuilder()
        [UInt8](repeating: 0, count: 3).withUnsafeBytes { b5.handleTrancheFormats($0) }
        #expect(b5.handleDone() == .failure(.indicesSize(3)))
    }

    @Test func deviceNumbersRoundTrip() {
        for (ma, mi) in [(226, 128), (226, 0), (4095, 255), (5000, 70_000)] as [(UInt32, UInt32)] {
            #expect(DmabufFeedback.deviceNumbers(DmabufFeedback.device(major: ma, minor: mi)) == (ma, mi))
        }
        #expect(FormatModifier(format: Self.nv12, modifier: 0).description == "NV12:0x0")
    }
}
