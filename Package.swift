// swift-tools-version:6.0
// punktfunk-kiosk — a kiosk Linux client for punktfunk streaming hosts.
// Layers point down only: C shims → PunktfunkWire → PunktfunkSession → media → Kiosk → executables.
// SystemClock sits beside the C shims (every layer that runs a loop may read it; PunktfunkWire,
// which does no I/O, does not). Test hosts, simulations, benchmarks and test-harness hooks live in
// their own targets (PunktfunkTestHost, PacerSimulation, AudioSimulation, KioskHarness,
// punktfunk-bench), never in a product target; only executables and tests depend on them.
// See docs/architecture.md.
import PackageDescription

/// One `systemLibrary` target per C library the later layers reach (DESIGN.md "Dependencies").
/// Each is only a module map + shim header; the Debian `-dev` packages come from
/// `Tests/tools/install-deps.sh`.
let systemLibraries: [Target] = [
    .systemLibrary(name: "CNgtcp2", pkgConfig: "libngtcp2",
                   providers: [.apt(["libngtcp2-dev"])]),
    .systemLibrary(name: "CNgtcp2CryptoGnuTLS", pkgConfig: "libngtcp2_crypto_gnutls",
                   providers: [.apt(["libngtcp2-crypto-gnutls-dev"])]),
    .systemLibrary(name: "CGnuTLS", pkgConfig: "gnutls",
                   providers: [.apt(["libgnutls28-dev"])]),
    .systemLibrary(name: "CSodium", pkgConfig: "libsodium",
                   providers: [.apt(["libsodium-dev"])]),
    .systemLibrary(name: "COpus", pkgConfig: "opus",
                   providers: [.apt(["libopus-dev"])]),
    .systemLibrary(name: "CVA", pkgConfig: "libva-drm",
                   providers: [.apt(["libva-dev"])]),
    .systemLibrary(name: "CDRM", pkgConfig: "libdrm",
                   providers: [.apt(["libdrm-dev"])]),
    .systemLibrary(name: "CAVCodec", pkgConfig: "libavcodec",
                   providers: [.apt(["libavcodec-dev"])]),
    .systemLibrary(name: "CCairo", pkgConfig: "cairo",
                   providers: [.apt(["libcairo2-dev"])]),
    .systemLibrary(name: "CEvdev", pkgConfig: "libevdev",
                   providers: [.apt(["libevdev-dev"])]),
    .systemLibrary(name: "CUdev", pkgConfig: "libudev",
                   providers: [.apt(["libudev-dev"])]),
    .systemLibrary(name: "CALSA", pkgConfig: "alsa",
                   providers: [.apt(["libasound2-dev"])]),
    .systemLibrary(name: "CPango", pkgConfig: "pangocairo",
                   providers: [.apt(["libpango1.0-dev"])]),
    .systemLibrary(name: "CWaylandClient", pkgConfig: "wayland-client",
                   providers: [.apt(["libwayland-dev"])]),
    // libxcb and the extension libraries the module map links (one pkg-config name per target).
    .systemLibrary(name: "CXCB", pkgConfig: "xcb",
                   providers: [.apt(["libxcb1-dev", "libxcb-present-dev", "libxcb-shm0-dev", "libxcb-xinput-dev",
                                     "libxcb-dri3-dev", "libxcb-xfixes0-dev", "libxcb-randr0-dev", "libxcb-xtest0-dev",
                                     "libxcb-ewmh-dev", "libxcb-icccm4-dev", "libxcb-render0-dev"])]),
]

let package = Package(
    name: "punktfunk-kiosk",
    products: [
        .executable(name: "punktfunk-kiosk", targets: ["punktfunk-kiosk"]),
        .executable(name: "punktfunk-bench", targets: ["punktfunk-bench"]),
        .executable(name: "punktfunk-fuzz", targets: ["punktfunk-fuzz"]),
        .executable(name: "pf-testhost", targets: ["pf-testhost"]),
        .executable(name: "pf-relay", targets: ["pf-relay"]),
        .library(name: "PunktfunkWire", targets: ["PunktfunkWire"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    ],
    targets: systemLibraries + [
        // Linux calls the Glibc module cannot reach (recvmmsg/sendmmsg need _GNU_SOURCE).
        .target(name: "CPunktfunkLinux"),
        // The kernel's V4L2 and media-controller ioctls (the V4L2 stateless decoder rung).
        .target(name: "CV4L2"),
        // GF(2^16) multiply-accumulate kernels (SSSE3 / AVX2 on x86-64, NEON on AArch64: nibble
        // tables; portable fallback), chosen at run time by CPU feature; each SIMD file compiles
        // to nothing on the other architecture. The Leopard algorithm itself is Swift.
        .target(
            name: "CPunktfunkFEC",
            cSettings: [.unsafeFlags(["-O3"])]
        ),
        .target(
            name: "PunktfunkWire",
            dependencies: [
                "CPunktfunkFEC",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The receive path runs per packet on class state; dynamic exclusivity checks cost
            // ~15 % of it. Static checking stays on.
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        // CLOCK_MONOTONIC / CLOCK_REALTIME in ns, read in one place; only pumps and loops call it.
        .target(name: "SystemClock"),
        // Sockets, QUIC (ngtcp2 + GnuTLS), identity, handshake and pairing; the system (GnuTLS)
        // media AEAD the receive path runs on.
        .target(
            name: "PunktfunkSession",
            dependencies: [
                "PunktfunkWire", "SystemClock", "CGnuTLS", "CNgtcp2", "CNgtcp2CryptoGnuTLS", "CPunktfunkLinux", "CSodium",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // HEVC bitstream planner: Annex-B, the access unit splitter, parameter sets, slice headers,
        // POC/RPS/DPB. Pure Swift.
        .target(
            name: "HEVC"
        ),
        // The decoded-picture types decoders hand out and the display takes: CPU planes, dma-buf
        // exports and their leases, colour, crop, HDR metadata. No codec, no KMS.
        .target(name: "VideoFrames"),
        .target(name: "VideoDecode", dependencies: ["HEVC", "VideoFrames", "SystemClock", "CAVCodec", "CVA", "CV4L2"]),
        // Session audio: decode (Opus/multistream, RED, PCM) to Float in wire channel order and the
        // adaptive jitter buffer (pure); the ALSA sink on its own thread, device choice (ELD/jack).
        .target(name: "Audio", dependencies: ["PunktfunkWire", "COpus", "CALSA", "SystemClock", "CPunktfunkLinux"]),
        // evdev keyboards, mice and pads (libevdev, libudev hot-plug), their mapping onto the
        // wire's input events, the held-input and escape-chord rules, and DualSense/force-feedback
        // output. The input thread is native; the mapping is pure and unit-tested.
        .target(name: "Input", dependencies: ["PunktfunkWire", "SystemClock", "CEvdev", "CUdev", "CPunktfunkLinux"]),
        // The one seam for "the screen" (protocol `Screen`) and what both backends share: modes,
        // changes, canvas buffers, panel images and the stats overlay (cairo text), the CPU
        // Y′CbCr → RGB conversion, picture geometry, the quit/VT signal watch.
        .target(name: "Screen", dependencies: ["VideoFrames", "SystemClock", "CCairo", "CPunktfunkLinux", "PunktfunkWire"]),
        // The KMS backend: DRM device, atomic presenter, the page-flip pacer, hot-plug, VT.
        .target(name: "Display", dependencies: ["Screen", "VideoFrames", "SystemClock", "CDRM", "CCairo", "CPunktfunkLinux"]),
        // Runs /usr/bin/wayland-scanner on the system's protocol XML at build time (see the plugin
        // for why a prebuild command); CWaylandProtocols compiles what it generates.
        .plugin(name: "WaylandScanner", capability: .buildTool(), path: "Sources/WaylandScanner"),
        .target(name: "CWaylandProtocols", dependencies: ["CWaylandClient"],
                exclude: ["generated"],  // the plugin's symlink: included by protocols.c, not compiled alone
                plugins: ["WaylandScanner"]),
        // The Wayland backend: a fullscreen xdg toplevel, wl_shm and linux-dmabuf buffers,
        // presentation feedback, the compositor's seat (keyboard and mouse as Input's SeatEvents).
        // Never imports the KMS code (`Display`).
        .target(name: "WaylandDisplay", dependencies: ["Screen", "VideoFrames", "SystemClock", "CPunktfunkLinux",
                                                       "CWaylandClient", "CWaylandProtocols", "Input"]),
        // The X11 backend: a fullscreen window (EWMH, or its own with no window manager), Present
        // for pacing and glass times, MIT-SHM (else PutImage) and DRI3 pixmaps, XInput 2 (keyboard
        // and mouse as Input's SeatEvents), the properties gamescope focuses by. Never imports the
        // KMS or Wayland code.
        .target(name: "X11Display", dependencies: ["Screen", "VideoFrames", "SystemClock", "CPunktfunkLinux", "CXCB", "Input"]),
        // The couch shell's drawing: a value-type scene (cards, lists, keys, hint bar) rendered with
        // cairo + pango into an XRGB8888 buffer at any mode, redrawing only what changed.
        .target(name: "Shell", dependencies: ["CCairo", "CPango"]),
        // The app layer: session → decode → present pipeline.
        .target(
            name: "Kiosk",
            dependencies: ["PunktfunkSession", "PunktfunkWire", "VideoDecode", "VideoFrames", "Screen", "HEVC",
                           "Audio", "Input", "Shell", "SystemClock", "CPunktfunkLinux"]
        ),
        // The host side of the wire for tests and `--demo`: HostSession (handshake, admission,
        // pairing, Retry listener, looped AUs through the real packetizer/FEC/AEAD), synthetic and
        // Opus test media, and the embedded demo host with its stream.
        .target(
            name: "PunktfunkTestHost",
            dependencies: [
                "PunktfunkSession", "PunktfunkWire", "HEVC", "Audio", "SystemClock",
                "COpus", "CALSA", "CGnuTLS", "CNgtcp2", "CNgtcp2CryptoGnuTLS",
            ],
            // The --demo stream: 1 s of 640x360 HEVC (libx265, testsrc2), looped by the embedded host.
            resources: [.embedInCode("Resources/demo.hevc")]
        ),
        // The page-flip pacer's trace simulator and wake-up models, for the pacer tests and
        // `punktfunk-bench pacer`.
        .target(name: "PacerSimulation", dependencies: ["Display", "PunktfunkWire"]),
        // Seeded audio arrival traces, the jitter-buffer simulator and the fixed 60 ms baseline,
        // for the audio tests and `punktfunk-bench audio`.
        .target(name: "AudioSimulation", dependencies: ["Audio", "PunktfunkWire"]),
        // `punktfunk-kiosk check`: verdicts, findings and the report (text and JSON), and each
        // section's judging logic as pure functions of recorded observations. No I/O.
        .target(name: "SelfCheck"),
        // The check's decode section: the embedded clips through the VA-API rung and libavcodec,
        // frame by frame, and each rung's decode rate.
        .target(
            name: "SelfCheckDecode",
            dependencies: ["SelfCheck", "VideoDecode", "VideoFrames", "HEVC", "SystemClock"],
            exclude: ["Resources/README.md"],
            resources: [.embedInCode("Resources/main-320x180.hevc"), .embedInCode("Resources/main10-pq-320x180.hevc"),
                        .embedInCode("Resources/resolution-change.hevc"), .embedInCode("Resources/slices-320x180.hevc"),
                        .embedInCode("Resources/rate-1920x1080.hevc")]
        ),
        // `punktfunk-kiosk check` and `probe`'s gathering: what the box offers for each section
        // (read from the kernel, the compositor or X server, ALSA, evdev, the network), `check
        // --display`'s plane tests and flip run, the hello this box would send; judged by SelfCheck.
        .target(
            name: "SelfCheckGather",
            dependencies: ["SelfCheck", "SelfCheckDecode", "Kiosk", "Display", "WaylandDisplay", "X11Display", "Input",
                           "PunktfunkSession", "PunktfunkWire", "HEVC", "VideoDecode", "VideoFrames", "SystemClock", "CALSA"]
        ),
        // Test-harness hooks the VM harness drives through options --help does not show (the
        // screendump handshake, overlay dumps, the vgem dma-buf exporter behind `--dmabuf-via`);
        // never part of the product's behaviour.
        .target(name: "KioskHarness", dependencies: ["Kiosk", "Display", "VideoFrames", "CDRM"]),
        .executableTarget(
            name: "punktfunk-kiosk",
            dependencies: [
                "PunktfunkWire",
                "PunktfunkSession",
                "HEVC",
                "VideoDecode",
                "VideoFrames",
                "Display",
                "WaylandDisplay",
                "X11Display",
                "Kiosk",
                "Input",
                "SystemClock",
                "PunktfunkTestHost",
                "KioskHarness",
                "SelfCheck",
                "SelfCheckDecode",
                "SelfCheckGather",
                "Audio",
                "CALSA",
                "CPunktfunkLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Install/: the systemd unit, console reset and Debian maintainer scripts that
            // Tests/tools/build-deb.sh packages with the binary.
            exclude: ["Install"]
        ),
        .executableTarget(
            name: "punktfunk-bench",
            dependencies: ["PunktfunkWire", "PunktfunkSession", "PunktfunkTestHost", "Display", "PacerSimulation", "Shell",
                           "AudioSimulation", "VideoDecode", "VideoFrames", "HEVC", "SystemClock", "CPunktfunkLinux", "Input",
                           "X11Display", "Screen", "LinkScenario"]
        ),
        // libFuzzer entry points for every decoder that sees network bytes. Built by
        // Tests/tools/fuzz.sh with `-sanitize=fuzzer`; a plain build replays files given on the
        // command line, so it keeps compiling with the rest of the package.
        .executableTarget(
            name: "punktfunk-fuzz",
            dependencies: ["PunktfunkWire", "HEVC", "Audio", "Display"]
        ),
        .executableTarget(name: "pf-testhost", dependencies: ["PunktfunkTestHost", "PunktfunkSession", "PunktfunkWire", "HEVC", "Audio", "SystemClock", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The loss tests' UDP relay on loopback: Gilbert–Elliott burst loss, delay, jitter, reordering,
        // duplication (sans-I/O decisions) and the poll() loop that applies them.
        .target(name: "LossyLink", dependencies: ["PunktfunkWire", "SystemClock"]),
        // `pf-relay`: LossyLink's relay between a client and a host on 127.0.0.1 (no sch_netem here).
        .executableTarget(name: "pf-relay", dependencies: ["LossyLink", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(
            name: "PunktfunkWireTests",
            dependencies: ["PunktfunkWire"]
        ),
        // The ffmpeg CLI as a test oracle, shared by the test targets (which cannot import
        // each other).
        .target(name: "FFmpegOracle", path: "Tests/Support/FFmpegOracle"),
        // pf-testhost → pf-relay → punktfunk-kiosk on loopback as child processes, and what their
        // logs say: the loss and rate scenarios of the session tests and `punktfunk-bench rate`.
        .target(name: "LinkScenario", dependencies: ["FFmpegOracle"], path: "Tests/Support/LinkScenario"),
        // A loopback UDP socket that reads what a sender really sent (magic packets), shared likewise.
        .target(name: "LoopbackListener", path: "Tests/Support/LoopbackListener"),
        .testTarget(
            name: "HEVCTests",
            dependencies: ["HEVC", "FFmpegOracle"]
        ),
        // AudioDecoder against libopus via ffmpeg, multistream channel order, PLC/DTX/RED/PCM, robustness.
        .testTarget(name: "AudioDecodeTests", dependencies: ["Audio", "PunktfunkWire", "FFmpegOracle", "COpus"]),
        .testTarget(name: "VideoDecodeTests", dependencies: ["VideoDecode", "VideoFrames", "HEVC", "FFmpegOracle", "CVA", "CV4L2",
                                                            "SelfCheck", "SelfCheckDecode", "PunktfunkWire"]),
        .testTarget(name: "SelfCheckTests", dependencies: ["SelfCheck"]),
        // The burst-loss model and impairments against their formulas, and the relay over loopback.
        .testTarget(name: "LossyLinkTests", dependencies: ["LossyLink", "PunktfunkWire", "SystemClock"]),
        .testTarget(name: "InputTests", dependencies: ["Input", "PunktfunkWire", "CEvdev"]),
        .testTarget(name: "AudioTests", dependencies: ["Audio", "AudioSimulation", "PunktfunkWire", "SystemClock"]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "Screen", "PacerSimulation", "VideoFrames", "VideoDecode", "PunktfunkWire", "CDRM"]),
        .testTarget(name: "ScreenTests", dependencies: ["Screen", "FFmpegOracle"]),
        .testTarget(name: "ShellTests", dependencies: ["Shell"]),
        .testTarget(name: "WaylandDisplayTests", dependencies: ["WaylandDisplay", "Screen", "VideoFrames", "SystemClock", "Input",
                                                              "PunktfunkWire", "CWaylandClient", "CWaylandProtocols"]),
        .testTarget(name: "X11DisplayTests", dependencies: ["X11Display", "Screen", "VideoFrames", "SystemClock", "Input",
                                                          "PunktfunkWire", "CXCB"]),
        .testTarget(name: "KioskTests", dependencies: ["Kiosk", "Screen", "Shell", "PunktfunkTestHost", "PunktfunkSession", "PunktfunkWire",
                                                      "VideoDecode", "VideoFrames", "SystemClock", "Input", "LoopbackListener"]),
        .testTarget(
            name: "PunktfunkSessionTests",
            dependencies: ["PunktfunkSession", "PunktfunkTestHost", "PunktfunkWire", "SystemClock", "Audio", "FFmpegOracle", "HEVC",
                           "LoopbackListener", "LossyLink", "LinkScenario"]
        ),
        .testTarget(
            name: "CShimTests",
            dependencies: ["CNgtcp2", "CNgtcp2CryptoGnuTLS", "CGnuTLS", "CSodium", "COpus",
                           "CVA", "CDRM", "CAVCodec"]
        ),
    ]
)
