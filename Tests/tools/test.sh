#!/usr/bin/env bash
# The whole test suite, as a newcomer runs it: installs dependencies, builds, runs every
# libFuzzer target for a bounded number of executions, then the unit/property/vector tests.
set -euo pipefail
cd "$(dirname "$0")/../.."

Tests/tools/install-deps.sh
swift build --build-tests
Tests/tools/fuzz.sh
swift test --skip-build
Tests/aarch64/run.sh     # the C targets built for AArch64 (SwiftPM and gcc), the NEON FEC kernel bit-exact under qemu-aarch64-static
Tests/wayland/run.sh     # under headless sway, weston and cage (as the test user wltest when root); about a minute
Tests/tools/build-deb.sh --check   # the Debian package: lintian (no errors), systemd-analyze verify on the unit, desktop-file-validate, no keyboard/mouse uaccess in its udev rules
Tests/vm/run.sh          # KMS glass/pacing/restore/probe checks in one QEMU boot (builds a release kiosk)
