// pf-kwinshot: a screenshot of KWin's screen through its D-Bus screenshot interface
// (org.kde.KWin.ScreenShot2, KWin 5.27), written as a binary PPM. KWin writes the raw image to
// a file descriptor passed with the call and answers with its geometry and QImage format; the
// descriptor here is a temporary file (the image is larger than a pipe holds).
//
//   pf-kwinshot OUT.ppm            the active screen, in device pixels
//
// Runs inside KWin's D-Bus session (DBUS_SESSION_BUS_ADDRESS); KWin must run with
// KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1 (a test client is no desktop file KWin trusts).
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static guint32 uint_of(GVariant *dict, const char *key) {
    GVariant *v = g_variant_lookup_value(dict, key, NULL);
    if (!v) return 0;
    guint32 r = 0;
    if (g_variant_is_of_type(v, G_VARIANT_TYPE_UINT32)) r = g_variant_get_uint32(v);
    else if (g_variant_is_of_type(v, G_VARIANT_TYPE_INT32)) r = (guint32)g_variant_get_int32(v);
    g_variant_unref(v);
    return r;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: pf-kwinshot OUT.ppm\n"); return 2; }
    GError *err = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &err);
    if (!bus) { fprintf(stderr, "pf-kwinshot: session bus: %s\n", err->message); return 1; }
    char path[] = "/tmp/pf-kwinshot-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("pf-kwinshot: mkstemp"); return 1; }
    unlink(path);
    GUnixFDList *fds = g_unix_fd_list_new();
    int index = g_unix_fd_list_append(fds, fd, &err);
    if (index < 0) { fprintf(stderr, "pf-kwinshot: fd list: %s\n", err->message); return 1; }
    GVariantBuilder options;
    g_variant_builder_init(&options, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&options, "{sv}", "native-resolution", g_variant_new_boolean(TRUE));
    g_variant_builder_add(&options, "{sv}", "include-cursor", g_variant_new_boolean(FALSE));
    GVariant *reply = g_dbus_connection_call_with_unix_fd_list_sync(
        bus, "org.kde.KWin", "/org/kde/KWin/ScreenShot2", "org.kde.KWin.ScreenShot2", "CaptureActiveScreen",
        g_variant_new("(a{sv}h)", &options, index), G_VARIANT_TYPE("(a{sv})"), G_DBUS_CALL_FLAGS_NONE, 10000, fds,
        NULL, NULL, &err);
    if (!reply) { fprintf(stderr, "pf-kwinshot: CaptureActiveScreen: %s\n", err->message); return 1; }
    GVariant *dict = g_variant_get_child_value(reply, 0);
    guint32 w = uint_of(dict, "width"), h = uint_of(dict, "height"), stride = uint_of(dict, "stride");
    guint32 format = uint_of(dict, "format");
    if (w == 0 || h == 0 || stride < w * 4) {
        fprintf(stderr, "pf-kwinshot: unexpected answer %s\n", g_variant_print(dict, TRUE));
        return 1;
    }
    // KWin writes the pixels after its answer, from another thread: wait for all of them.
    off_t want = (off_t)stride * h;
    struct stat st;
    for (int i = 0; i < 500 && (fstat(fd, &st) != 0 || st.st_size < want); i++) usleep(10000);
    if (fstat(fd, &st) != 0 || st.st_size < want) {
        fprintf(stderr, "pf-kwinshot: %lld of %lld bytes arrived\n", (long long)st.st_size, (long long)want);
        return 1;
    }
    unsigned char *data = malloc((size_t)want);
    if (pread(fd, data, (size_t)want, 0) != want) { perror("pf-kwinshot: read"); return 1; }
    // QImage formats (qimage.h): 4 RGB32, 5 ARGB32, 6 ARGB32_Premultiplied are 0xAARRGGBB words
    // (bytes B, G, R, A here); 16 RGBX8888, 17 RGBA8888, 18 RGBA8888_Premultiplied are bytes R, G, B, A.
    int bgr;
    if (format == 4 || format == 5 || format == 6) bgr = 1;
    else if (format == 16 || format == 17 || format == 18) bgr = 0;
    else { fprintf(stderr, "pf-kwinshot: QImage format %u not handled\n", format); return 1; }
    FILE *out = fopen(argv[1], "wb");
    if (!out) { perror("pf-kwinshot: open output"); return 1; }
    fprintf(out, "P6\n%u %u\n255\n", w, h);
    unsigned char *row = malloc((size_t)w * 3);
    for (guint32 y = 0; y < h; y++) {
        const unsigned char *p = data + (size_t)y * stride;
        for (guint32 x = 0; x < w; x++) {
            row[3 * x + 0] = p[4 * x + (bgr ? 2 : 0)];
            row[3 * x + 1] = p[4 * x + 1];
            row[3 * x + 2] = p[4 * x + (bgr ? 0 : 2)];
        }
        fwrite(row, 1, (size_t)w * 3, out);
    }
    fclose(out);
    printf("%ux%u QImage format %u\n", w, h, format);
    return 0;
}
