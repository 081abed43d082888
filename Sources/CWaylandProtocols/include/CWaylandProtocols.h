// The client API of the extension protocols (static inline request wrappers, listener structs),
// generated at build time by the WaylandScanner plugin; see protocols.c.
#ifndef PUNKTFUNK_CWAYLANDPROTOCOLS_H
#define PUNKTFUNK_CWAYLANDPROTOCOLS_H
#include <wayland-client.h>
#include "../generated/xdg-shell-client-protocol.h"
#include "../generated/presentation-time-client-protocol.h"
#include "../generated/viewporter-client-protocol.h"
#include "../generated/linux-dmabuf-unstable-v1-client-protocol.h"
#include "../generated/idle-inhibit-unstable-v1-client-protocol.h"
#include "../generated/content-type-v1-client-protocol.h"
#include "../generated/single-pixel-buffer-v1-client-protocol.h"
#include "../generated/relative-pointer-unstable-v1-client-protocol.h"
#include "../generated/pointer-constraints-unstable-v1-client-protocol.h"
#include "../generated/keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"

#endif
