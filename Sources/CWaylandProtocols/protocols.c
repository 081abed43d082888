// The private code (wl_interface tables) of every extension protocol, generated at build time by
// the WaylandScanner plugin into ../generated (a symlink into the build directory; see
// Plugins/WaylandScanner/plugin.swift for why it is not an ordinary generated source).
#include "../generated/xdg-shell-protocol.c"
#include "../generated/presentation-time-protocol.c"
#include "../generated/viewporter-protocol.c"
#include "../generated/linux-dmabuf-unstable-v1-protocol.c"
#include "../generated/idle-inhibit-unstable-v1-protocol.c"
#include "../generated/content-type-v1-protocol.c"
#include "../generated/single-pixel-buffer-v1-protocol.c"
#include "../generated/fractional-scale-v1-protocol.c"
#include "../generated/relative-pointer-unstable-v1-protocol.c"
#include "../generated/pointer-constraints-unstable-v1-protocol.c"
#include "../generated/keyboard-shortcuts-inhibit-unstable-v1-protocol.c"
