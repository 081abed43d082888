#!/usr/bin/env bash
# Builds both VM guests into the harness's cache ahead of Tests/vm/run.sh, which then finds them
# built: the test command runs this in the background while SwiftPM compiles (kernel package
# downloads, one xz extraction, a few out-of-tree modules and helpers: mostly network, one core).
# Idempotent, as the two scripts it runs; a failure here is the harness's to report (run.sh runs
# them again).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PF_VM_CACHE:-$repo/.build-vm}
mkdir -p "$cache"
cache=$(realpath "$cache")
"$here/build-guest.sh" "$cache" "$("$here/kernel-version.sh")"
"$here/build-v4l2-guest.sh" "$cache" > /dev/null
