#!/usr/bin/env bash
# The whole test suite, as a newcomer runs it: installs dependencies, builds, runs every
# libFuzzer target for a bounded number of executions, then the unit/property/vector tests.
set -euo pipefail
cd "$(dirname "$0")/../.."

Tests/tools/install-deps.sh
# The VM harness's two guests are built while SwiftPM compiles; the harness (last) waits for them.
mkdir -p .build-vm
Tests/vm/prepare.sh > .build-vm/prepare.log 2>&1 &
vm_prepare=$!
swift build --build-tests
Tests/tools/fuzz.sh
swift test --skip-build --skip RateScenarioTests
# The rate loop's scenarios time 25 ms probe steps and a 100 ms queue on loopback: they run on
# their own, after the parallel run, so that no other suite's processes starve the host, the
# relay or the kiosk into arrival gaps the loop reads as outages.
swift test --skip-build --filter RateScenarioTests
Tests/aarch64/run.sh     # the C targets built for AArch64 (SwiftPM and gcc), the NEON FEC kernel bit-exact under qemu-aarch64-static
# The release kiosk for the Wayland harness's timing cases (pacing, CPU-scaled pictures), the
# Debian package and the VM harness (which find it built): one build, as the package ships it
# (Swift runtime linked in), so the harnesses test the binary users get. Every release build here
# takes the same flags (fuzz.sh adds only swiftc's): another flag set would compile every module,
# BoringSSL's C included, again. After fuzz.sh only the Swift modules are compiled again here.
swift build -c release --static-swift-stdlib --product punktfunk-kiosk
swift build -c release --static-swift-stdlib --product pf-testhost
swift build -c release --static-swift-stdlib --product pf-relay   # the VM harness's loss check: the lossy UDP relay between pf-testhost and the kiosk
PF_WL_KIOSK=.build/release/punktfunk-kiosk Tests/wayland/run.sh   # headless sway, weston, cage, KWin, mutter (as the test user wltest when root); about four minutes
wait "$vm_prepare" || echo "test: preparing the VM guests failed (.build-vm/prepare.log); the VM harness builds them again" >&2
# The v4l2 boot (visl on the 6.12 kernel; it judges pictures and controls, never time) runs beside
# the Debian package's checks, which judge files; the main boot, whose checks time frames, starts
# only once both are done.
(Tests/vm/run-v4l2.sh "$PWD/.build-vm" "$PWD/.build/release/punktfunk-kiosk" > .build-vm/v4l2.out 2>&1; echo $? > .build-vm/v4l2.rc) &
vm_v4l2=$!
Tests/tools/build-deb.sh --check   # the Debian package: lintian (no errors), systemd-analyze verify on the unit, desktop-file-validate, no keyboard/mouse uaccess in its udev rules
wait "$vm_v4l2"
cat .build-vm/v4l2.out
PF_VM_SKIP_V4L2=1 Tests/vm/run.sh   # KMS glass/pacing/restore/probe checks in one QEMU boot (the release builds above)
[ "$(cat .build-vm/v4l2.rc)" = 0 ] || { echo "test: the v4l2 boot failed (above)" >&2; exit 1; }
