import CVA

/// One side's VA recording (the recording driver's record) as sessions and pictures in decoding
/// order, with every HEVC buffer loaded as its libva struct.
struct VARecording {
    /// A decode context and the surfaces it decodes into.
    struct Session: Equatable, CustomStringConvertible {
        var profile: Int32
        var contextWidth: UInt32, contextHeight: UInt32
        /// RT format, size and pixel-format attribute of the render targets (all equal, or the
        /// session is reported as mixed).
        var rtFormat: UInt32, surfaceWidth: UInt32, surfaceHeight: UInt32, fourcc: UInt32
        var description: String {
            "profile \(profile), context \(contextWidth)x\(contextHeight), surfaces \(surfaceWidth)x\(surfaceHeight) "
                + "RT 0x\(String(rtFormat, radix: 16)) \(fourccName(fourcc))"
        }
    }

    struct Slice {
        var parameters: VASliceParameterBufferHEVC
        var data: [UInt8]
    }

    struct Picture {
        var context: UInt32
        var target: UInt32
        var parameters: VAPictureParameterBufferHEVC
        var iqMatrix: VAIQMatrixBufferHEVC?
        var slices: [Slice]
        var endStatus: UInt32
    }

    var sessions: [Session] = []
    var pictures: [Picture] = []
    /// Submissions that do not have the shape both sides use (picture parameters [+ IQ matrix]
    /// in one vaRenderPicture, slice parameter/data pairs in the next).
    var malformed: [String] = []

    init(_ entries: [VARecordingDriver.Entry]) {
        var surfaces: [UInt32: (rt: UInt32, w: UInt32, h: UInt32, fourcc: UInt32)] = [:]
        let attribSize = MemoryLayout<VASurfaceAttrib>.size
        // One pass in record order: surface ids are reused after vaDestroySurfaces.
        for e in entries {
            switch e.kind {
            case .createSurfaces:
                // Payload: `surface` ids, then the attribute list.
                let count = Int(e.surface)
                guard e.payload.count >= 4 * count else { malformed.append("short surface record"); continue }
                var fourcc: UInt32 = 0
                for at in stride(from: 4 * count, to: e.payload.count - attribSize + 1, by: attribSize) {
                    let a = e.payload.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: VASurfaceAttrib.self) }
                    if a.type == VASurfaceAttribPixelFormat { fourcc = UInt32(bitPattern: a.value.value.i) }
                }
                for i in 0..<count {
                    let id = e.payload.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self) }
                    surfaces[id] = (e.bufferType, e.elementSize, e.numElements, fourcc)
                }
            case .createContext:
                let targets = stride(from: 0, to: e.payload.count, by: 4).map { at in
                    e.payload.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
                }
                let kinds = Set(targets.compactMap { surfaces[$0].map { "\($0.rt) \($0.w) \($0.h) \($0.fourcc)" } })
                if kinds.count != 1 { malformed.append("context \(e.context): render targets of \(kinds.count) kinds") }
                let first = targets.first.flatMap { surfaces[$0] }
                sessions.append(Session(profile: Int32(bitPattern: e.bufferType), contextWidth: e.elementSize,
                                        contextHeight: e.numElements, rtFormat: first?.rt ?? 0, surfaceWidth: first?.w ?? 0,
                                        surfaceHeight: first?.h ?? 0, fourcc: first?.fourcc ?? 0))
            default: break
            }
        }
        for (k, p) in RecordedPicture.group(entries).enumerated() {
            guard p.calls.count == 2, let picEntry = p.calls[0].first,
                  picEntry.bufferType == VAPictureParameterBufferType.rawValue,
                  let parameters = picEntry.load(VAPictureParameterBufferHEVC.self) else {
                malformed.append("picture \(k): submission is not [picture(+IQ)] then [slice params/data]")
                continue
            }
            let rest = p.calls[0].dropFirst()
            if rest.contains(where: { $0.bufferType != VAIQMatrixBufferType.rawValue }) || rest.count > 1 {
                malformed.append("picture \(k): first vaRenderPicture has \(rest.map(\.bufferType)) after the picture parameters")
            }
            let iq = rest.first.flatMap { $0.load(VAIQMatrixBufferHEVC.self) }
            var slices: [Slice] = []
            let call = p.calls[1]
            if call.count % 2 != 0 { malformed.append("picture \(k): \(call.count) slice buffers (not pairs)") }
            for j in stride(from: 0, to: call.count - 1, by: 2) {
                guard call[j].bufferType == VASliceParameterBufferType.rawValue,
                      call[j + 1].bufferType == VASliceDataBufferType.rawValue,
                      let sp = call[j].load(VASliceParameterBufferHEVC.self) else {
                    malformed.append("picture \(k): slice buffer pair \(j / 2) is not parameters then data")
                    continue
                }
                slices.append(Slice(parameters: sp, data: call[j + 1].payload))
            }
            let context = picEntry.context
            pictures.append(Picture(context: context, target: p.target, parameters: parameters, iqMatrix: iq,
                                    slices: slices, endStatus: p.endStatus ?? 0xFFFF_FFFF))
        }
    }
}

func fourccName(_ v: UInt32) -> String {
    String((0..<4).map { Character(Unicode.Scalar(UInt8((v >> (8 * $0)) & 0xFF))) })
}
