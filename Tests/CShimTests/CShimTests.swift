import Testing
import CAVCodec
import CDRM
import CGnuTLS
import CNgtcp2
import CNgtcp2CryptoGnuTLS
import COpus
import CSodium
import CVA

/// Each system-library shim resolves its headers and links: one call into every library.
/// These fail when `Tests/tools/install-deps.sh` misses a package.
@Suite struct CShimTests {
    @Test func ngtcp2IsTheSeriesTheSessionTargets() throws {
        let info = try #require(ngtcp2_version(0))
        let version = String(cString: info.pointee.version_str)
        #expect(version.hasPrefix("0.12") || version.hasPrefix("0.1"), "ngtcp2 \(version)")
    }

    @Test func ngtcp2CryptoConfiguresAGnuTLSClientSession() {
        #expect(gnutls_check_version("3.7.0") != nil)
        var session: gnutls_session_t?
        #expect(gnutls_init(&session, UInt32(GNUTLS_CLIENT)) == 0)
        defer { gnutls_deinit(session) }
        #expect(ngtcp2_crypto_gnutls_configure_client_session(session) == 0)
    }

    @Test func sodium() { #expect(sodium_init() >= 0) }

    @Test func opus() {
        #expect(String(cString: opus_get_version_string()).contains("libopus"))
    }

    @Test func libva() {
        #expect(String(cString: vaErrorStr(VA_STATUS_SUCCESS)) == "success (no error)")
    }

    @Test func libdrm() {
        // 0 or 1 depending on /dev/dri; the call itself is the check.
        #expect([0, 1].contains(drmAvailable()))
    }

    @Test func libavcodec() {
        #expect(avcodec_version() >> 16 >= 59)
        #expect(avcodec_find_decoder(AV_CODEC_ID_HEVC) != nil)
    }
}
