#!/usr/bin/env bash
# Prints the Debian kernel ABI (e.g. 6.1.0-56-amd64) the VM harness boots.
# The pin below is the one place the version is chosen. Debian drops old kernel ABIs from the
# archive, so when apt no longer offers the pinned linux-image, the newest
# linux-image-6.1.0-N-amd64 apt knows is used instead (its headers are installed by install-deps).
set -euo pipefail
pinned=6.1.0-56-amd64

if apt-cache show "linux-image-$pinned" >/dev/null 2>&1; then
  echo "$pinned"
  exit 0
fi
newest=$(apt-cache pkgnames linux-image-6.1.0- 2>/dev/null \
  | grep -E '^linux-image-6\.1\.0-[0-9]+-amd64$' | sed 's/^linux-image-//' | sort -V | tail -1 || true)
# With empty apt lists (fresh machine before apt-get update) nothing is known yet: keep the pin.
echo "${newest:-$pinned}"
