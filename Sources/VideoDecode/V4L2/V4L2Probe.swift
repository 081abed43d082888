/// What the V4L2 stateless HEVC decoders of this machine offer, for `punktfunk-kiosk probe`.
public enum V4L2Probe {
    public struct Report: Encodable, Sendable {
        public var devices: [Device]
        /// Media devices without an HEVC stateless decoder, and why.
        public var skipped: [V4L2Decoders.Skipped]
        /// The device the ladder would use, or why none.
        public var chosen: String?
        public var unavailable: String?
    }

    public struct Device: Encodable, Sendable {
        public var device: V4L2DecoderDevice
        public var isVirtual: Bool
        public var decodesMain: Bool
        public var decodesMain10: Bool

        public func encode(to encoder: any Encoder) throws {
            try device.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(isVirtual, forKey: .isVirtual)
            try c.encode(decodesMain, forKey: .decodesMain)
            try c.encode(decodesMain10, forKey: .decodesMain10)
        }
        enum Keys: String, CodingKey { case isVirtual, decodesMain, decodesMain10 }
    }

    public static func report() -> Report {
        let (devices, skipped) = V4L2Decoders.scan()
        var chosen: String?, unavailable: String?
        do { chosen = try V4L2Decoders.choose().videoPath } catch { unavailable = error.description }
        return Report(devices: devices.map { Device(device: $0, isVirtual: $0.isVirtual, decodesMain: $0.decodesMain,
                                                    decodesMain10: $0.decodesMain10) },
                      skipped: skipped, chosen: chosen, unavailable: unavailable)
    }
}
