internal import COpus
import PunktfunkWire

/// Decodes one session audio stream — Opus and Opus multistream (0xC9), RED (0xD2) and PCM
/// (0xD3), data-plane.md §5 — to interleaved `Float` samples in the wire channel order
/// FL FR FC LFE RL RR SL SR (first `channels` of them), nominal full scale ±1.0.
///
/// Output format: Float32, because it is what libopus computes natively (the Int16 API
/// soft-clips and rounds on top) and what later cross-fades and drift correction want. Opus
/// output is at 48 kHz; PCM output is at the session rate (`sampleRate`), never resampled.
///
/// Output goes into a buffer the caller owns and reuses; a decode allocates nothing. A buffer
/// of `maxSamplesPerPacket` floats takes any legal packet; a smaller one turns longer packets
/// into `.oversize`. Every method returns frames (samples per channel) written from the
/// buffer's start; samples beyond `frames × channels` are untouched.
///
/// - Empty payload (DTX): returns 0, writes nothing and does not touch the Opus state — no
///   PLC runs. The caller plays silence for the frame's duration (5 ms on the Opus plane).
/// - Lost packet: `conceal(frames:into:)` runs libopus PLC for exactly that many frames (240
///   for one 5 ms packet; PCM gets silence). With RED, decode the next datagram's previous
///   copy instead (`decodeRedundantCopy(of:into:)`) — before its primary, since Opus decoding
///   is stateful and packets must go in in sequence order.
/// - Malformed input (`AudioError` input cases) skips the packet, counts it in
///   `counters.malformedPackets` and leaves the decoder as it was: libopus validates a whole
///   multistream packet before any stream's state changes. No input traps.
///
/// Owns its `OpusMSDecoder` (Opus formats) and frees it in `deinit`. Not thread-safe: use from
/// one thread at a time.
public final class AudioDecoder {
    public let format: AudioStreamFormat
    /// Interleaved output channels (2, 6 or 8 for session formats).
    public let channels: Int
    /// Output frames per second: 48 000 on Opus, the session's `audio_rate_hz` on PCM.
    public let sampleRate: Int
    /// 120 ms at `sampleRate`; longer packets are `.oversize`.
    public let maxFramesPerPacket: Int
    /// Size the output buffer with this to take any legal packet.
    public var maxSamplesPerPacket: Int { maxFramesPerPacket * channels }
    public private(set) var counters = DecodeCounters()

    /// libopus decoder for `.opus` formats; nil for PCM. Owned: destroyed in deinit.
    private let opus: OpaquePointer?
    /// PCM: 2 or 3; 0 on Opus.
    private let pcmBytesPerSample: Int

    /// The libopus PLC granule: 2.5 ms at 48 kHz (`opus_decode_native` refuses other
    /// durations without data).
    public static let opusConcealGranule = 120

    /// - Throws: `.unsupportedPCM` for a PCM format without channels, or with a depth or rate
    ///   the plane does not use; `.opus` if libopus cannot build the decoder.
    public init(format: AudioStreamFormat) throws(AudioError) {
        try format.validate()
        self.format = format
        channels = format.channels
        sampleRate = format.sampleRate
        maxFramesPerPacket = format.maxFramesPerPacket
        switch format {
        case .opus(let layout):
            var error: Int32 = 0
            // OpusLayout's invariant: mapping.count == channels ≥ 1, so the base address exists.
            let decoder = layout.mapping.withUnsafeBufferPointer { mapping in
                opus_multistream_decoder_create(Int32(AudioStreamFormat.opusRateHz), Int32(layout.channels),
                                                Int32(layout.streams), Int32(layout.coupledStreams),
                                                mapping.baseAddress!, &error)
            }
            guard let decoder, error == OPUS_OK else {
                if let decoder { opus_multistream_decoder_destroy(decoder) }
                throw .opus(call: "opus_multistream_decoder_create", code: error)
            }
            opus = decoder   // owned from here; destroyed in deinit
            pcmBytesPerSample = 0
        case .pcm(_, _, let bits):
            opus = nil
            pcmBytesPerSample = bits / 8
        }
    }

    /// The decoder for the session a ServerHello resolved.
    public convenience init(serverHello: ServerHello) throws(AudioError) {
        try self.init(format: AudioStreamFormat(serverHello: serverHello))
    }

    deinit { if let opus { opus_multistream_decoder_destroy(opus) } }

    // MARK: Decoding

    /// Decodes one payload: an Opus packet (Opus formats) or raw PCM (PCM formats).
    /// - Returns: frames written to `output` (0 for DTX).
    /// - Throws: an input error (the packet is skipped and counted as malformed).
    public func decode(_ payload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Float>) throws(AudioError) -> Int {
        guard !payload.isEmpty else {
            counters.dtxPackets += 1
            return 0
        }
        let frames: Int
        do throws(AudioError) {
            frames = opus != nil ? try decodeOpus(payload, into: output) : try decodePCM(payload, into: output)
        } catch {
            counters.malformedPackets += 1
            throw error
        }
        counters.decodedPackets += 1
        counters.decodedFrames += UInt64(frames)
        return frames
    }

    /// `decode(_:into:)` over arrays; `output` keeps its count (size it once, reuse it).
    public func decode(_ payload: [UInt8], into output: inout [Float]) throws(AudioError) -> Int {
        try Self.withBuffers(payload, &output) { p, o throws(AudioError) in try decode(p, into: o) }
    }

    /// Decodes one audio datagram as the session delivers it: the payload of 0xC9, the primary
    /// of 0xD2 (Opus formats), the samples of 0xD3 (PCM formats).
    /// - Throws: `.unexpectedPacket` (counted as malformed) for pad audio, mic, or the other
    ///   plane's tag; otherwise as `decode(_:into:)`.
    public func decode(_ packet: AudioPacket, into output: inout [Float]) throws(AudioError) -> Int {
        switch (packet, opus != nil) {
        case (.opus(let f), true), (.pcm(let f), false): return try decode(f.payload, into: &output)
        case (.redundant(let f), true): return try decode(f.primary, into: &output)
        default:
            counters.malformedPackets += 1
            throw .unexpectedPacket(tag: packet.tag)
        }
    }

    /// Decodes the copy of frame `seq − 1` that a 0xD2 datagram carries, for a caller that lost
    /// that frame's own datagram: call this before decoding `frame`'s primary, in place of
    /// `conceal(frames:)` for the lost packet.
    /// - Returns: frames written, or nil when the datagram carries no copy (first frame,
    ///   capture reopen, or a DTX predecessor) — conceal instead. nil counts nothing.
    /// - Throws: as `decode(_:into:)`; `.unexpectedPacket(tag: 0xD2)` on a PCM decoder.
    public func decodeRedundantCopy(of frame: RedundantAudioFrame, into output: inout [Float]) throws(AudioError) -> Int? {
        guard opus != nil else {
            counters.malformedPackets += 1
            throw .unexpectedPacket(tag: AudioPacket.redundantTag)
        }
        guard frame.hasPrevious else { return nil }
        let frames = try decode(frame.previous, into: &output)
        counters.redundantPackets += 1
        return frames
    }

    // MARK: Concealment

    /// Fills `frames` frames for audio that never arrived: libopus PLC on Opus (extrapolated
    /// from the decoder's state, which it advances), silence on PCM (raw frames carry nothing
    /// to extrapolate from).
    /// - Precondition: none; a bad count throws.
    /// - Returns: `frames`.
    /// - Throws: `.concealDuration` for a negative count or (Opus) one that is not a multiple of
    ///   `opusConcealGranule`; `.oversize` when `output` holds fewer frames. Nothing is written
    ///   or counted then.
    public func conceal(frames: Int, into output: UnsafeMutableBufferPointer<Float>) throws(AudioError) -> Int {
        guard frames >= 0, opus == nil || frames % Self.opusConcealGranule == 0 else {
            throw .concealDuration(frames: frames)
        }
        guard frames <= output.count / channels else { throw .oversize(frames: frames, limit: output.count / channels) }
        guard frames > 0, let base = output.baseAddress else { return 0 }
        if let opus {
            // libopus caps one PLC call at 120 ms; longer gaps run in 120 ms pieces. (Each call
            // puts 2 × chunk floats of scratch on the stack.)
            var done = 0
            while done < frames {
                let chunk = min(frames - done, AudioStreamFormat.opusRateHz * 120 / 1000)
                let n = opus_multistream_decode_float(opus, nil, 0, base + done * channels, Int32(chunk), 0)
                guard n == Int32(chunk) else { throw .opus(call: "opus_multistream_decode_float (PLC)", code: n) }
                done += chunk
            }
        } else {
            base.update(repeating: 0, count: frames * channels)
        }
        counters.concealedFrames += UInt64(frames)
        return frames
    }

    /// `conceal(frames:into:)` over an array; `output` keeps its count.
    public func conceal(frames: Int, into output: inout [Float]) throws(AudioError) -> Int {
        let result: Result<Int, AudioError> = output.withUnsafeMutableBufferPointer { o in
            Result { () throws(AudioError) -> Int in try conceal(frames: frames, into: o) }
        }
        return try result.get()
    }

    // MARK: Codecs

    /// One Opus (multistream) packet. The duration check runs first so a packet over 120 ms
    /// or over the buffer is `.oversize` rather than libopus' generic invalid-packet code.
    private func decodeOpus(_ payload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Float>) throws(AudioError) -> Int {
        // `decode` passes only non-empty payloads, so the base address exists.
        guard let opus, payload.count <= Int(Int32.max), let data = payload.bindMemory(to: UInt8.self).baseAddress else {
            throw .invalidOpusPacket(bytes: payload.count)
        }
        let length = Int32(payload.count)
        // The first stream's TOC gives the packet's duration: in a multistream packet its
        // self-delimited framing keeps the TOC and frame-count byte where RFC 6716 §3 has them.
        let count = opus_packet_get_nb_frames(data, length)
        let perFrame = opus_packet_get_samples_per_frame(data, Int32(AudioStreamFormat.opusRateHz))
        // RFC 6716 §3.2.5: a code 3 packet of zero frames is invalid.
        guard count > 0 else { throw .invalidOpusPacket(bytes: payload.count) }
        let frames = Int(count) * Int(perFrame)
        let capacity = min(output.count / channels, maxFramesPerPacket)
        guard frames <= maxFramesPerPacket else { throw .oversize(frames: frames, limit: maxFramesPerPacket) }
        guard frames <= capacity, let out = output.baseAddress else { throw .oversize(frames: frames, limit: capacity) }
        // Pass the packet's own duration, not the buffer's: libopus puts 2 × frame_size floats
        // of scratch on the calling thread's stack.
        let n = opus_multistream_decode_float(opus, data, length, out, Int32(frames), 0)
        switch n {
        case 0...: return Int(n)
        case OPUS_INVALID_PACKET: throw .invalidOpusPacket(bytes: payload.count)
        case OPUS_BUFFER_TOO_SMALL: throw .oversize(frames: frames, limit: capacity)
        default: throw .opus(call: "opus_multistream_decode_float", code: n)
        }
    }

    /// Interleaved little-endian signed PCM → Float. Scale 1/(2^(bits−1) − 1), the host's
    /// symmetric full scale (`pcm.rs` `full_scale`: it never sends −2^(bits−1)), so what the
    /// host quantised from a float comes back exactly; the unused most negative code decodes
    /// to just below −1.0 (−1.0000305 at 16 bits).
    private func decodePCM(_ payload: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Float>) throws(AudioError) -> Int {
        let frameBytes = pcmBytesPerSample * channels
        guard payload.count % frameBytes == 0 else { throw .pcmLength(bytes: payload.count, frameBytes: frameBytes) }
        let frames = payload.count / frameBytes
        let capacity = min(output.count / channels, maxFramesPerPacket)
        guard frames <= maxFramesPerPacket else { throw .oversize(frames: frames, limit: maxFramesPerPacket) }
        guard frames <= capacity else { throw .oversize(frames: frames, limit: capacity) }
        let samples = frames * channels
        if pcmBytesPerSample == 2 {
            let scale: Float = 1 / 32_767
            for i in 0..<samples {
                let v = Int16(littleEndian: payload.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))
                output[i] = Float(v) * scale
            }
        } else {
            let scale: Float = 1 / 8_388_607
            for i in 0..<samples {
                let o = 3 * i
                // Sign-extend: the sample into the top three bytes, arithmetic shift down.
                let v = Int32(bitPattern: UInt32(payload[o]) << 8 | UInt32(payload[o + 1]) << 16 | UInt32(payload[o + 2]) << 24) >> 8
                output[i] = Float(v) * scale
            }
        }
        return frames
    }

    private static func withBuffers<R>(_ payload: [UInt8], _ output: inout [Float],
                                       _ body: (UnsafeRawBufferPointer, UnsafeMutableBufferPointer<Float>) throws(AudioError) -> R) throws(AudioError) -> R {
        let result: Result<R, AudioError> = payload.withUnsafeBytes { p in
            output.withUnsafeMutableBufferPointer { o in Result { () throws(AudioError) -> R in try body(p, o) } }
        }
        return try result.get()
    }
}
