import Foundation
import Glibc
import Testing
@testable import PunktfunkSession

/// Discovery end to end over real multicast: `pf-testhost --mdns` and `punktfunk-kiosk discover`
/// in a private network namespace whose loopback carries multicast (`unshare -n`; needs root —
/// CI runs as root). The host appears with its TXT fields, a hostile packet is counted and
/// ignored, `connect NAME` finds the host by its instance name, a pinned fingerprint marks it
/// known, and the host's goodbye removes it from the list.
@Suite(.serialized) struct DiscoveryNamespaceTests {
    static let unshare = ["/usr/bin/unshare", "/bin/unshare"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let whyNot = "needs root, unshare(1) and ip(8) for a private network namespace (CI runs as root)"

    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)),
          .enabled(if: getuid() == 0 && DiscoveryNamespaceTests.unshare != nil, Comment(rawValue: DiscoveryNamespaceTests.whyNot)))
    func aHostAppearsIsFoundByNameAndLeavesOnItsGoodbye() throws {
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("discovery-ns-\(getpid())")
        try? FileManager.default.removeItem(at: temp)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let bin = PumpExecutableTests.binDirectory.path
        let script = """
            set -u
            export XDG_CONFIG_HOME=\(temp.path)/cfg HOME=\(temp.path)
            ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo || exit 3
            ip -6 route add ff02::/16 dev lo 2>/dev/null
            "\(bin)/punktfunk-kiosk" discover --watch --seconds 120 > \(temp.path)/watch.out 2> \(temp.path)/watch.err &
            watcher=$!
            sleep 0.5
            # A pointer to itself, from a stranger on the link.
            printf '\\x00\\x00\\x84\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\xc0\\x0c\\x00\\x01\\x00\\x01' > /dev/udp/224.0.0.251/5353
            "\(bin)/pf-testhost" --port 0 --bind 127.0.0.1 --sessions 0 --max-seconds 30 --identity-dir \(temp.path)/host \\
                --mdns "Den Box" --mdns-id den-1 --mdns-mac AA-BB-CC-DD-EE-FF 2> \(temp.path)/host.err &
            host=$!
            sleep 1.5
            echo "=== connect"
            "\(bin)/punktfunk-kiosk" connect "den box" --headless --tofu --seconds 1 2>&1 | grep -v '^{"second"'
            echo "=== known"
            "\(bin)/punktfunk-kiosk" discover --seconds 2 --json
            echo "=== wake"
            "\(bin)/punktfunk-kiosk" wake den-1 --wait 3 2>&1
            sleep 1
            kill -TERM $host; wait $host
            echo "=== host exit $?"
            # The watcher prints "- Den Box" on the goodbye (each change is flushed as it is
            # printed); give it 15 s, then end it (SIGKILL: the test runner's children may inherit
            # a blocked SIGTERM).
            for _ in $(seq 150); do grep -q '^- ' \(temp.path)/watch.out && break; sleep 0.1; done
            kill -KILL $watcher; wait $watcher 2>/dev/null
            echo "=== watch"
            cat \(temp.path)/watch.out
            echo "=== watch stderr"
            cat \(temp.path)/watch.err
            """
        let run = try PairingExecutableTests.run(URL(fileURLWithPath: Self.unshare!), ["-n", "bash", "-c", script], environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        let out = run.stdout
        #expect(run.status == 0, "\(run.stderr)\n\(out)")
        func section(_ name: String) -> String {
            guard let start = out.range(of: "=== \(name)\n") else { return "" }
            let rest = out[start.upperBound...]
            return String(rest[..<(rest.range(of: "\n=== ")?.lowerBound ?? rest.endIndex)])
        }
        let watch = section("watch").split(separator: "\n").map(String.init)
        #expect(watch.count == 2, "\(out)")
        #expect(watch.first?.hasPrefix("+ Den Box\tid=den-1\taddresses=127.0.0.1\t") == true, "\(watch)")
        #expect(watch.first?.contains("\tmac=aa:bb:cc:dd:ee:ff\t") == true && watch.first?.contains("\tpair=optional\t") == true, "\(watch)")
        #expect(watch.last == "- Den Box id=den-1", "\(watch)")
        #expect(section("watch stderr").contains("ignored: DNS compression pointer at offset 12 to 12 does not point backwards"), "\(out)")
        #expect(section("connect").contains("\"den box\" is Den Box (id den-1) at 127.0.0.1:"), "\(out)")
        // After --tofu pinned the host's certificate, discovery calls it known by its fingerprint.
        #expect(section("known").contains("\"id\":\"den-1\""), "\(out)")
        #expect(section("known").contains("\"known\":true"), "\(out)")
        // Wake by id: the MAC and address come from the advert; the namespace has no route for
        // 255.255.255.255, so that send is a stderr line while the unicast one works.
        #expect(section("wake").contains("magic packet to 255.255.255.255:9 refused: Network is unreachable"), "\(out)")
        #expect(section("wake").contains("sent magic packet for aa:bb:cc:dd:ee:ff to 127.0.0.1:9"), "\(out)")
        #expect(section("wake").contains("Den Box (id den-1) is awake at 127.0.0.1"), "\(out)")
        #expect(out.contains("=== host exit 143"), "the host ends on SIGTERM after its goodbye: \(out)")
    }

    /// IPv6 alone: a veth pair with only link-local IPv6 addresses (loopback multicast is off, so
    /// no IPv4 multicast path exists); queries, answers and the goodbye travel on ff02::fb.
    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)),
          .enabled(if: getuid() == 0 && DiscoveryNamespaceTests.unshare != nil, Comment(rawValue: DiscoveryNamespaceTests.whyNot)))
    func discoveryWorksOverIPv6Alone() throws {
        let bin = PumpExecutableTests.binDirectory.path
        let script = """
            set -u
            ip link set lo up
            sysctl -qw net.ipv6.conf.default.accept_dad=0 || exit 3
            ip link add v0 type veth peer name v1 && ip link set v0 up && ip link set v1 up || exit 3
            for _ in $(seq 50); do [ "$(ip -6 addr show scope link | grep -c fe80)" -ge 2 ] && break; sleep 0.1; done
            "\(bin)/pf-testhost" --port 0 --bind 127.0.0.1 --sessions 0 --max-seconds 30 --mdns "Six Box" --mdns-id six-1 2>/dev/null &
            host=$!
            sleep 1
            echo "=== found"
            "\(bin)/punktfunk-kiosk" discover --seconds 2 2>&1
            kill -TERM $host; wait $host
            echo "=== after goodbye"
            "\(bin)/punktfunk-kiosk" discover --seconds 1.5 2>/dev/null
            """
        let run = try PairingExecutableTests.run(URL(fileURLWithPath: Self.unshare!), ["-n", "bash", "-c", script],
                                                 environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        #expect(run.status == 0, "\(run.stderr)\n\(run.stdout)")
        #expect(run.stdout.contains("=== found\nSix Box\tid=six-1\taddresses=127.0.0.1\t"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("=== after goodbye\n"), "\(run.stdout)")
    }

    /// The fallback path end to end: one-shot (legacy unicast) queries from an ephemeral port find
    /// the host through its unicast answers (TTL ≤ 10 s), and without goodbyes a host that stops
    /// answering leaves the list within about those 10 s.
    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)),
          .enabled(if: getuid() == 0 && DiscoveryNamespaceTests.unshare != nil, Comment(rawValue: DiscoveryNamespaceTests.whyNot)))
    func oneShotQueriesFindAHostAndLoseItByExpiry() throws {
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("oneshot-ns-\(getpid())")
        try? FileManager.default.removeItem(at: temp)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let bin = PumpExecutableTests.binDirectory.path
        let script = """
            set -u
            ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo || exit 3
            "\(bin)/pf-testhost" --port 0 --bind 127.0.0.1 --sessions 0 --max-seconds 60 --mdns "One Box" --mdns-id one-1 2>/dev/null &
            host=$!
            sleep 1
            "\(bin)/punktfunk-kiosk" discover --one-shot --watch --seconds 60 > \(temp.path)/watch.out 2> \(temp.path)/watch.err &
            watcher=$!
            for _ in $(seq 50); do grep -q '^+ ' \(temp.path)/watch.out && break; sleep 0.1; done
            kill -TERM $host; wait $host
            waited=0
            for _ in $(seq 200); do grep -q '^- ' \(temp.path)/watch.out && break; sleep 0.1; waited=$((waited + 1)); done
            kill -KILL $watcher; wait $watcher 2>/dev/null
            echo "=== gone after $waited"
            echo "=== watch"; cat \(temp.path)/watch.out
            echo "=== stderr"; cat \(temp.path)/watch.err
            """
        let run = try PairingExecutableTests.run(URL(fileURLWithPath: Self.unshare!), ["-n", "bash", "-c", script],
                                                 environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        let out = run.stdout
        #expect(out.contains("using one-shot queries from an ephemeral port"), "\(out)")
        #expect(out.contains("+ One Box\tid=one-1\taddresses=127.0.0.1\t"), "\(out)")
        #expect(out.contains("- One Box id=one-1"), "\(out)")
        let waited = out.components(separatedBy: "=== gone after ").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? .max
        #expect(waited <= 125, "left the list \(waited) tenths of a second after the host stopped: \(out)")
    }

    /// Boot-to-stream: the kiosk starts with `autoconnect` (and the host's pinned fingerprint)
    /// before the host is up, finds it by discovery once it announces, streams it (headless here:
    /// no display), and saves the addresses and MAC it learnt into the config.
    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)),
          .enabled(if: getuid() == 0 && DiscoveryNamespaceTests.unshare != nil, Comment(rawValue: DiscoveryNamespaceTests.whyNot)))
    func autoconnectFindsAHostThatComesUpLaterAndStreamsIt() throws {
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("autoconnect-ns-\(getpid())")
        try? FileManager.default.removeItem(at: temp)
        try FileManager.default.createDirectory(at: temp.appendingPathComponent("cfg/punktfunk-kiosk"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PunktfunkTestHost/Resources/demo.hevc").path
        // The host's identity made up front, so its fingerprint can be pinned in the config.
        let identity = try TLSIdentity.loadOrCreate(in: temp.appendingPathComponent("host"), commonName: TLSIdentity.hostCommonName)
        try "autoconnect = den-1\ndecoder = software\nhost.den-1.fp = \(identity.fingerprint)\n".write(to: temp.appendingPathComponent("cfg/punktfunk-kiosk/config"), atomically: true, encoding: .utf8)
        let bin = PumpExecutableTests.binDirectory.path
        let script = """
            set -u
            export XDG_CONFIG_HOME=\(temp.path)/cfg HOME=\(temp.path)
            ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo || exit 3
            "\(bin)/punktfunk-kiosk" --seconds 2 --retry-seconds 1 > \(temp.path)/kiosk.out 2> \(temp.path)/kiosk.err &
            kiosk=$!
            sleep 1.5
            "\(bin)/pf-testhost" --port 0 --bind 127.0.0.1 --sessions 0 --max-seconds 30 --hevc "\(demo)" --identity-dir \(temp.path)/host \\
                --mdns "Den Box" --mdns-id den-1 --mdns-mac 02:00:00:00:00:07 2> \(temp.path)/host.err &
            host=$!
            wait $kiosk
            echo "=== kiosk exit $?"
            kill -TERM $host; wait $host
            echo "=== kiosk stdout"; cat \(temp.path)/kiosk.out
            echo "=== kiosk stderr"; cat \(temp.path)/kiosk.err
            echo "=== config"; cat \(temp.path)/cfg/punktfunk-kiosk/config
            """
        let run = try PairingExecutableTests.run(URL(fileURLWithPath: Self.unshare!), ["-n", "bash", "-c", script],
                                                 environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        let out = run.stdout
        #expect(out.contains("=== kiosk exit 0"), "\(out)")
        #expect(out.contains("punktfunk-kiosk: found Den Box (id den-1) at 127.0.0.1:"), "\(out)")
        // Headless stats lines with decoded pictures.
        let stats = out.split(separator: "\n").filter { $0.hasPrefix("{\"second\":") }
        #expect(!stats.isEmpty, "\(out)")
        #expect(out.contains("host.den-1.addresses = 127.0.0.1"), "\(out)")
        #expect(out.contains("host.den-1.macs = 02:00:00:00:00:07"), "\(out)")
        #expect(out.contains("autoconnect = den-1"), "\(out)")
    }

    /// Where 5353 cannot be shared (a socket holds it without SO_REUSEADDR), the browser falls back
    /// to one-shot queries from an ephemeral port; a responder must own the port and refuses.
    @Test func anUnsharablePortFallsBackToOneShotQueries() throws {
        let blocker = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(blocker) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        let bound = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(blocker, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(blocker, $0, &length) } }
        let port = UInt16(bigEndian: sin.sin_port)
        let socket = try MDNSSocket(port: port)
        #expect(socket.mode == .oneShot)
        #expect(socket.notes.first?.contains("using one-shot queries") == true, "\(socket.notes)")
        #expect(throws: QuicError.self) { try MDNSSocket(port: port, allowOneShot: false) }
        // And with nothing in the way the same port is shared.
        close(blocker)
        #expect(try MDNSSocket(port: port).mode == .shared)
    }
}
