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
#include "../generated/fractional-scale-v1-client-protocol.h"
#include "../generated/relative-pointer-unstable-v1-client-protocol.h"
#include "../generated/pointer-constraints-unstable-v1-client-protocol.h"
#include "../generated/keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"


#include <sys/syscall.h>
#include <unistd.h>
// memfd_create for the wl_shm pools: glibc declares it only under _GNU_SOURCE, which Swift's
// Glibc module is not built with. MFD_CLOEXEC = 1 (linux/memfd.h).
static inline int CWayland_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, 1u);
}

// The address of an interface description: Swift imports `extern const struct wl_interface x`
// as a value, and `withUnsafePointer(to:)` may point at a copy, which libwayland must never see
// (it compares and keeps these pointers). Delete when Swift can take a C global's address.
#define CWAYLAND_INTERFACE(name) \
    static inline const struct wl_interface *CWayland_##name(void) { return &name##_interface; }
CWAYLAND_INTERFACE(wl_compositor)
CWAYLAND_INTERFACE(wl_subcompositor)
CWAYLAND_INTERFACE(wl_shm)
CWAYLAND_INTERFACE(wl_output)
CWAYLAND_INTERFACE(wl_seat)
CWAYLAND_INTERFACE(xdg_wm_base)
CWAYLAND_INTERFACE(wp_viewporter)
CWAYLAND_INTERFACE(wp_presentation)
CWAYLAND_INTERFACE(zwp_linux_dmabuf_v1)
CWAYLAND_INTERFACE(zwp_idle_inhibit_manager_v1)
CWAYLAND_INTERFACE(wp_content_type_manager_v1)
CWAYLAND_INTERFACE(wp_single_pixel_buffer_manager_v1)
CWAYLAND_INTERFACE(wp_fractional_scale_manager_v1)
CWAYLAND_INTERFACE(zwp_relative_pointer_manager_v1)
CWAYLAND_INTERFACE(zwp_pointer_constraints_v1)
CWAYLAND_INTERFACE(zwp_keyboard_shortcuts_inhibit_manager_v1)
#undef CWAYLAND_INTERFACE
#endif
