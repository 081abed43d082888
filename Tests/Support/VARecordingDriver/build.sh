#!/bin/sh
# Builds the VA recording driver (a test fake) as OUT_DIR/varecord_drv_video.so.
# Usage: build.sh OUT_DIR. The tests run the same command themselves.
set -eu
out="${1:?usage: build.sh OUT_DIR}"
mkdir -p "$out"
cc -std=c11 -O1 -Wall -Wextra -Werror -shared -fPIC -o "$out/varecord_drv_video.so" \
   "$(dirname "$0")/va_recording_driver.c" -lva -lpthread
