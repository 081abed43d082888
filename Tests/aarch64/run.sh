#!/usr/bin/env bash
# The package's C code on AArch64 (issue 30, item 3), from an x86-64 machine: Tests/tools/test.sh
# runs it after the unit tests; about a minute on a busy 2-core machine (docs/PERFORMANCE.md).
#
#   1. SwiftPM's own build of every C source target for aarch64-unknown-linux-gnu (its clang, the
#      flags Package.swift gives, the WaylandScanner plugin's generated code), scratch .build-aarch64;
#   2. aarch64-linux-gnu-gcc (Debian gcc-aarch64-linux-gnu) compiles the same sources again, and
#      each systemLibrary shim header with the library's architecture-independent headers;
#   3. fec_check (fec_check.c + leopard.c + fec_vectors.c + CPunktfunkFEC), linked statically and
#      run under qemu-aarch64-static (Debian qemu-user-static): the NEON kernel bit-exact with the
#      portable one for all five operations and every multiplier, the reed-solomon-simd vectors of
#      Tests/Fixtures/fec-vectors.txt encoded and decoded with both, and the FEC bench (emulated
#      timings: the NEON/portable ratio under qemu says nothing about a real core).
# On an AArch64 machine the same steps run natively (no --triple, cc, no qemu).
#
# Not proven here (no AArch64 Swift toolchain or Swift SDK is reachable): the Swift targets for
# aarch64, and the shims CAVCodec and CPango, whose headers live in the build machine's multiarch
# directories (/usr/include/<triplet>, /usr/lib/<triplet>) and exist here only for x86-64.
#
#   PF_AARCH64_SKIP_SWIFTPM=1   skip step 1 (quick iterations on the C check; CWaylandProtocols then
#                               compiles only if an earlier build left its `generated` link)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
out="$repo/.build-aarch64"
mkdir -p "$out/obj"

say() { echo "aarch64: $*" >&2; }
step_start=$SECONDS
took() { say "$1 took $((SECONDS - step_start)) s"; step_start=$SECONDS; }

if [ "$(uname -m)" = aarch64 ]; then
  cc=(cc); run=(); triple=()
else
  for tool in aarch64-linux-gnu-gcc qemu-aarch64-static; do
    command -v "$tool" >/dev/null || { say "$tool missing (Tests/tools/install-deps.sh installs it)"; exit 1; }
  done
  cc=(aarch64-linux-gnu-gcc); run=(qemu-aarch64-static); triple=(--triple aarch64-unknown-linux-gnu)
fi

# C source targets: Sources/<T>/ holding .c files (systemLibrary shims hold only shim.h).
c_targets=()
for dir in Sources/*/; do
  t=$(basename "$dir")
  if compgen -G "$dir*.c" >/dev/null; then c_targets+=("$t"); fi
done
say "C source targets: ${c_targets[*]}"

# 1. SwiftPM's aarch64 plan for each C target.
if [ "${PF_AARCH64_SKIP_SWIFTPM:-0}" != 1 ]; then
  # The WaylandScanner plugin points Sources/CWaylandProtocols/generated at the scratch path of
  # whichever build ran last; put it back afterwards so the next ordinary build sees no change.
  link=Sources/CWaylandProtocols/generated
  previous=$(readlink "$link" 2>/dev/null || true)
  for t in "${c_targets[@]}"; do
    say "swift build ${triple[*]} --target $t"
    swift build "${triple[@]}" --target "$t" --scratch-path "$out/swift" >"$out/swift-$t.log" 2>&1 \
      || { cat "$out/swift-$t.log" >&2; say "SwiftPM could not build $t for aarch64"; exit 1; }
  done
  took "SwiftPM"
fi

# 2. gcc: every C target's sources, then every shim header.
for t in "${c_targets[@]}"; do
  strict=()
  [ "$t" = CPunktfunkFEC ] && strict=(-O3 -Wextra -Werror)   # our kernels: no warning tolerated
  for src in Sources/"$t"/*.c; do
    "${cc[@]}" -std=gnu11 -O2 -Wall "${strict[@]}" -I "Sources/$t/include" -I "Sources/$t" \
      -idirafter /usr/include -c "$src" -o "$out/obj/$t-$(basename "$src" .c).o"
  done
  say "gcc: $t compiles"
done
# A shim's headers are found the way pkg-config names them, after the cross sysroot's own headers.
# /usr/include (not its <triplet> subdirectory) holds only files of Multi-Arch: same -dev packages,
# which dpkg requires to be identical on every architecture.
triplet_shims="CAVCodec CPango"
while read -r t pc; do
  case " $triplet_shims " in *" $t "*) say "shim $t: not checked (its headers are in the x86-64 multiarch directories)"; continue ;; esac
  flags=()
  for f in $(pkg-config --cflags-only-I "$pc"); do
    case "$f" in *-linux-gnu*) ;; *) flags+=(-idirafter "${f#-I}") ;; esac
  done
  printf '#include "%s/Sources/%s/shim.h"\n' "$repo" "$t" > "$out/obj/shim-$t.c"
  "${cc[@]}" -std=gnu11 -Wall -Werror -fsyntax-only "${flags[@]}" -idirafter /usr/include "$out/obj/shim-$t.c"
  say "gcc: shim $t ($pc) compiles"
done < <(sed -n 's/.*\.systemLibrary(name: "\([A-Za-z0-9]*\)", pkgConfig: "\([^"]*\)".*/\1 \2/p' Package.swift)

if [ "${PF_AARCH64_SKIP_SWIFTPM:-0}" != 1 ] && [ -n "$previous" ]; then ln -sfn "$previous" "$link"; fi
took "gcc (targets and shims)"

# 3. The FEC check under qemu.
"${cc[@]}" -std=gnu11 -O3 -Wall -Wextra -Werror -static -I Sources/CPunktfunkFEC/include \
  Sources/CPunktfunkFEC/*.c Tests/aarch64/fec_check.c Tests/aarch64/leopard.c Tests/aarch64/fec_vectors.c \
  -o "$out/fec_check" -lpthread
say "${run[*]:-native} fec_check"
"${run[@]}" "$out/fec_check" Tests/Fixtures/fec-vectors.txt --bench
took "fec_check (build and run)"
