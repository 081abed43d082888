/* Guest-side KMS helper of the VM harness, independent of punktfunk-kiosk (plain libdrm).
 *
 *   kmstool probe
 *       One JSON line per /dev/dri/cardN: driver, connectors with their modes ("WxH@Hz"),
 *       CRTCs and every plane with type, formats and IN_FORMATS modifiers. This is the oracle the
 *       kiosk's own `probe` output is checked against, and how guest scripts pick modes.
 *   kmstool state DEVICE
 *       One JSON line: every CRTC's framebuffer and mode, every plane's CRTC and framebuffer.
 *   kmstool hold DEVICE WxH
 *       Shows a known pattern on the first connected connector at mode WxH with a legacy SetCrtc,
 *       then drops DRM master (the framebuffer stays on screen and stays valid for others), prints
 *       "@@HELD <crtc> <fb>" and waits for a line (or EOF) on stdin before exiting.
 *       Pattern at (x, y): R = x & 255, G = y & 255, B = (x ^ y) & 255.
 *   kmstool takeover DEVICE WxH
 *       Control for the restore check: saves the CRTC, shows grey at WxH for 0.5 s, restores, exits.
 *   kmstool planes DEVICE PREFIX
 *       While another client shows a frame: one JSON line listing every plane that carries a
 *       framebuffer, in plane-resource order (the default stacking order), with its type, zpos,
 *       CRTC rectangle and framebuffer format; each AR24 framebuffer is read back (GetFB2 handles,
 *       as root, + dumb map) into PREFIX-plane-<id>.argb: width*height*4 bytes, rows packed.
 *   kmstool hdr DEVICE
 *       One JSON line per connector: its HDR_OUTPUT_METADATA blob id and bytes (hex; "" for none),
 *       its Colorspace value and enum name (-1 / "" when the connector lacks the property) and its
 *       EDID blob's bytes (hex, at most 1024 bytes; "" for none).
 *   kmstool vt DEVICE TTY
 *       One JSON line: CLOCK_MONOTONIC ns (taken first), the active VT, TTY's KDGETMODE and
 *       VT_GETMODE, and whether this process could become DRM master of DEVICE (master on open, and
 *       drmSetMaster's result); the device is closed again at once, so master is dropped on exit.
 *   kmstool master DEVICE
 *       Becomes DRM master of DEVICE (as a compositor that has not let go would be), prints
 *       "@@MASTER <ok|error>" and holds it until a line (or EOF) on stdin; then exits.
 *
 * Exit codes: 0 ok, 1 usage, 2 device/KMS failure (message on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>

static void fourcc(uint32_t f, char out[5]) {
    for (int i = 0; i < 4; i++) {
        char c = (char)((f >> (8 * i)) & 0xff);
        out[i] = (c >= 32 && c < 127 && c != '"' && c != '\\') ? c : '?';
    }
    out[4] = 0;
}

static const char *plane_type(int fd, uint32_t plane_id, uint64_t *in_formats_blob) {
    const char *type = "unknown";
    *in_formats_blob = 0;
    drmModeObjectProperties *props = drmModeObjectGetProperties(fd, plane_id, DRM_MODE_OBJECT_PLANE);
    if (!props) return type;
    for (uint32_t i = 0; i < props->count_props; i++) {
        drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);
        if (!p) continue;
        if (strcmp(p->name, "type") == 0) {
            uint64_t v = props->prop_values[i];
            type = v == DRM_PLANE_TYPE_PRIMARY ? "primary" : v == DRM_PLANE_TYPE_CURSOR ? "cursor" : "overlay";
        } else if (strcmp(p->name, "IN_FORMATS") == 0) {
            *in_formats_blob = props->prop_values[i];
        }
        drmModeFreeProperty(p);
    }
    drmModeFreeObjectProperties(props);
    return type;
}

/* IN_FORMATS blob (struct drm_format_modifier_blob): per format, the modifiers whose
 * 64-bit format mask (relative to `offset`) has the format's bit set. */
static void print_modifiers(int fd, uint64_t blob_id) {
    printf(",\"modifiers\":{");
    drmModePropertyBlobRes *blob = blob_id ? drmModeGetPropertyBlob(fd, (uint32_t)blob_id) : NULL;
    if (blob && blob->length >= sizeof(struct drm_format_modifier_blob)) {
        const struct drm_format_modifier_blob *h = blob->data;
        const uint32_t *formats = (const uint32_t *)((const char *)blob->data + h->formats_offset);
        const struct drm_format_modifier *mods =
            (const struct drm_format_modifier *)((const char *)blob->data + h->modifiers_offset);
        for (uint32_t f = 0; f < h->count_formats; f++) {
            char name[5];
            fourcc(formats[f], name);
            printf("%s\"%s\":[", f ? "," : "", name);
            int first = 1;
            for (uint32_t m = 0; m < h->count_modifiers; m++) {
                if (f < mods[m].offset || f >= mods[m].offset + 64) continue;
                if (!(mods[m].formats & (1ull << (f - mods[m].offset)))) continue;
                printf("%s\"0x%" PRIx64 "\"", first ? "" : ",", (uint64_t)mods[m].modifier);
                first = 0;
            }
            printf("]");
        }
    }
    printf("}");
    if (blob) drmModeFreePropertyBlob(blob);
}

static void probe_device(const char *path) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
    drmVersion *ver = drmGetVersion(fd);
    drmModeRes *res = drmModeGetResources(fd);
    if (!res) {  /* no KMS (vgem): nothing to present on, and the kiosk's probe skips it too */
        if (ver) drmFreeVersion(ver);
        close(fd);
        return;
    }
    uint64_t modifiers_cap = 0;
    drmGetCap(fd, DRM_CAP_ADDFB2_MODIFIERS, &modifiers_cap);
    printf("{\"device\":\"%s\",\"driver\":\"%s\",\"addfb2_modifiers\":%" PRIu64 ",\"connectors\":[",
           path, ver ? ver->name : "", modifiers_cap);
    for (int i = 0; res && i < res->count_connectors; i++) {
        drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
        if (!c) continue;
        printf("%s{\"id\":%u,\"type\":%u,\"connected\":%s,\"modes\":[", i ? "," : "", c->connector_id,
               c->connector_type, c->connection == DRM_MODE_CONNECTED ? "true" : "false");
        for (int m = 0; m < c->count_modes; m++)
            printf("%s\"%ux%u@%u\"", m ? "," : "", c->modes[m].hdisplay, c->modes[m].vdisplay,
                   c->modes[m].vrefresh);
        printf("]}");
        drmModeFreeConnector(c);
    }
    printf("],\"crtcs\":[");
    for (int i = 0; res && i < res->count_crtcs; i++) printf("%s%u", i ? "," : "", res->crtcs[i]);
    printf("],\"planes\":[");
    drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
    for (uint32_t i = 0; planes && i < planes->count_planes; i++) {
        drmModePlane *p = drmModeGetPlane(fd, planes->planes[i]);
        if (!p) continue;
        uint64_t blob = 0;
        const char *type = plane_type(fd, p->plane_id, &blob);
        printf("%s{\"id\":%u,\"type\":\"%s\",\"possible_crtcs\":%u,\"formats\":[", i ? "," : "", p->plane_id,
               type, p->possible_crtcs);
        for (uint32_t f = 0; f < p->count_formats; f++) {
            char name[5];
            fourcc(p->formats[f], name);
            printf("%s\"%s\"", f ? "," : "", name);
        }
        printf("]");
        print_modifiers(fd, blob);
        printf("}");
        drmModeFreePlane(p);
    }
    printf("]}\n");
    if (planes) drmModeFreePlaneResources(planes);
    if (res) drmModeFreeResources(res);
    if (ver) drmFreeVersion(ver);
    close(fd);
}

static int state(const char *path) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) { fprintf(stderr, "kmstool: open %s: %s\n", path, strerror(errno)); return 2; }
    drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
    drmModeRes *res = drmModeGetResources(fd);
    printf("{\"device\":\"%s\",\"crtcs\":[", path);
    for (int i = 0; res && i < res->count_crtcs; i++) {
        drmModeCrtc *c = drmModeGetCrtc(fd, res->crtcs[i]);
        if (!c) continue;
        printf("%s{\"id\":%u,\"fb\":%u,\"mode\":\"%ux%u@%u\",\"mode_valid\":%d}", i ? "," : "", c->crtc_id,
               c->buffer_id, c->mode.hdisplay, c->mode.vdisplay, c->mode.vrefresh, c->mode_valid);
        drmModeFreeCrtc(c);
    }
    printf("],\"planes\":[");
    drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
    for (uint32_t i = 0; planes && i < planes->count_planes; i++) {
        drmModePlane *p = drmModeGetPlane(fd, planes->planes[i]);
        if (!p) continue;
        printf("%s{\"id\":%u,\"crtc\":%u,\"fb\":%u}", i ? "," : "", p->plane_id, p->crtc_id, p->fb_id);
        drmModeFreePlane(p);
    }
    printf("]}\n");
    if (planes) drmModeFreePlaneResources(planes);
    if (res) drmModeFreeResources(res);
    close(fd);
    return 0;
}

/* Value of the named property of a plane; 0 with *found = 0 when the plane lacks it. */
static uint64_t plane_prop(int fd, uint32_t plane, const char *name, int *found) {
    uint64_t value = 0;
    *found = 0;
    drmModeObjectProperties *props = drmModeObjectGetProperties(fd, plane, DRM_MODE_OBJECT_PLANE);
    for (uint32_t i = 0; props && i < props->count_props && !*found; i++) {
        drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);
        if (p && strcmp(p->name, name) == 0) { value = props->prop_values[i]; *found = 1; }
        if (p) drmModeFreeProperty(p);
    }
    if (props) drmModeFreeObjectProperties(props);
    return value;
}

/* Copies an AR24 framebuffer's pixels (rows packed) into PATH. 0 on success. */
static int read_back(int fd, const drmModeFB2 *fb, const char *path) {
    struct drm_mode_map_dumb map = { .handle = fb->handles[0] };
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map)) return -1;
    size_t size = (size_t)fb->offsets[0] + (size_t)fb->pitches[0] * fb->height;
    uint8_t *px = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)map.offset);
    if (px == MAP_FAILED) return -1;
    FILE *f = fopen(path, "wb");
    int rc = f ? 0 : -1;
    for (uint32_t y = 0; f && y < fb->height && rc == 0; y++)
        if (fwrite(px + fb->offsets[0] + (size_t)y * fb->pitches[0], 4, fb->width, f) != fb->width) rc = -1;
    if (f && fclose(f)) rc = -1;
    munmap(px, size);
    return rc;
}

static int planes_state(const char *path, const char *prefix) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) { fprintf(stderr, "kmstool: open %s: %s\n", path, strerror(errno)); return 2; }
    drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
    drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1);
    drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
    if (!planes) { fprintf(stderr, "kmstool: no planes on %s\n", path); return 2; }
    printf("{\"device\":\"%s\",\"planes\":[", path);
    int first = 1;
    for (uint32_t i = 0; i < planes->count_planes; i++) {
        drmModePlane *p = drmModeGetPlane(fd, planes->planes[i]);
        if (!p) continue;
        if (!p->fb_id) { drmModeFreePlane(p); continue; }
        uint64_t blob;
        const char *type = plane_type(fd, p->plane_id, &blob);
        int has_zpos, f;
        uint64_t zpos = plane_prop(fd, p->plane_id, "zpos", &has_zpos);
        printf("%s{\"id\":%u,\"index\":%u,\"type\":\"%s\",\"crtc\":%u,\"fb\":%u,", first ? "" : ",",
               p->plane_id, i, type, p->crtc_id, p->fb_id);
        first = 0;
        if (has_zpos) printf("\"zpos\":%" PRIu64 ",", zpos); else printf("\"zpos\":null,");
        printf("\"crtc_x\":%" PRId64 ",\"crtc_y\":%" PRId64 ",\"crtc_w\":%" PRIu64 ",\"crtc_h\":%" PRIu64,
               (int64_t)(int32_t)plane_prop(fd, p->plane_id, "CRTC_X", &f),
               (int64_t)(int32_t)plane_prop(fd, p->plane_id, "CRTC_Y", &f),
               plane_prop(fd, p->plane_id, "CRTC_W", &f), plane_prop(fd, p->plane_id, "CRTC_H", &f));
        drmModeFB2 *fb = drmModeGetFB2(fd, p->fb_id);
        if (fb) {
            char name[5], file[512];
            fourcc(fb->pixel_format, name);
            printf(",\"format\":\"%s\",\"modifier\":\"0x%" PRIx64 "\",\"width\":%u,\"height\":%u", name,
                   (uint64_t)fb->modifier, fb->width, fb->height);
            if (fb->pixel_format == DRM_FORMAT_ARGB8888 && fb->handles[0]) {
                snprintf(file, sizeof file, "%s-plane-%u.argb", prefix, p->plane_id);
                int rc = read_back(fd, fb, file);
                printf(",\"dump\":\"%s\",\"dump_error\":%s", file, rc ? "\"map or write failed\"" : "null");
            } else if (fb->pixel_format == DRM_FORMAT_ARGB8888) {
                printf(",\"dump_error\":\"no handle (not root?)\"");
            }
            for (int h = 0; h < 4; h++) {
                int dup = 0;
                for (int k = 0; k < h; k++) dup |= fb->handles[k] == fb->handles[h];
                if (fb->handles[h] && !dup) drmCloseBufferHandle(fd, fb->handles[h]);
            }
            drmModeFreeFB2(fb);
        }
        printf("}");
        drmModeFreePlane(p);
    }
    printf("]}\n");
    drmModeFreePlaneResources(planes);
    close(fd);
    return 0;
}

/* Opens PATH, finds the first connected connector offering WxH and a CRTC for it, and fills a new
 * XRGB8888 framebuffer with the pattern (solid grey when `solid`). 0 on success, 2 on failure. */
struct output { int fd; uint32_t crtc, conn, fb; drmModeModeInfo mode; };

static int setup(const char *path, unsigned w, unsigned h, int solid, struct output *o) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) { fprintf(stderr, "kmstool: open %s: %s\n", path, strerror(errno)); return 2; }
    drmModeRes *res = drmModeGetResources(fd);
    if (!res) { fprintf(stderr, "kmstool: no KMS resources on %s\n", path); return 2; }
    drmModeConnector *conn = NULL;
    for (int i = 0; i < res->count_connectors && !conn; i++) {
        drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
        if (c && c->connection == DRM_MODE_CONNECTED && c->count_modes > 0) conn = c;
        else if (c) drmModeFreeConnector(c);
    }
    if (!conn) { fprintf(stderr, "kmstool: no connected connector on %s\n", path); return 2; }
    drmModeModeInfo *mode = NULL;
    for (int m = 0; m < conn->count_modes && !mode; m++)
        if (conn->modes[m].hdisplay == w && conn->modes[m].vdisplay == h) mode = &conn->modes[m];
    if (!mode) { fprintf(stderr, "kmstool: mode %ux%u not offered on %s\n", w, h, path); return 2; }
    /* first CRTC the connector's encoders can drive */
    uint32_t crtc = 0;
    for (int e = 0; e < conn->count_encoders && !crtc; e++) {
        drmModeEncoder *enc = drmModeGetEncoder(fd, conn->encoders[e]);
        for (int i = 0; enc && i < res->count_crtcs && !crtc; i++)
            if (enc->possible_crtcs & (1u << i)) crtc = res->crtcs[i];
        if (enc) drmModeFreeEncoder(enc);
    }
    if (!crtc) { fprintf(stderr, "kmstool: no usable CRTC on %s\n", path); return 2; }

    struct drm_mode_create_dumb create = { .width = w, .height = h, .bpp = 32 };
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create)) { perror("kmstool: CREATE_DUMB"); return 2; }
    uint32_t fb = 0, handles[4] = { create.handle }, pitches[4] = { create.pitch }, offsets[4] = { 0 };
    if (drmModeAddFB2(fd, w, h, DRM_FORMAT_XRGB8888, handles, pitches, offsets, &fb, 0)) {
        perror("kmstool: AddFB2");
        return 2;
    }
    struct drm_mode_map_dumb map = { .handle = create.handle };
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map)) { perror("kmstool: MAP_DUMB"); return 2; }
    uint8_t *px = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map.offset);
    if (px == MAP_FAILED) { perror("kmstool: mmap"); return 2; }
    for (unsigned y = 0; y < h; y++) {
        uint32_t *row = (uint32_t *)(px + (size_t)y * create.pitch);
        for (unsigned x = 0; x < w; x++)
            row[x] = solid ? 0x808080u : ((x & 255u) << 16) | ((y & 255u) << 8) | ((x ^ y) & 255u);
    }
    munmap(px, create.size);
    *o = (struct output){ .fd = fd, .crtc = crtc, .conn = conn->connector_id, .fb = fb, .mode = *mode };
    return 0;
}

static int hold(const char *path, unsigned w, unsigned h) {
    struct output o;
    if (setup(path, w, h, 0, &o)) return 2;
    if (drmModeSetCrtc(o.fd, o.crtc, o.fb, 0, 0, &o.conn, 1, &o.mode)) { perror("kmstool: SetCrtc"); return 2; }
    if (drmDropMaster(o.fd)) { perror("kmstool: DropMaster"); return 2; }
    printf("@@HELD %u %u\n", o.crtc, o.fb);
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) { /* EOF also ends the hold */ }
    close(o.fd);
    return 0;
}

/* What a well-behaved client does, as a control for the restore check: save the CRTC, show a grey
 * framebuffer at WxH for 0.5 s, put the saved framebuffer and mode back (legacy API), exit. */
static int takeover(const char *path, unsigned w, unsigned h) {
    struct output o;
    if (setup(path, w, h, 1, &o)) return 2;
    drmModeCrtc *saved = drmModeGetCrtc(o.fd, o.crtc);
    if (!saved) { perror("kmstool: GetCrtc"); return 2; }
    if (drmModeSetCrtc(o.fd, o.crtc, o.fb, 0, 0, &o.conn, 1, &o.mode)) { perror("kmstool: SetCrtc"); return 2; }
    usleep(500000);
    int rc = saved->mode_valid
        ? drmModeSetCrtc(o.fd, o.crtc, saved->buffer_id, saved->x, saved->y, &o.conn, 1, &saved->mode)
        : drmModeSetCrtc(o.fd, o.crtc, 0, 0, 0, NULL, 0, NULL);
    if (rc) { perror("kmstool: restoring SetCrtc"); return 2; }
    drmModeFreeCrtc(saved);
    close(o.fd);
    return 0;
}

/* The HDR signalling a connector carries now (what a sink would be told). */
static int hdr_state(const char *path) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) { fprintf(stderr, "kmstool: open %s: %s\n", path, strerror(errno)); return 2; }
    drmModeRes *res = drmModeGetResources(fd);
    if (!res) { fprintf(stderr, "kmstool: no KMS resources on %s\n", path); close(fd); return 2; }
    for (int i = 0; i < res->count_connectors; i++) {
        uint32_t id = res->connectors[i];
        drmModeObjectProperties *props = drmModeObjectGetProperties(fd, id, DRM_MODE_OBJECT_CONNECTOR);
        if (!props) continue;
        long long blob_id = -1, colorspace = -1;
        char bytes[2 * 256 + 1] = "", cs_name[DRM_PROP_NAME_LEN + 1] = "";
        static char edid[2 * 1024 + 1];
        edid[0] = 0;
        for (uint32_t k = 0; k < props->count_props; k++) {
            drmModePropertyRes *p = drmModeGetProperty(fd, props->props[k]);
            if (!p) continue;
            uint64_t v = props->prop_values[k];
            if (strcmp(p->name, "HDR_OUTPUT_METADATA") == 0) {
                blob_id = (long long)v;
                drmModePropertyBlobRes *b = v ? drmModeGetPropertyBlob(fd, (uint32_t)v) : NULL;
                for (uint32_t j = 0; b && j < b->length && j < 256; j++)
                    sprintf(bytes + 2 * j, "%02x", ((const unsigned char *)b->data)[j]);
                if (b) drmModeFreePropertyBlob(b);
            } else if (strcmp(p->name, "EDID") == 0) {
                drmModePropertyBlobRes *b = v ? drmModeGetPropertyBlob(fd, (uint32_t)v) : NULL;
                for (uint32_t j = 0; b && j < b->length && j < 1024; j++)
                    sprintf(edid + 2 * j, "%02x", ((const unsigned char *)b->data)[j]);
                if (b) drmModeFreePropertyBlob(b);
            } else if (strcmp(p->name, "Colorspace") == 0) {
                colorspace = (long long)v;
                for (int e = 0; e < p->count_enums; e++)
                    if (p->enums[e].value == v) snprintf(cs_name, sizeof cs_name, "%s", p->enums[e].name);
            }
            drmModeFreeProperty(p);
        }
        drmModeFreeObjectProperties(props);
        printf("{\"connector\":%u,\"hdr_output_metadata\":%lld,\"bytes\":\"%s\",\"colorspace\":%lld,"
               "\"colorspace_name\":\"%s\",\"edid\":\"%s\"}\n", id, blob_id, bytes, colorspace, cs_name, edid);
    }
    drmModeFreeResources(res);
    close(fd);
    return 0;
}

/* A VT's modes and the master question, for the vt check (see the header). */
static int vt_state(const char *device, const char *tty) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int t = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (t < 0) { fprintf(stderr, "kmstool: open %s: %s\n", tty, strerror(errno)); return 2; }
    struct vt_stat st = { 0 };
    struct vt_mode vm = { 0 };
    int kd = -1;
    int st_rc = ioctl(t, VT_GETSTATE, &st), vm_rc = ioctl(t, VT_GETMODE, &vm), kd_rc = ioctl(t, KDGETMODE, &kd);
    close(t);
    int fd = open(device, O_RDWR | O_CLOEXEC);
    if (fd < 0) { fprintf(stderr, "kmstool: open %s: %s\n", device, strerror(errno)); return 2; }
    int on_open = drmIsMaster(fd);
    int set = drmSetMaster(fd), set_errno = set ? errno : 0;
    int master = drmIsMaster(fd);
    close(fd);
    const char *kd_name = kd_rc ? "error" : kd == KD_TEXT ? "text" : kd == KD_GRAPHICS ? "graphics" : "other";
    const char *vm_name = vm_rc ? "error" : vm.mode == VT_AUTO ? "auto" : vm.mode == VT_PROCESS ? "process" : "other";
    printf("{\"mono_ns\":%lld,\"active\":%d,\"tty\":\"%s\",\"kd\":\"%s\",\"vt_mode\":\"%s\",\"relsig\":%d,"
           "\"acqsig\":%d,\"master_on_open\":%d,\"set_master\":\"%s\",\"master\":%d}\n",
           (long long)now.tv_sec * 1000000000LL + now.tv_nsec, st_rc ? -1 : st.v_active, tty, kd_name, vm_name,
           vm.relsig, vm.acqsig, on_open, set ? strerror(set_errno) : "ok", master);
    return 0;
}

static int master(const char *device) {
    int fd = open(device, O_RDWR | O_CLOEXEC);
    if (fd < 0) { fprintf(stderr, "kmstool: open %s: %s\n", device, strerror(errno)); return 2; }
    int set = drmSetMaster(fd);
    printf("@@MASTER %s\n", set ? strerror(errno) : "ok");
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) { /* EOF also ends it */ }
    close(fd);
    return set ? 2 : 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "probe") == 0) {
        char path[64];
        for (int i = 0; i < 16; i++) {
            snprintf(path, sizeof path, "/dev/dri/card%d", i);
            if (access(path, F_OK) == 0) probe_device(path);
        }
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "state") == 0) return state(argv[2]);
    if (argc == 4 && strcmp(argv[1], "planes") == 0) return planes_state(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "hdr") == 0) return hdr_state(argv[2]);
    if (argc == 4 && strcmp(argv[1], "vt") == 0) return vt_state(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "master") == 0) return master(argv[2]);
    unsigned w, h;
    if (argc == 4 && strcmp(argv[1], "hold") == 0 && sscanf(argv[3], "%ux%u", &w, &h) == 2)
        return hold(argv[2], w, h);
    if (argc == 4 && strcmp(argv[1], "takeover") == 0 && sscanf(argv[3], "%ux%u", &w, &h) == 2)
        return takeover(argv[2], w, h);
    fprintf(stderr, "usage: kmstool probe | state DEVICE | planes DEVICE PREFIX | hdr DEVICE | vt DEVICE TTY | master DEVICE | hold DEVICE WxH | takeover DEVICE WxH\n");
    return 1;
}
