#!/usr/bin/env bash
# Builds the Debian package: Tests/tools/build-deb.sh [--check]
#   → .build-deb/punktfunk-kiosk_<version>_<arch>.deb (path printed on stdout)
# PF_DEB_BINARY=path packages that binary instead of building one.
# It holds the release binary (Swift runtime linked in statically), the systemd unit template
# punktfunk-kiosk@.service and its console reset, every udev/*.rules file, the desktop entry, the
# docs, the man page, and the maintainer scripts that create the `kiosk` system user
# (Sources/punktfunk-kiosk/Install/). With --check it then runs lintian (no errors allowed),
# `systemd-analyze verify` on the unit, `desktop-file-validate` on the desktop entry, and
# check-udev-rules.sh on the udev rules as the package holds them (no keyboard or mouse
# `uaccess`), as the test command does. The script lives under Tests/tools because the top level holds only
# Package.swift, Sources/, Tests/, udev/, docs/, README.md and .ci/.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
out=.build-deb
install_dir=Sources/punktfunk-kiosk/Install

arch=$(dpkg --print-architecture)
stamp=$(git log -1 --format=%cd --date=format:%Y%m%d 2>/dev/null || date +%Y%m%d)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
version="0.1.0+git${stamp}.${commit}"

# The release build of the test command (Tests/tools/test.sh), same scratch path and flags: after
# it this only links.
release=(swift build -c release --static-swift-stdlib)
if [ -n "${PF_DEB_BINARY:-}" ]; then
  binary="$PF_DEB_BINARY"   # a binary built elsewhere (quick packaging checks)
else
  echo "build-deb: ${release[*]} --product punktfunk-kiosk" >&2
  "${release[@]}" --product punktfunk-kiosk >&2
  binary="$("${release[@]}" --show-bin-path)/punktfunk-kiosk"
fi

stage="$out/root"
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
install -D -m 0755 "$binary" "$stage/usr/bin/punktfunk-kiosk"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/punktfunk-kiosk"
install -D -m 0644 "$install_dir/punktfunk-kiosk@.service" "$stage/lib/systemd/system/punktfunk-kiosk@.service"
install -D -m 0755 "$install_dir/console-reset" "$stage/usr/libexec/punktfunk-kiosk/console-reset"
install -D -m 0644 "$install_dir/50-punktfunk-kiosk.rules" "$stage/usr/share/polkit-1/rules.d/50-punktfunk-kiosk.rules"
install -D -m 0644 "$install_dir/punktfunk-kiosk.desktop" "$stage/usr/share/applications/punktfunk-kiosk.desktop"
for rules in udev/*.rules; do
  install -D -m 0644 "$rules" "$stage/lib/udev/rules.d/$(basename "$rules")"
done
# The man page, generated from the command definitions by swift-argument-parser's manual generator
# (the `generate-manual` tool its GenerateManual plugin runs; built here from the resolved package,
# offline), run on the binary being packaged: punktfunk-kiosk.1 with every subcommand in it.
echo "build-deb: ${release[*]} --product generate-manual" >&2
"${release[@]}" --product generate-manual >&2
rm -rf "$out/man" && mkdir -p "$out/man"
"$("${release[@]}" --show-bin-path)/generate-manual" "$binary" --output-directory "$out/man" \
  --date "$(date -u -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)" +%Y-%m-%d)" \
  --authors "punktfunk-kiosk authors<kiosk@punktfunk.invalid>" >&2
install -d "$stage/usr/share/man/man1"
gzip -9n -c "$out/man/punktfunk-kiosk.1" > "$stage/usr/share/man/man1/punktfunk-kiosk.1.gz"
chmod 0644 "$stage/usr/share/man/man1/punktfunk-kiosk.1.gz"
doc="$stage/usr/share/doc/punktfunk-kiosk"
install -D -m 0644 docs/kiosk.md "$doc/kiosk.md"
install -D -m 0644 README.md "$doc/README.md"
install -D -m 0644 docs/architecture.md "$doc/architecture.md"
install -D -m 0644 docs/usage.md "$doc/usage.md"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: punktfunk-kiosk
Source: https://github.com/punktfunk/punktfunk-kiosk

Files: *
Copyright: 2026 the punktfunk-kiosk authors
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy of this software
 and associated documentation files (the "Software"), to deal in the Software without
 restriction, including without limitation the rights to use, copy, modify, merge, publish,
 distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
 Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or
 substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
 BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
 NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
 DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
COPYRIGHT
printf 'punktfunk-kiosk (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- punktfunk-kiosk builders <kiosk@punktfunk.invalid>  %s\n' \
  "$version" "$commit" "$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")" | gzip -9n > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"
for script in postinst prerm postrm; do
  install -m 0755 "$install_dir/$script" "$stage/DEBIAN/$script"
done

# Shared-library dependencies of the binary, as dpkg-shlibdeps finds them.
mkdir -p "$out/shlibs/debian"
printf 'Source: punktfunk-kiosk\n\nPackage: punktfunk-kiosk\nArchitecture: any\n' > "$out/shlibs/debian/control"
libs=$(cd "$out/shlibs" && dpkg-shlibdeps -O "$repo/$stage/usr/bin/punktfunk-kiosk" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
size=$(du -k -s --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: punktfunk-kiosk
Version: $version
Architecture: $arch
Maintainer: punktfunk-kiosk builders <kiosk@punktfunk.invalid>
Installed-Size: $size
Depends: ${libs:+$libs, }adduser, kbd, systemd
Recommends: polkitd
Section: video
Priority: optional
Homepage: https://github.com/punktfunk/punktfunk-kiosk
Description: boot-to-stream client for punktfunk game streaming hosts
 punktfunk-kiosk streams a punktfunk host's desktop or game from a bare text
 console: HEVC decoded with VA-API (or in software) straight onto a DRM/KMS
 plane, input from evdev, audio through ALSA. It finds hosts on the local
 network over mDNS, wakes them with Wake-on-LAN, and with autoconnect set in
 its config comes up streaming after power-on. Enable one unit per console:
 systemctl enable --now punktfunk-kiosk@tty1.service
CONTROL
(cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
deb="$out/punktfunk-kiosk_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >&2
echo "$deb"

if [ "${1:-}" = "--check" ]; then
  echo "build-deb: lintian" >&2
  lintian --fail-on error --suppress-tags-from-file /dev/null "$deb" >&2
  echo "build-deb: systemd-analyze verify punktfunk-kiosk@tty1.service" >&2
  units="$out/units"
  rm -rf "$units"
  mkdir -p "$units"
  # The unit as packaged, with its two commands pointed into the unpacked package so verify
  # checks they exist and are executable here too (the rest of the unit is verified as is).
  sed -e "s#/usr/bin/punktfunk-kiosk#$repo/$stage/usr/bin/punktfunk-kiosk#" \
      -e "s#/usr/libexec/punktfunk-kiosk/#$repo/$stage/usr/libexec/punktfunk-kiosk/#" \
      "$stage/lib/systemd/system/punktfunk-kiosk@.service" > "$units/punktfunk-kiosk@.service"
  verify_log="$out/systemd-analyze.log"
  if ! systemd-analyze verify "$repo/$units/punktfunk-kiosk@tty1.service" > "$verify_log" 2>&1 || [ -s "$verify_log" ]; then
    cat "$verify_log" >&2
    echo "build-deb: systemd-analyze verify found problems in punktfunk-kiosk@.service" >&2
    exit 1
  fi
  echo "build-deb: desktop-file-validate punktfunk-kiosk.desktop" >&2
  desktop="$out/desktop-file-validate.log"
  if ! desktop-file-validate "$stage/usr/share/applications/punktfunk-kiosk.desktop" > "$desktop" 2>&1 || [ -s "$desktop" ]; then
    cat "$desktop" >&2
    echo "build-deb: desktop-file-validate found problems in punktfunk-kiosk.desktop" >&2
    exit 1
  fi
  echo "build-deb: the udev rules as packaged: no keyboard or mouse uaccess" >&2
  unpacked="$out/unpacked"
  rm -rf "$unpacked"
  dpkg-deb -x "$deb" "$unpacked"
  Tests/tools/check-udev-rules.sh --self-test
  shopt -s nullglob
  packaged_rules=("$unpacked"/lib/udev/rules.d/*.rules)
  shopt -u nullglob
  if [ ${#packaged_rules[@]} -eq 0 ]; then
    echo "build-deb: the package holds no udev rules in /lib/udev/rules.d" >&2
    exit 1
  fi
  Tests/tools/check-udev-rules.sh "${packaged_rules[@]}"
  echo "build-deb: lintian, systemd-analyze verify, desktop-file-validate and the udev rules check passed" >&2
fi
