/* The X11 cases' injector (Tests/wayland/x11-cases.sh; run.sh compiles it with gcc against xcb +
 * xcb-xtest + xcb-xfixes). It talks to the X server named by $DISPLAY.
 *
 *   pf-xinject inject < SCRIPT    drive the server's core devices through XTEST (FakeInput), the
 *                                 same lines as `pf-wlclient inject`, one command a line:
 *       key CODE 1|0              an evdev key code pressed / released (X keycode = CODE + 8: the
 *                                 evdev rules' keycodes, which Xvfb's and Xwayland's maps use)
 *       button CODE 1|0           an evdev button: BTN_LEFT 272 → 1, BTN_RIGHT 273 → 3, BTN_MIDDLE 274 → 2
 *       motion DX DY              relative pointer motion
 *       abs X Y W H               absolute position X,Y on a W×H extent, scaled to the root's size
 *       axis 0|1 VALUE [STEPS]    scroll as core buttons (vertical 4 up / 5 down, horizontal 6 / 7),
 *                                 STEPS clicks (default 1) in VALUE's direction
 *       sleep MS                  wait
 *       sync                      a round trip (everything before it reached the server)
 *     Prints "pf-xinject: injected N keys M pointer events" on stderr at the end.
 *
 *   pf-xinject steal-focus [NAME] map a small window of its own (200x200, WM_NAME NAME, default
 *                                 pf-steal-focus) and, once it is mapped, give it the input focus
 *                                 (SetInputFocus); prints "focused 0xID" on stdout, then stays until
 *                                 killed (or the server goes away: exit 0).
 *
 *   pf-xinject cursor             the cursor the server shows now, as XFixes reads it back
 *                                 (GetCursorImage): one line
 *       cursor X Y W H XHOT YHOT OPAQUE COLOUR
 *                                 the pointer's place on the root, the image's size and hot
 *                                 spot, how many of its pixels have any alpha, and the hex ARGB
 *                                 of its most common pixel with alpha ("none" when none has).
 *
 * Exit 1 when it cannot start (no server, no XTEST), 2 on a line it cannot read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/xcb.h>
#include <xcb/xtest.h>
#include <xcb/xfixes.h>

static xcb_connection_t *conn;
static xcb_screen_t *screen;

static void roundtrip(void) {
    free(xcb_get_input_focus_reply(conn, xcb_get_input_focus(conn), NULL));
}

static int fake(uint8_t type, uint8_t detail, int16_t x, int16_t y, xcb_window_t root) {
    xcb_generic_error_t *e = xcb_request_check(conn, xcb_test_fake_input_checked(conn, type, detail, XCB_CURRENT_TIME, root, x, y, 0));
    if (e) {
        fprintf(stderr, "pf-xinject: FakeInput type %u detail %u: X error %u\n", type, detail, e->error_code);
        free(e);
        return 0;
    }
    return 1;
}

static int inject(void) {
    xcb_test_get_version_reply_t *v = xcb_test_get_version_reply(conn, xcb_test_get_version(conn, 2, 2), NULL);
    if (!v) { fprintf(stderr, "pf-xinject: the X server offers no XTEST\n"); return 1; }
    free(v);
    char line[256];
    int keys = 0, pointer = 0;
    while (fgets(line, sizeof line, stdin)) {
        char cmd[32];
        double a = 0, b = 0, c = 0, d = 0;
        int n = sscanf(line, "%31s %lf %lf %lf %lf", cmd, &a, &b, &c, &d);
        if (n < 1 || cmd[0] == '#') continue;
        int ok = 1;
        if (strcmp(cmd, "key") == 0 && n >= 3) {
            ok = fake(b ? XCB_KEY_PRESS : XCB_KEY_RELEASE, (uint8_t)((int)a + 8), 0, 0, XCB_NONE);
            keys++;
        } else if (strcmp(cmd, "button") == 0 && n >= 3) {
            int code = (int)a, button = code == 272 ? 1 : code == 273 ? 3 : code == 274 ? 2 : 0;
            if (!button) { fprintf(stderr, "pf-xinject: no core button for evdev %d\n", code); return 2; }
            ok = fake(b ? XCB_BUTTON_PRESS : XCB_BUTTON_RELEASE, (uint8_t)button, 0, 0, XCB_NONE);
            pointer++;
        } else if (strcmp(cmd, "motion") == 0 && n >= 3) {
            ok = fake(XCB_MOTION_NOTIFY, 1, (int16_t)a, (int16_t)b, XCB_NONE);  /* detail 1: relative */
            pointer++;
        } else if (strcmp(cmd, "abs") == 0 && n >= 5 && c > 0 && d > 0) {
            int16_t x = (int16_t)(a * screen->width_in_pixels / c), y = (int16_t)(b * screen->height_in_pixels / d);
            ok = fake(XCB_MOTION_NOTIFY, 0, x, y, screen->root);
            pointer++;
        } else if (strcmp(cmd, "axis") == 0 && n >= 3) {
            int steps = n >= 4 && c != 0 ? abs((int)c) : 1;
            uint8_t button = a == 0 ? (b < 0 ? 4 : 5) : (b < 0 ? 6 : 7);
            for (int i = 0; i < steps && ok; i++)
                ok = fake(XCB_BUTTON_PRESS, button, 0, 0, XCB_NONE) && fake(XCB_BUTTON_RELEASE, button, 0, 0, XCB_NONE);
            pointer++;
        } else if (strcmp(cmd, "sleep") == 0 && n >= 2) {
            xcb_flush(conn);
            usleep((useconds_t)(a * 1000));
        } else if (strcmp(cmd, "sync") == 0) {
            roundtrip();
        } else {
            fprintf(stderr, "pf-xinject: cannot read: %s", line);
            return 2;
        }
        if (!ok) return 1;
        if (xcb_connection_has_error(conn)) { fprintf(stderr, "pf-xinject: the X server went away\n"); return 1; }
    }
    roundtrip();
    fprintf(stderr, "pf-xinject: injected %d keys %d pointer events\n", keys, pointer);
    return 0;
}

static int steal_focus(const char *name) {
    xcb_window_t w = xcb_generate_id(conn);
    uint32_t values[] = { 0xc06030, XCB_EVENT_MASK_STRUCTURE_NOTIFY | XCB_EVENT_MASK_FOCUS_CHANGE };
    xcb_create_window(conn, XCB_COPY_FROM_PARENT, w, screen->root, 0, 0, 200, 200, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      screen->root_visual, XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
    xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, (uint32_t)strlen(name), name);
    xcb_map_window(conn, w);
    xcb_flush(conn);
    xcb_generic_event_t *ev;
    int focused = 0;
    while ((ev = xcb_wait_for_event(conn))) {
        uint8_t type = ev->response_type & 0x7f;
        if (type == XCB_MAP_NOTIFY && !focused) {
            /* (a window manager maps it when it chooses; then it is viewable and may take the focus) */
            xcb_generic_error_t *e = xcb_request_check(conn,
                xcb_set_input_focus_checked(conn, XCB_INPUT_FOCUS_POINTER_ROOT, w, XCB_CURRENT_TIME));
            if (e) { fprintf(stderr, "pf-xinject: SetInputFocus: X error %u\n", e->error_code); free(e); free(ev); return 1; }
            focused = 1;
            printf("focused 0x%x\n", w);
            fflush(stdout);
        } else if (type == XCB_FOCUS_IN || type == XCB_FOCUS_OUT) {
            printf("%s\n", type == XCB_FOCUS_IN ? "focus-in" : "focus-out");
            fflush(stdout);
        }
        free(ev);
    }
    return 0;  /* the server went away */
}

static int cursor(void) {
    free(xcb_xfixes_query_version_reply(conn, xcb_xfixes_query_version(conn, 4, 0), NULL));
    xcb_xfixes_get_cursor_image_reply_t *r = xcb_xfixes_get_cursor_image_reply(conn, xcb_xfixes_get_cursor_image(conn), NULL);
    if (!r) { fprintf(stderr, "pf-xinject: the X server answered no XFixes cursor image\n"); return 1; }
    int n = xcb_xfixes_get_cursor_image_cursor_image_length(r), opaque = 0, best = 0;
    uint32_t *px = xcb_xfixes_get_cursor_image_cursor_image(r), colour = 0;
    for (int i = 0; i < n; i++) {
        if (!(px[i] >> 24)) continue;
        opaque++;
        int same = 0;
        for (int j = 0; j < n; j++) same += px[j] == px[i];
        if (same > best) { best = same; colour = px[i]; }
    }
    char hex[16] = "none";
    if (opaque) snprintf(hex, sizeof hex, "%08x", colour);
    printf("cursor %d %d %u %u %u %u %d %s\n", r->x, r->y, r->width, r->height, r->xhot, r->yhot, opaque, hex);
    free(r);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "inject") != 0 && strcmp(argv[1], "steal-focus") != 0 && strcmp(argv[1], "cursor") != 0)) {
        fprintf(stderr, "usage: pf-xinject inject < SCRIPT | pf-xinject steal-focus [NAME] | pf-xinject cursor   (on $DISPLAY)\n");
        return 1;
    }
    int which = 0;
    conn = xcb_connect(NULL, &which);
    if (xcb_connection_has_error(conn)) {
        fprintf(stderr, "pf-xinject: cannot connect to the X server %s\n", getenv("DISPLAY") ? getenv("DISPLAY") : "(DISPLAY unset)");
        return 1;
    }
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(conn));
    for (int i = 0; i < which && it.rem; i++) xcb_screen_next(&it);
    screen = it.data;
    int rc = strcmp(argv[1], "inject") == 0 ? inject()
           : strcmp(argv[1], "cursor") == 0 ? cursor() : steal_focus(argc > 2 ? argv[2] : "pf-steal-focus");
    xcb_disconnect(conn);
    return rc;
}
