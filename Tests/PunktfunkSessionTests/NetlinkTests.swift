import Testing
import PunktfunkWire
@testable import PunktfunkSession

/// Netlink as the kernel lays it out (linux/netlink.h, genetlink.h), and the real kernel's
/// generic netlink controller answering the codec's own request.
@Suite struct NetlinkTests {
    @Test func aRequestIsLaidOutAsTheKernelReadsIt() {
        // CTRL_CMD_GETFAMILY (3) to GENL_ID_CTRL (0x10), REQUEST|ACK, seq 7, CTRL_ATTR_FAMILY_NAME
        // (2) "nl80211\0": nlmsghdr (len 32), genlmsghdr (3, version 1), one 12-byte attribute.
        let m = NetlinkCodec.generic(family: 0x10, command: 3, flags: 0x5, sequence: 7,
                                     attributes: [(2, Array("nl80211".utf8) + [0])])
        #expect(m == [32, 0, 0, 0, 0x10, 0, 5, 0, 7, 0, 0, 0, 0, 0, 0, 0,
                      3, 1, 0, 0,
                      12, 0, 2, 0] + Array("nl80211".utf8) + [0])
        // An odd-length attribute is padded to 4 bytes; the length field does not count the pad.
        #expect(NetlinkCodec.attribute(5, [1, 2, 3]) == [7, 0, 5, 0, 1, 2, 3, 0])
    }

    @Test func attributesNestedFlaggedAndMalformed() {
        // A nested attribute (type 21 | NLA_F_NESTED 0x8000) holding s8 signal −52 (type 7) and a
        // u32 (type 12) = 3, then an attribute whose length runs past the end (dropped).
        let inner = NetlinkCodec.attribute(7, [0xCC]) + NetlinkCodec.attribute(12, NetlinkCodec.le32(3))
        var bytes = NetlinkCodec.attribute(21 | 0x8000, inner)
        bytes += [40, 0, 9, 0, 1, 2]
        let a = NetlinkCodec.Attributes(bytes[...])
        let info = a.nested(21)
        #expect(info?.s8(7) == -52 && info?.u32(12) == 3)
        #expect(a[9] == nil)
    }

    @Test func messagesSplitAndErrorsRead() {
        // NLMSG_ERROR (2) with error −1 (EPERM), then NLMSG_DONE (3): two 20-byte messages.
        var bytes: [UInt8] = [20, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0] + NetlinkCodec.le32(UInt32(bitPattern: -1))
        bytes += [20, 0, 0, 0, 3, 0, 2, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let ms = NetlinkCodec.messages(bytes[...])
        #expect(ms.count == 2 && ms[0].errorCode == -1 && ms[1].type == NetlinkCodec.done && ms[1].sequence == 9)
    }

    /// The kernel's controller names itself: family "nlctrl" is GENL_ID_CTRL (0x10) with the
    /// multicast group "notify" (net/netlink/genetlink.c), no privilege needed.
    @Test func theKernelsControllerAnswers() throws {
        let nl = try GenericNetlink()
        let ctrl = try nl.family("nlctrl")
        #expect(ctrl.id == 0x10)
        #expect(ctrl.groups["notify"] != nil, "groups \(ctrl.groups)")
        // A family the kernel does not have is the kernel's ENOENT, a sentence, not a crash.
        #expect(throws: GenericNetlink.Failure.self) { try nl.family("pf-no-such-family") }
    }
}
