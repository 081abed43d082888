/* The Wayland harness's test client (Tests/wayland/run.sh compiles it with gcc against
 * wayland-client + xkbcommon; the protocol code is made by wayland-scanner in the script).
 *
 *   pf-wlclient inject < SCRIPT   drive the seat through zwp_virtual_keyboard_v1 and
 *                                 zwlr_virtual_pointer_v1 (sway/wlroots), one command a line:
 *       key CODE 1|0              an evdev key code pressed / released (exact: the keymap we
 *                                 upload is xkbcommon's rules=evdev layout=us, keycode = code+8)
 *       button CODE 1|0           an evdev button (BTN_LEFT = 272 …), then a frame
 *       motion DX DY              relative pointer motion, then a frame
 *       abs X Y W H               absolute position X,Y on a W×H extent, then a frame
 *       axis 0|1 VALUE [STEPS]    scroll (0 vertical, 1 horizontal; discrete steps optional)
 *       sleep MS                  wait
 *       sync                      a roundtrip (everything before it reached the compositor)
 *     Prints "injected N keys M pointer events" on stderr at the end.
 *
 *   pf-wlclient listen APP_ID [RRGGBB]   a fullscreen-capable xdg toplevel filled with one
 *                                 colour that logs its seat's events on stdout, one line each:
 *       keyboard-enter K1 K2 …   (evdev codes already down)   keyboard-leave
 *       key CODE STATE           pointer-enter X Y   pointer-leave   motion X Y
 *       button CODE STATE        axis AXIS VALUE     configure W H
 *     It exits 0 when the compositor goes away, 1 when it cannot start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

static struct wl_seat *seat;
static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct zwp_virtual_keyboard_manager_v1 *vkbd_manager;
static struct zwlr_virtual_pointer_manager_v1 *vptr_manager;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data;
    if (strcmp(interface, wl_seat_interface.name) == 0 && !seat)
        seat = wl_registry_bind(registry, name, &wl_seat_interface, version < 5 ? version : 5);
    else if (strcmp(interface, wl_compositor_interface.name) == 0)
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (strcmp(interface, wl_shm_interface.name) == 0)
        shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
        wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
    else if (strcmp(interface, zwp_virtual_keyboard_manager_v1_interface.name) == 0)
        vkbd_manager = wl_registry_bind(registry, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
    else if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
        vptr_manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }

static const struct wl_registry_listener registry_listener = { global, global_remove };

static uint32_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* ---- inject ---------------------------------------------------------------------------- */

static int inject(struct wl_display *display) {
    if (!seat || !vkbd_manager || !vptr_manager) {
        fprintf(stderr, "pf-wlclient: the compositor offers no %s\n",
                !seat ? "wl_seat" : !vkbd_manager ? "zwp_virtual_keyboard_manager_v1" : "zwlr_virtual_pointer_manager_v1");
        return 1;
    }
    struct zwp_virtual_keyboard_v1 *kbd = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(vkbd_manager, seat);
    struct zwlr_virtual_pointer_v1 *ptr = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(vptr_manager, seat);

    /* The evdev keymap: wl_keyboard keycodes are then exactly the evdev codes we send. */
    struct xkb_context *ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_rule_names names = { .rules = "evdev", .model = "pc105", .layout = "us" };
    struct xkb_keymap *keymap = ctx ? xkb_keymap_new_from_names(ctx, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
    char *text = keymap ? xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) : NULL;
    if (!text) { fprintf(stderr, "pf-wlclient: xkbcommon made no keymap\n"); return 1; }
    size_t size = strlen(text) + 1;
    int fd = memfd_create("pf-wlclient-keymap", MFD_CLOEXEC);
    if (fd < 0 || write(fd, text, size) != (ssize_t)size) { fprintf(stderr, "pf-wlclient: memfd: %s\n", strerror(errno)); return 1; }
    zwp_virtual_keyboard_v1_keymap(kbd, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
    close(fd);
    free(text);
    wl_display_roundtrip(display);
    /* New devices change the seat's capabilities: give clients time to bind their wl_keyboard /
     * wl_pointer before the first event, or it reaches nobody. */
    usleep(300 * 1000);
    wl_display_roundtrip(display);

    char line[256];
    int keys = 0, pointer = 0;
    while (fgets(line, sizeof line, stdin)) {
        char cmd[32];
        double a = 0, b = 0, c = 0, d = 0;
        int n = sscanf(line, "%31s %lf %lf %lf %lf", cmd, &a, &b, &c, &d);
        if (n < 1 || cmd[0] == '#') continue;
        if (strcmp(cmd, "key") == 0 && n >= 3) {
            zwp_virtual_keyboard_v1_key(kbd, now_ms(), (uint32_t)a, (uint32_t)b);
            keys++;
        } else if (strcmp(cmd, "button") == 0 && n >= 3) {
            zwlr_virtual_pointer_v1_button(ptr, now_ms(), (uint32_t)a, (uint32_t)b);
            zwlr_virtual_pointer_v1_frame(ptr);
            pointer++;
        } else if (strcmp(cmd, "motion") == 0 && n >= 3) {
            zwlr_virtual_pointer_v1_motion(ptr, now_ms(), wl_fixed_from_double(a), wl_fixed_from_double(b));
            zwlr_virtual_pointer_v1_frame(ptr);
            pointer++;
        } else if (strcmp(cmd, "abs") == 0 && n >= 5) {
            zwlr_virtual_pointer_v1_motion_absolute(ptr, now_ms(), (uint32_t)a, (uint32_t)b, (uint32_t)c, (uint32_t)d);
            zwlr_virtual_pointer_v1_frame(ptr);
            pointer++;
        } else if (strcmp(cmd, "axis") == 0 && n >= 3) {
            if (n >= 4) zwlr_virtual_pointer_v1_axis_discrete(ptr, now_ms(), (uint32_t)a, wl_fixed_from_double(b), (int32_t)c);
            else zwlr_virtual_pointer_v1_axis(ptr, now_ms(), (uint32_t)a, wl_fixed_from_double(b));
            zwlr_virtual_pointer_v1_frame(ptr);
            pointer++;
        } else if (strcmp(cmd, "sleep") == 0 && n >= 2) {
            wl_display_flush(display);
            usleep((useconds_t)(a * 1000));
        } else if (strcmp(cmd, "sync") == 0) {
            wl_display_roundtrip(display);
        } else {
            fprintf(stderr, "pf-wlclient: cannot read: %s", line);
            return 2;
        }
        if (wl_display_flush(display) < 0 && errno != EAGAIN) { fprintf(stderr, "pf-wlclient: the compositor went away\n"); return 1; }
    }
    wl_display_roundtrip(display);
    fprintf(stderr, "pf-wlclient: injected %d keys %d pointer events\n", keys, pointer);
    zwp_virtual_keyboard_v1_destroy(kbd);
    zwlr_virtual_pointer_v1_destroy(ptr);
    wl_display_roundtrip(display);
    return 0;
}

/* ---- listen ---------------------------------------------------------------------------- */

static struct wl_surface *surface;
static struct xdg_surface *xsurface;
static struct xdg_toplevel *toplevel;
static uint32_t colour = 0xFF3060C0;
static int width = 640, height = 360, configured;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static void draw(void) {
    int stride = width * 4, size = stride * height;
    int fd = memfd_create("pf-wlclient-shm", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) < 0) return;
    uint32_t *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) { close(fd); return; }
    for (int i = 0; i < width * height; i++) pixels[i] = colour;
    munmap(pixels, (size_t)size);
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, width, height);
    wl_surface_commit(surface);
}

static void wm_ping(void *data, struct xdg_wm_base *base, uint32_t serial) { (void)data; xdg_wm_base_pong(base, serial); }
static const struct xdg_wm_base_listener wm_listener = { wm_ping };

static void xs_configure(void *data, struct xdg_surface *xs, uint32_t serial) {
    (void)data;
    xdg_surface_ack_configure(xs, serial);
    configured = 1;
    draw();
}
static const struct xdg_surface_listener xs_listener = { xs_configure };

static void tl_configure(void *data, struct xdg_toplevel *tl, int32_t w, int32_t h, struct wl_array *states) {
    (void)data; (void)tl; (void)states;
    if (w > 0 && h > 0) { width = w; height = h; }
    say("configure %d %d", width, height);
}
static void tl_close(void *data, struct xdg_toplevel *tl) { (void)data; (void)tl; }
static const struct xdg_toplevel_listener tl_listener = { tl_configure, tl_close };

static void kb_keymap(void *data, struct wl_keyboard *k, uint32_t format, int32_t fd, uint32_t size) {
    (void)data; (void)k; (void)format; (void)size;
    close(fd);
}
static void kb_enter(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s, struct wl_array *keys) {
    (void)data; (void)k; (void)serial; (void)s;
    char buf[512] = "keyboard-enter";
    uint32_t *key;
    wl_array_for_each(key, keys) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, " %u", *key);
    }
    say("%s", buf);
}
static void kb_leave(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s) {
    (void)data; (void)k; (void)serial; (void)s;
    say("keyboard-leave");
}
static void kb_key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
    (void)data; (void)k; (void)serial; (void)time;
    say("key %u %u", key, state);
}
static void kb_modifiers(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t d, uint32_t l, uint32_t lk, uint32_t g) {
    (void)data; (void)k; (void)serial; (void)d; (void)l; (void)lk; (void)g;
}
static void kb_repeat(void *data, struct wl_keyboard *k, int32_t rate, int32_t delay) { (void)data; (void)k; (void)rate; (void)delay; }
static const struct wl_keyboard_listener kb_listener = { kb_keymap, kb_enter, kb_leave, kb_key, kb_modifiers, kb_repeat };

static void pt_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)s;
    wl_pointer_set_cursor(p, serial, NULL, 0, 0);
    say("pointer-enter %.2f %.2f", wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void pt_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s) {
    (void)data; (void)p; (void)serial; (void)s;
    say("pointer-leave");
}
static void pt_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)p; (void)time;
    say("motion %.2f %.2f", wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void pt_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
    (void)data; (void)p; (void)serial; (void)time;
    say("button %u %u", button, state);
}
static void pt_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis, wl_fixed_t value) {
    (void)data; (void)p; (void)time;
    say("axis %u %.2f", axis, wl_fixed_to_double(value));
}
static void pt_frame(void *data, struct wl_pointer *p) { (void)data; (void)p; }
static void pt_axis_source(void *data, struct wl_pointer *p, uint32_t s) { (void)data; (void)p; (void)s; }
static void pt_axis_stop(void *data, struct wl_pointer *p, uint32_t t, uint32_t a) { (void)data; (void)p; (void)t; (void)a; }
static void pt_axis_discrete(void *data, struct wl_pointer *p, uint32_t a, int32_t d) { (void)data; (void)p; (void)a; (void)d; }
static const struct wl_pointer_listener pt_listener = {
    pt_enter, pt_leave, pt_motion, pt_button, pt_axis, pt_frame, pt_axis_source, pt_axis_stop, pt_axis_discrete,
};

static struct wl_keyboard *keyboard;
static struct wl_pointer *pointer;

static void seat_caps(void *data, struct wl_seat *s, uint32_t caps) {
    (void)data;
    /* A capability that goes makes its object inert (wlroots): release it, get a new one when
     * the capability comes back (a virtual keyboard per injector process). */
    if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !keyboard) {
        keyboard = wl_seat_get_keyboard(s);
        wl_keyboard_add_listener(keyboard, &kb_listener, NULL);
    } else if (!(caps & WL_SEAT_CAPABILITY_KEYBOARD) && keyboard) {
        wl_keyboard_release(keyboard);
        keyboard = NULL;
    }
    if ((caps & WL_SEAT_CAPABILITY_POINTER) && !pointer) {
        pointer = wl_seat_get_pointer(s);
        wl_pointer_add_listener(pointer, &pt_listener, NULL);
    } else if (!(caps & WL_SEAT_CAPABILITY_POINTER) && pointer) {
        wl_pointer_release(pointer);
        pointer = NULL;
    }
    say("seat-capabilities %u", caps);
}
static void seat_name(void *data, struct wl_seat *s, const char *name) { (void)data; (void)s; (void)name; }
static const struct wl_seat_listener seat_listener = { seat_caps, seat_name };

static int listen_seat(struct wl_display *display, const char *app_id) {
    if (!compositor || !shm || !wm_base) { fprintf(stderr, "pf-wlclient: no compositor, shm or xdg_wm_base\n"); return 1; }
    xdg_wm_base_add_listener(wm_base, &wm_listener, NULL);
    if (seat) wl_seat_add_listener(seat, &seat_listener, NULL);
    surface = wl_compositor_create_surface(compositor);
    xsurface = xdg_wm_base_get_xdg_surface(wm_base, surface);
    xdg_surface_add_listener(xsurface, &xs_listener, NULL);
    toplevel = xdg_surface_get_toplevel(xsurface);
    xdg_toplevel_add_listener(toplevel, &tl_listener, NULL);
    xdg_toplevel_set_app_id(toplevel, app_id);
    xdg_toplevel_set_title(toplevel, app_id);
    wl_surface_commit(surface);
    while (wl_display_dispatch(display) >= 0) {}
    say("compositor-gone");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "inject") != 0 && strcmp(argv[1], "listen") != 0)) {
        fprintf(stderr, "usage: pf-wlclient inject < SCRIPT | pf-wlclient listen APP_ID [RRGGBB]\n");
        return 2;
    }
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "pf-wlclient: cannot connect to the compositor: %s\n", strerror(errno)); return 1; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (strcmp(argv[1], "inject") == 0) return inject(display);
    if (argc >= 4) colour = 0xFF000000u | (uint32_t)strtoul(argv[3], NULL, 16);
    return listen_seat(display, argc >= 3 ? argv[2] : "pf-wlclient");
}
