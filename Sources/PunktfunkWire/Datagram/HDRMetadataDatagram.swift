/// Static HDR metadata, tag 0xCE: `CE ‖ 28-byte HDRMetadata body` (data-plane.md §7.4;
/// punktfunk/2 kind 0x09). Re-sent by the host on keyframes; omitted for HLG. Bytes past the
/// 29th are ignored.
public struct HDRMetadataDatagram: TaggedDatagram, Hashable {
    public static let tag: UInt8 = 0xCE
    public static let encodedLength = 1 + HDRMetadata.encodedLength

    public var metadata: HDRMetadata

    public init(_ metadata: HDRMetadata) { self.metadata = metadata }

    public func encode(into w: inout WireWriter) {
        w.writeByte(Self.tag)
        w.writeBytes(metadata.encoded)
    }

    public static func decode(from r: inout WireReader) throws(WireError) -> HDRMetadataDatagram {
        try r.readTag(tag)
        return HDRMetadataDatagram(try HDRMetadata(decoding: try r.readSlice(HDRMetadata.encodedLength)))
    }
}
