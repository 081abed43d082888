import Screen
import VideoFrames

/// Whether a KMS connector can take HDR10 to its sink: the connector offers a writable
/// `HDR_OUTPUT_METADATA` blob and a writable `Colorspace` with a BT.2020 enum (the properties
/// `HDROutput` sets), and the sink's EDID (the connector's `EDID` blob) lists SMPTE ST 2084 (PQ)
/// in its HDR Static Metadata Data Block. Then the capability carries the panel's metadata
/// (`EDIDHDRFacts.panelMetadata`); otherwise one sentence says which condition failed first.
public enum SinkHDRCapability {
    public static func decide(metadataProperty: PropertyInfo?, colorspaceProperty: PropertyInfo?,
                              edid: [UInt8]?) -> ScreenHDRCapability {
        guard let mp = metadataProperty, mp.isBlob, !mp.immutable else {
            return .none(reason: "the connector has no HDR_OUTPUT_METADATA")
        }
        guard let cp = colorspaceProperty, !cp.immutable, cp.enums["Default"] != nil,
              HDROutput.colorspaceNames.contains(where: { cp.enums[$0] != nil }) else {
            return .none(reason: "the connector has no Colorspace with BT2020")
        }
        guard let edid, !edid.isEmpty else { return .none(reason: "the connector has no EDID") }
        guard let facts = EDIDHDRFacts(edid: edid) else { return .none(reason: "the TV's EDID is not readable") }
        guard let block = facts.hdrStaticMetadata else {
            return .none(reason: "the TV's EDID has no HDR static metadata block")
        }
        guard block.eotfs.contains(.pq) else {
            return .none(reason: "the TV's EDID lists no PQ (EOTFs: \(block.eotfs.names.joined(separator: ", ")))")
        }
        return .hdr10(facts.panelMetadata)
    }

    /// JSON member value for `probe`: `{"capability":"hdr10"|"none","reason":…|null,
    /// "panel_metadata":{…}|null,"edid":{EDIDHDRFacts.json}|null}`; panel metadata fields are
    /// HDRStaticMetadata's (primaries in 1/50000, peak/CLL/FALL cd/m², black 0.0001 cd/m²).
    public static func json(_ capability: ScreenHDRCapability, edid: [UInt8]?) -> String {
        let facts = edid.flatMap(EDIDHDRFacts.init(edid:))
        let head: String
        switch capability {
        case .hdr10(let m):
            func c(_ p: HDRStaticMetadata.Chromaticity) -> String { "[\(p.x),\(p.y)]" }
            head = "\"capability\":\"hdr10\",\"reason\":null,\"panel_metadata\":{\"red\":\(c(m.red)),\"green\":\(c(m.green)),"
                + "\"blue\":\(c(m.blue)),\"white\":\(c(m.whitePoint)),\"max_luminance\":\(m.maxMasteringLuminance),"
                + "\"min_luminance\":\(m.minMasteringLuminance),\"max_cll\":\(m.maxCLL),\"max_fall\":\(m.maxFALL)}"
        case .none(let reason):
            head = "\"capability\":\"none\",\"reason\":\(JSON.string(reason)),\"panel_metadata\":null"
        }
        return "{\(head),\"edid\":\(facts?.json ?? "null")}"
    }
}

extension DRMDevice {
    /// The connector's HDR capability as read now (properties and EDID blob), and the EDID bytes.
    func hdrCapability(connector id: UInt32) -> (capability: ScreenHDRCapability, edid: [UInt8]?) {
        let props = connectorProperties(id)
        let edid = props["EDID"].flatMap { blob($0.value) }
        return (SinkHDRCapability.decide(metadataProperty: props["HDR_OUTPUT_METADATA"],
                                         colorspaceProperty: props["Colorspace"], edid: edid), edid)
    }
}
