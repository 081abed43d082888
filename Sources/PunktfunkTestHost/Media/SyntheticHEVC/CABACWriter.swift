/// One CABAC context variable (H.265 9.3.2.2): the probability state index 0…62 of the less
/// probable symbol and the value of the more probable one.
struct CABACContext {
    var pStateIdx: UInt8
    var valMps: UInt8

    /// Initialised from a context's `initValue` (the tables of 9.3.2.2) at SliceQpY, 9.3.2.2.
    init(initValue: UInt8, sliceQpY: Int) {
        let slopeIdx = Int(initValue >> 4), offsetIdx = Int(initValue & 15)
        let m = slopeIdx * 5 - 45, n = (offsetIdx << 3) - 16
        let qp = min(max(sliceQpY, 0), 51)
        let preCtxState = min(max(((m * qp) >> 4) + n, 1), 126)
        valMps = preCtxState <= 63 ? 0 : 1
        pStateIdx = UInt8(valMps == 1 ? preCtxState - 64 : 63 - preCtxState)
    }
}

/// The H.265 arithmetic encoder (9.3.5, informative; the mirror of the decoder in 9.3.4.3):
/// regular (context-coded), bypass and terminate bins over a 9-bit range and 10-bit low, writing
/// into the slice's `RBSPWriter`.
///
/// Invariants between calls: 256 ≤ `range` ≤ 510 and `low` < 1024 (renormalised);
/// `bitsOutstanding` counts the bits whose value waits on a carry. The first bit an engine
/// produces after `start()` is always 0 and is dropped (`firstBitFlag`), as the decoder never
/// reads it.
struct CABACWriter {
    var bits: RBSPWriter
    private var low: UInt32 = 0
    private var range: UInt32 = 510
    private var bitsOutstanding = 0
    private var firstBitFlag = true

    /// An engine appending to `bits` (which must be byte-aligned: slice data starts on a byte).
    init(bits: RBSPWriter) {
        precondition(bits.isByteAligned, "CABACWriter: slice data starts byte-aligned")
        self.bits = bits
    }

    /// (Re)initialises the engine (9.3.2.5): at the start of slice data and after PCM samples.
    /// Context variables are not touched.
    mutating func start() {
        low = 0
        range = 510
        bitsOutstanding = 0
        firstBitFlag = true
    }

    /// A context-coded bin (EncodeDecision).
    mutating func encode(_ bin: Bool, context: inout CABACContext) {
        let binVal: UInt8 = bin ? 1 : 0
        let qRangeIdx = Int(range >> 6) & 3
        let rLps = UInt32(Self.rangeTabLps[Int(context.pStateIdx)][qRangeIdx])
        range -= rLps
        if binVal != context.valMps {
            low += range
            range = rLps
            if context.pStateIdx == 0 { context.valMps = 1 - context.valMps }
            context.pStateIdx = Self.transIdxLps[Int(context.pStateIdx)]
        } else {
            context.pStateIdx = min(context.pStateIdx + 1, 62)
        }
        renormalise()
    }

    /// An equiprobable bin (EncodeBypass).
    mutating func encodeBypass(_ bin: Bool) {
        low <<= 1
        if bin { low += range }
        if low >= 1024 {
            putBit(1)
            low -= 1024
        } else if low < 512 {
            putBit(0)
        } else {
            low -= 512
            bitsOutstanding += 1
        }
    }

    /// `count` bypass bins: the low bits of `value`, most significant first.
    mutating func encodeBypassBits(_ value: UInt32, count: Int) {
        var k = count
        while k > 0 {
            k -= 1
            encodeBypass(value >> UInt32(k) & 1 == 1)
        }
    }

    /// A bin before termination (end_of_slice_segment_flag, pcm_flag; EncodeTerminate). A one
    /// flushes the engine: its last written bit is a one (the rbsp_stop_one_bit at a slice's
    /// end), and the caller pads with zeros to the byte boundary next.
    mutating func encodeTerminate(_ bin: Bool) {
        range -= 2
        if bin {
            low += range
            // EncodeFlush.
            range = 2
            renormalise()
            putBit(UInt8(low >> 9 & 1))
            bits.writeBits(UInt64((low >> 7 & 3) | 1), count: 2)
        } else {
            renormalise()
        }
    }

    /// RenormE: doubles `range` back to ≥ 256, emitting the settled bits of `low`.
    private mutating func renormalise() {
        while range < 256 {
            if low < 256 {
                putBit(0)
            } else if low >= 512 {
                low -= 512
                putBit(1)
            } else {
                low -= 256
                bitsOutstanding += 1
            }
            range <<= 1
            low <<= 1
        }
    }

    /// PutBit: `bit`, then the outstanding bits as its complement.
    private mutating func putBit(_ bit: UInt8) {
        if firstBitFlag {
            firstBitFlag = false
        } else {
            bits.writeBit(bit)
        }
        while bitsOutstanding > 0 {
            bits.writeBit(1 - bit)
            bitsOutstanding -= 1
        }
    }

    /// transIdxLps (9.3.4.3.2.2): the state after a less probable symbol; after a more probable
    /// one the state is min(pStateIdx + 1, 62).
    static let transIdxLps: [UInt8] = [
        0, 0, 1, 2, 2, 4, 4, 5, 6, 7, 8, 9, 9, 11, 11, 12,
        13, 13, 15, 15, 16, 16, 18, 18, 19, 19, 21, 21, 22, 22, 23, 24,
        24, 25, 26, 26, 27, 27, 28, 29, 29, 30, 30, 30, 31, 32, 32, 33,
        33, 33, 34, 34, 35, 35, 35, 36, 36, 36, 37, 37, 37, 38, 38, 63,
    ]

    /// rangeTabLps[pStateIdx][qRangeIdx] (9.3.4.3.2.1): the less probable symbol's sub-range,
    /// qRangeIdx = (range >> 6) & 3.
    static let rangeTabLps: [[UInt8]] = [
        [128, 176, 208, 240], [128, 167, 197, 227], [128, 158, 187, 216], [123, 150, 178, 205],
        [116, 142, 169, 195], [111, 135, 160, 185], [105, 128, 152, 175], [100, 122, 144, 166],
        [95, 116, 137, 158], [90, 110, 130, 150], [85, 104, 123, 142], [81, 99, 117, 135],
        [77, 94, 111, 128], [73, 89, 105, 122], [69, 85, 100, 116], [66, 80, 95, 110],
        [62, 76, 90, 104], [59, 72, 86, 99], [56, 69, 81, 94], [53, 65, 77, 89],
        [51, 62, 73, 85], [48, 59, 69, 80], [46, 56, 66, 76], [43, 53, 63, 72],
        [41, 50, 59, 69], [39, 48, 56, 65], [37, 45, 54, 62], [35, 43, 51, 59],
        [33, 41, 48, 56], [32, 39, 46, 53], [30, 37, 43, 50], [29, 35, 41, 48],
        [27, 33, 39, 45], [26, 31, 37, 43], [24, 30, 35, 41], [23, 28, 33, 39],
        [22, 27, 32, 37], [21, 26, 30, 35], [20, 24, 29, 33], [19, 23, 27, 31],
        [18, 22, 26, 30], [17, 21, 25, 28], [16, 20, 23, 27], [15, 19, 22, 25],
        [14, 18, 21, 24], [14, 17, 20, 23], [13, 16, 19, 22], [12, 15, 18, 21],
        [12, 14, 17, 20], [11, 14, 16, 19], [11, 13, 15, 18], [10, 12, 15, 17],
        [10, 12, 14, 16], [9, 11, 13, 15], [9, 11, 12, 14], [8, 10, 12, 14],
        [8, 9, 11, 13], [7, 9, 11, 12], [7, 9, 10, 12], [7, 8, 10, 11],
        [6, 8, 9, 11], [6, 7, 9, 10], [6, 7, 8, 9], [2, 2, 2, 2],
    ]
}
