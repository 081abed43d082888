// libxcb and the extensions the X11 backend speaks: Present (pacing and completion), MIT-SHM
// (CPU pictures), DRI3 (dma-buf pixmaps), XInput 2 (keyboard, mouse, raw motion), XFixes
// (cursor), RENDER (the host's pointer as an ARGB cursor), RandR (the refresh), XTEST (the tests' key presses); xcb-ewmh / xcb-icccm for the
// window manager's properties. Debian 12: libxcb*-dev 1.15, libxcb-ewmh-dev / libxcb-icccm4-dev 0.4.1.
#include <xcb/xcb.h>
#include <xcb/xcbext.h>
#include <xcb/present.h>
#include <xcb/shm.h>
#include <xcb/xinput.h>
#include <xcb/dri3.h>
#include <xcb/xfixes.h>
#include <xcb/randr.h>
#include <xcb/xtest.h>
#include <xcb/render.h>
#include <xcb/xcb_ewmh.h>
#include <xcb/xcb_icccm.h>

#include <sys/syscall.h>
#include <unistd.h>

// The extensions' ids (`extern xcb_extension_t`, mutable globals Swift 6 will not touch directly).
static inline xcb_extension_t *pf_xcb_present_id(void) { return &xcb_present_id; }
static inline xcb_extension_t *pf_xcb_shm_id(void) { return &xcb_shm_id; }
static inline xcb_extension_t *pf_xcb_input_id(void) { return &xcb_input_id; }
static inline xcb_extension_t *pf_xcb_dri3_id(void) { return &xcb_dri3_id; }
static inline xcb_extension_t *pf_xcb_xfixes_id(void) { return &xcb_xfixes_id; }
static inline xcb_extension_t *pf_xcb_randr_id(void) { return &xcb_randr_id; }
static inline xcb_extension_t *pf_xcb_test_id(void) { return &xcb_test_id; }
static inline xcb_extension_t *pf_xcb_render_id(void) { return &xcb_render_id; }

// An anonymous shared-memory file for MIT-SHM segments passed by fd (memfd_create, Linux ≥ 3.17).
static inline int pf_xcb_memfd(const char *name) { return (int)syscall(SYS_memfd_create, name, 1u /* MFD_CLOEXEC */); }
