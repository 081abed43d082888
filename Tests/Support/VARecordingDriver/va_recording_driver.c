/*
 * TEST FAKE — not a video driver. A libva backend ("varecord") that decodes nothing and records
 * every call a stateless HEVC decoder makes, so tests can run the VA-API rung through libva's
 * real loader and vtable without a GPU.
 *
 * Loaded by libva from $LIBVA_DRIVERS_PATH/varecord_drv_video.so when LIBVA_DRIVER_NAME=varecord.
 * The "device" is a regular file the test creates and opens for vaGetDisplayDRM(fd); the driver
 * finds its path through /proc/self/fd and
 *   - reads its configuration from the file's text (key=value per line, all optional):
 *       fail_end_picture_after=N  vaEndPicture fails (VA_STATUS_ERROR_DECODING_ERROR) for every
 *                                 picture after the first N (default: never)
 *       export_fault=NAME         vaExportSurfaceHandle writes a broken descriptor:
 *                                 no_objects | bad_object_index | mixed_modifier | wrong_fourcc |
 *                                 negative_fd
 *       main10=0                  the Main10 profile is not offered
 *   - appends its record to "<path>.record" (format below), flushed per record.
 *
 * Offered: VAProfileHEVCMain (RT format YUV420) and VAProfileHEVCMain10 (YUV420 | YUV420_10),
 * VAEntrypointVLD only. Surfaces are memfd-backed NV12 / P010 buffers so that export hands out
 * real file descriptors (one object, linear modifier).
 *
 * Record: a sequence of entries, each a 32-byte little-endian header of eight uint32
 *   magic 0x43455256 ("VREC"), kind, context, surface, buffer_type, element_size, num_elements,
 *   payload_bytes
 * followed by payload_bytes bytes. Kinds (enum rec_kind): see below; the payload of RENDER is
 * the buffer's bytes as created (element_size * num_elements), of CREATE_CONFIG the attribute
 * list, of CREATE_SURFACES the surface ids followed by the attribute list, of CREATE_CONTEXT the
 * render target ids.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <va/va.h>
#include <va/va_backend.h>
#include <va/va_drmcommon.h>

#define REC_MAGIC 0x43455256u
#define MAX_OBJECTS 4096
#define MAX_SURFACE_SIDE 8192

enum rec_kind {
    REC_CREATE_CONFIG = 1,   /* element_size = profile, num_elements = entrypoint */
    REC_CREATE_SURFACES = 2, /* surface = how many, buffer_type = RT format, element_size = width,
                                num_elements = height */
    REC_CREATE_CONTEXT = 3,  /* buffer_type = the config's profile, element_size = picture width,
                                num_elements = picture height */
    REC_BEGIN_PICTURE = 4,
    REC_RENDER = 5,          /* one per buffer in vaRenderPicture */
    REC_END_PICTURE = 6,     /* buffer_type = status returned */
    REC_SYNC_SURFACE = 7,
    REC_EXPORT = 8,          /* buffer_type = mem type, element_size = flags */
    REC_DESTROY_BUFFER = 9,  /* buffer_type = buffer type, element_size = buffer id */
    REC_CREATE_BUFFER = 10,  /* buffer_type = type, element_size = buffer id */
    REC_DESTROY_SURFACES = 11,
    REC_DESTROY_CONTEXT = 12,
    REC_RENDER_CALL = 13,    /* one per vaRenderPicture call, num_elements = buffers in it */
};

enum object_kind { OBJ_FREE = 0, OBJ_CONFIG, OBJ_SURFACE, OBJ_CONTEXT, OBJ_BUFFER };

struct object {
    enum object_kind kind;
    VADriverContextP owner;
    /* config */
    VAProfile profile;
    unsigned rt_format;
    /* surface */
    unsigned width, height, fourcc, pitch, chroma_offset, total;
    int memfd;
    /* context */
    VASurfaceID current_target;
    int in_picture;
    unsigned pictures_ended;
    /* buffer */
    VABufferType type;
    unsigned element_size, num_elements;
    unsigned char *data;
    VAContextID buffer_context;
};

struct driver {
    FILE *record;
    long fail_end_picture_after; /* -1: never */
    char export_fault[32];
    int main10;
};

/* Object ids are global so a test can tell contexts of different displays apart. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct object objects[MAX_OBJECTS];

static unsigned alloc_object(enum object_kind kind, VADriverContextP owner)
{
    for (unsigned id = 1; id < MAX_OBJECTS; id++) {
        if (objects[id].kind == OBJ_FREE) {
            memset(&objects[id], 0, sizeof objects[id]);
            objects[id].kind = kind;
            objects[id].owner = owner;
            objects[id].memfd = -1;
            return id;
        }
    }
    return VA_INVALID_ID;
}

static struct object *lookup(VADriverContextP ctx, unsigned id, enum object_kind kind)
{
    if (id == 0 || id >= MAX_OBJECTS) return NULL;
    struct object *o = &objects[id];
    return o->kind == kind && o->owner == ctx ? o : NULL;
}

static void record(VADriverContextP ctx, uint32_t kind, uint32_t context, uint32_t surface, uint32_t buffer_type,
                   uint32_t element_size, uint32_t num_elements, const void *payload, uint32_t payload_bytes)
{
    struct driver *d = ctx->pDriverData;
    if (!d || !d->record) return;
    uint32_t h[8] = { REC_MAGIC, kind, context, surface, buffer_type, element_size, num_elements, payload_bytes };
    fwrite(h, sizeof h, 1, d->record);
    if (payload_bytes) fwrite(payload, payload_bytes, 1, d->record);
    fflush(d->record);
}

static void read_config(struct driver *d, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        char *value = eq + 1;
        value[strcspn(value, "\r\n")] = 0;
        if (strcmp(line, "fail_end_picture_after") == 0) d->fail_end_picture_after = strtol(value, NULL, 10);
        else if (strcmp(line, "export_fault") == 0) snprintf(d->export_fault, sizeof d->export_fault, "%s", value);
        else if (strcmp(line, "main10") == 0) d->main10 = atoi(value);
    }
    fclose(f);
}

/* ---- queries ---- */

static VAStatus rec_QueryConfigProfiles(VADriverContextP ctx, VAProfile *list, int *num)
{
    struct driver *d = ctx->pDriverData;
    int n = 0;
    list[n++] = VAProfileHEVCMain;
    if (d->main10) list[n++] = VAProfileHEVCMain10;
    *num = n;
    return VA_STATUS_SUCCESS;
}

static int profile_offered(VADriverContextP ctx, VAProfile p)
{
    struct driver *d = ctx->pDriverData;
    return p == VAProfileHEVCMain || (p == VAProfileHEVCMain10 && d->main10);
}

static VAStatus rec_QueryConfigEntrypoints(VADriverContextP ctx, VAProfile profile, VAEntrypoint *list, int *num)
{
    if (!profile_offered(ctx, profile)) { *num = 0; return VA_STATUS_ERROR_UNSUPPORTED_PROFILE; }
    list[0] = VAEntrypointVLD;
    *num = 1;
    return VA_STATUS_SUCCESS;
}

static unsigned rt_formats(VAProfile profile)
{
    return profile == VAProfileHEVCMain10 ? (VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10) : VA_RT_FORMAT_YUV420;
}

static VAStatus rec_GetConfigAttributes(VADriverContextP ctx, VAProfile profile, VAEntrypoint ep,
                                        VAConfigAttrib *attribs, int num)
{
    if (!profile_offered(ctx, profile)) return VA_STATUS_ERROR_UNSUPPORTED_PROFILE;
    if (ep != VAEntrypointVLD) return VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT;
    for (int i = 0; i < num; i++)
        attribs[i].value = attribs[i].type == VAConfigAttribRTFormat ? rt_formats(profile) : VA_ATTRIB_NOT_SUPPORTED;
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_CreateConfig(VADriverContextP ctx, VAProfile profile, VAEntrypoint ep,
                                 VAConfigAttrib *attribs, int num, VAConfigID *out)
{
    if (!profile_offered(ctx, profile)) return VA_STATUS_ERROR_UNSUPPORTED_PROFILE;
    if (ep != VAEntrypointVLD) return VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT;
    /* Like iHD and Mesa: a config created without an RT-format attribute offers every format
     * the profile supports (libavcodec creates its config that way, then picks the surface
     * format from vaQuerySurfaceAttributes). */
    unsigned rt = rt_formats(profile);
    for (int i = 0; i < num; i++) {
        if (attribs[i].type != VAConfigAttribRTFormat) continue;
        if ((attribs[i].value & rt_formats(profile)) != attribs[i].value || attribs[i].value == 0)
            return VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT;
        rt = attribs[i].value;
    }
    pthread_mutex_lock(&lock);
    unsigned id = alloc_object(OBJ_CONFIG, ctx);
    if (id != VA_INVALID_ID) { objects[id].profile = profile; objects[id].rt_format = rt; }
    pthread_mutex_unlock(&lock);
    if (id == VA_INVALID_ID) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    record(ctx, REC_CREATE_CONFIG, 0, 0, 0, (uint32_t)profile, (uint32_t)ep, attribs,
           (uint32_t)(num * (int)sizeof *attribs));
    *out = id;
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_DestroyConfig(VADriverContextP ctx, VAConfigID id)
{
    pthread_mutex_lock(&lock);
    struct object *o = lookup(ctx, id, OBJ_CONFIG);
    if (o) o->kind = OBJ_FREE;
    pthread_mutex_unlock(&lock);
    return o ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_CONFIG;
}

static VAStatus rec_QueryConfigAttributes(VADriverContextP ctx, VAConfigID id, VAProfile *profile,
                                          VAEntrypoint *ep, VAConfigAttrib *attribs, int *num)
{
    pthread_mutex_lock(&lock);
    struct object *o = lookup(ctx, id, OBJ_CONFIG);
    if (o) {
        *profile = o->profile;
        *ep = VAEntrypointVLD;
        attribs[0].type = VAConfigAttribRTFormat;
        attribs[0].value = o->rt_format;
        *num = 1;
    }
    pthread_mutex_unlock(&lock);
    return o ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_CONFIG;
}

/* ---- surfaces ---- */

static VAStatus create_surfaces(VADriverContextP ctx, unsigned format, unsigned width, unsigned height,
                                VASurfaceID *surfaces, unsigned num, VASurfaceAttrib *attribs, unsigned num_attribs)
{
    if (format != VA_RT_FORMAT_YUV420 && format != VA_RT_FORMAT_YUV420_10) return VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT;
    if (width == 0 || height == 0 || width > MAX_SURFACE_SIDE || height > MAX_SURFACE_SIDE || num == 0)
        return VA_STATUS_ERROR_INVALID_PARAMETER;
    unsigned fourcc = format == VA_RT_FORMAT_YUV420 ? VA_FOURCC_NV12 : VA_FOURCC_P010;
    for (unsigned i = 0; i < num_attribs; i++)
        if (attribs[i].type == VASurfaceAttribPixelFormat) fourcc = (unsigned)attribs[i].value.value.i;
    if ((format == VA_RT_FORMAT_YUV420 && fourcc != VA_FOURCC_NV12) ||
        (format == VA_RT_FORMAT_YUV420_10 && fourcc != VA_FOURCC_P010))
        return VA_STATUS_ERROR_INVALID_IMAGE_FORMAT;
    unsigned bps = fourcc == VA_FOURCC_P010 ? 2 : 1;
    unsigned pitch = (width * bps + 63) & ~63u, rows = (height + 15) & ~15u;
    pthread_mutex_lock(&lock);
    unsigned made = 0;
    for (; made < num; made++) {
        unsigned id = alloc_object(OBJ_SURFACE, ctx);
        if (id == VA_INVALID_ID) break;
        struct object *o = &objects[id];
        o->width = width; o->height = height; o->fourcc = fourcc; o->pitch = pitch;
        o->chroma_offset = pitch * rows;
        o->total = pitch * rows + pitch * rows / 2;
        o->memfd = memfd_create("varecord-surface", MFD_CLOEXEC);
        if (o->memfd < 0 || ftruncate(o->memfd, o->total) != 0) {
            if (o->memfd >= 0) close(o->memfd);
            o->kind = OBJ_FREE;
            break;
        }
        surfaces[made] = id;
    }
    if (made < num) {
        for (unsigned i = 0; i < made; i++) { close(objects[surfaces[i]].memfd); objects[surfaces[i]].kind = OBJ_FREE; }
    }
    pthread_mutex_unlock(&lock);
    if (made < num) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    size_t bytes = num * sizeof *surfaces + num_attribs * sizeof *attribs;
    unsigned char *payload = malloc(bytes ? bytes : 1);
    if (payload) {
        memcpy(payload, surfaces, num * sizeof *surfaces);
        if (num_attribs) memcpy(payload + num * sizeof *surfaces, attribs, num_attribs * sizeof *attribs);
        record(ctx, REC_CREATE_SURFACES, 0, num, format, width, height, payload, (uint32_t)bytes);
        free(payload);
    }
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_CreateSurfaces(VADriverContextP ctx, int width, int height, int format, int num, VASurfaceID *surfaces)
{
    return create_surfaces(ctx, (unsigned)format, (unsigned)width, (unsigned)height, surfaces, (unsigned)num, NULL, 0);
}

static VAStatus rec_CreateSurfaces2(VADriverContextP ctx, unsigned format, unsigned width, unsigned height,
                                    VASurfaceID *surfaces, unsigned num, VASurfaceAttrib *attribs, unsigned num_attribs)
{
    return create_surfaces(ctx, format, width, height, surfaces, num, attribs, num_attribs);
}

static VAStatus rec_DestroySurfaces(VADriverContextP ctx, VASurfaceID *list, int num)
{
    VAStatus status = VA_STATUS_SUCCESS;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < num; i++) {
        struct object *o = lookup(ctx, list[i], OBJ_SURFACE);
        if (!o) { status = VA_STATUS_ERROR_INVALID_SURFACE; continue; }
        close(o->memfd);
        o->kind = OBJ_FREE;
    }
    pthread_mutex_unlock(&lock);
    record(ctx, REC_DESTROY_SURFACES, 0, 0, 0, 0, (uint32_t)num, list, (uint32_t)(num * (int)sizeof *list));
    return status;
}

static VAStatus rec_QuerySurfaceAttributes(VADriverContextP ctx, VAConfigID config, VASurfaceAttrib *attribs, unsigned *num)
{
    pthread_mutex_lock(&lock);
    struct object *c = lookup(ctx, config, OBJ_CONFIG);
    unsigned rt = c ? c->rt_format : 0;
    pthread_mutex_unlock(&lock);
    if (!c) return VA_STATUS_ERROR_INVALID_CONFIG;
    unsigned n = 0;
    VASurfaceAttrib all[8];
    memset(all, 0, sizeof all);
    if (rt & VA_RT_FORMAT_YUV420) {
        all[n].type = VASurfaceAttribPixelFormat; all[n].flags = VA_SURFACE_ATTRIB_GETTABLE | VA_SURFACE_ATTRIB_SETTABLE;
        all[n].value.type = VAGenericValueTypeInteger; all[n].value.value.i = VA_FOURCC_NV12; n++;
    }
    if (rt & VA_RT_FORMAT_YUV420_10) {
        all[n].type = VASurfaceAttribPixelFormat; all[n].flags = VA_SURFACE_ATTRIB_GETTABLE | VA_SURFACE_ATTRIB_SETTABLE;
        all[n].value.type = VAGenericValueTypeInteger; all[n].value.value.i = VA_FOURCC_P010; n++;
    }
    /* The size limits every real driver reports (libavcodec checks the coded size against them). */
    static const VASurfaceAttribType limits[4] = { VASurfaceAttribMinWidth, VASurfaceAttribMinHeight,
                                                   VASurfaceAttribMaxWidth, VASurfaceAttribMaxHeight };
    for (unsigned k = 0; k < 4; k++) {
        all[n].type = limits[k]; all[n].flags = VA_SURFACE_ATTRIB_GETTABLE;
        all[n].value.type = VAGenericValueTypeInteger; all[n].value.value.i = k < 2 ? 16 : MAX_SURFACE_SIDE; n++;
    }
    all[n].type = VASurfaceAttribMemoryType; all[n].flags = VA_SURFACE_ATTRIB_GETTABLE;
    all[n].value.type = VAGenericValueTypeInteger; all[n].value.value.i = VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2; n++;
    if (!attribs) { *num = n; return VA_STATUS_SUCCESS; }
    if (*num < n) { *num = n; return VA_STATUS_ERROR_MAX_NUM_EXCEEDED; }
    memcpy(attribs, all, n * sizeof *attribs);
    *num = n;
    return VA_STATUS_SUCCESS;
}

/* ---- contexts and buffers ---- */

static VAStatus rec_CreateContext(VADriverContextP ctx, VAConfigID config, int w, int h, int flag,
                                  VASurfaceID *targets, int num_targets, VAContextID *out)
{
    (void)flag;
    pthread_mutex_lock(&lock);
    struct object *c = lookup(ctx, config, OBJ_CONFIG);
    VAProfile profile = c ? c->profile : VAProfileNone;
    unsigned id = c ? alloc_object(OBJ_CONTEXT, ctx) : VA_INVALID_ID;
    if (id != VA_INVALID_ID) objects[id].current_target = VA_INVALID_SURFACE;
    pthread_mutex_unlock(&lock);
    if (id == VA_INVALID_ID) return VA_STATUS_ERROR_INVALID_CONFIG;
    record(ctx, REC_CREATE_CONTEXT, id, 0, (uint32_t)profile, (uint32_t)w, (uint32_t)h, targets,
           (uint32_t)(num_targets * (int)sizeof *targets));
    *out = id;
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_DestroyContext(VADriverContextP ctx, VAContextID id)
{
    pthread_mutex_lock(&lock);
    struct object *o = lookup(ctx, id, OBJ_CONTEXT);
    if (o) o->kind = OBJ_FREE;
    pthread_mutex_unlock(&lock);
    if (o) record(ctx, REC_DESTROY_CONTEXT, id, 0, 0, 0, 0, NULL, 0);
    return o ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_CONTEXT;
}

static VAStatus rec_CreateBuffer(VADriverContextP ctx, VAContextID context, VABufferType type, unsigned size,
                                 unsigned num_elements, void *data, VABufferID *out)
{
    if (size == 0 || num_elements == 0 || (uint64_t)size * num_elements > (64u << 20)) return VA_STATUS_ERROR_INVALID_PARAMETER;
    unsigned char *copy = calloc(num_elements, size);
    if (!copy) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    if (data) memcpy(copy, data, (size_t)size * num_elements);
    pthread_mutex_lock(&lock);
    unsigned id = lookup(ctx, context, OBJ_CONTEXT) ? alloc_object(OBJ_BUFFER, ctx) : VA_INVALID_ID;
    if (id != VA_INVALID_ID) {
        objects[id].type = type; objects[id].element_size = size; objects[id].num_elements = num_elements;
        objects[id].data = copy; objects[id].buffer_context = context;
    }
    pthread_mutex_unlock(&lock);
    if (id == VA_INVALID_ID) { free(copy); return VA_STATUS_ERROR_INVALID_CONTEXT; }
    record(ctx, REC_CREATE_BUFFER, context, 0, (uint32_t)type, id, num_elements, NULL, 0);
    *out = id;
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_BufferSetNumElements(VADriverContextP ctx, VABufferID id, unsigned n)
{
    (void)ctx; (void)id; (void)n;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus rec_MapBuffer(VADriverContextP ctx, VABufferID id, void **p)
{
    pthread_mutex_lock(&lock);
    struct object *o = lookup(ctx, id, OBJ_BUFFER);
    if (o) *p = o->data;
    pthread_mutex_unlock(&lock);
    return o ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_BUFFER;
}

static VAStatus rec_UnmapBuffer(VADriverContextP ctx, VABufferID id)
{
    pthread_mutex_lock(&lock);
    struct object *o = lookup(ctx, id, OBJ_BUFFER);
    pthread_mutex_unlock(&lock);
    return o ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_BUFFER;
}

static VAStatus rec_DestroyBuffer(VADriverContextP ctx, VABufferID id)
{
    pthread_mutex_lock(&lock);
    struct object *o = lookup(ctx, id, OBJ_BUFFER);
    VABufferType type = 0;
    VAContextID context = 0;
    if (o) { type = o->type; context = o->buffer_context; free(o->data); o->data = NULL; o->kind = OBJ_FREE; }
    pthread_mutex_unlock(&lock);
    if (!o) return VA_STATUS_ERROR_INVALID_BUFFER;
    record(ctx, REC_DESTROY_BUFFER, context, 0, (uint32_t)type, id, 0, NULL, 0);
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_BufferInfo(VADriverContextP ctx, VABufferID id, VABufferType *type, unsigned *size, unsigned *num)
{
    pthread_mutex_lock(&lock);
    struct object *o = lookup(ctx, id, OBJ_BUFFER);
    if (o) { *type = o->type; *size = o->element_size; *num = o->num_elements; }
    pthread_mutex_unlock(&lock);
    return o ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_BUFFER;
}

/* ---- decode ---- */

static VAStatus rec_BeginPicture(VADriverContextP ctx, VAContextID context, VASurfaceID target)
{
    pthread_mutex_lock(&lock);
    struct object *c = lookup(ctx, context, OBJ_CONTEXT);
    struct object *s = lookup(ctx, target, OBJ_SURFACE);
    VAStatus status = !c ? VA_STATUS_ERROR_INVALID_CONTEXT : !s ? VA_STATUS_ERROR_INVALID_SURFACE
                    : c->in_picture ? VA_STATUS_ERROR_OPERATION_FAILED : VA_STATUS_SUCCESS;
    if (status == VA_STATUS_SUCCESS) { c->in_picture = 1; c->current_target = target; }
    pthread_mutex_unlock(&lock);
    record(ctx, REC_BEGIN_PICTURE, context, target, status, 0, 0, NULL, 0);
    return status;
}

/* The sizes a client must use for the HEVC parameter buffers (checked against this header). */
static unsigned expected_size(VABufferType type)
{
    switch (type) {
    case VAPictureParameterBufferType: return sizeof(VAPictureParameterBufferHEVC);
    case VASliceParameterBufferType: return sizeof(VASliceParameterBufferHEVC);
    case VAIQMatrixBufferType: return sizeof(VAIQMatrixBufferHEVC);
    default: return 0;
    }
}

static VAStatus rec_RenderPicture(VADriverContextP ctx, VAContextID context, VABufferID *buffers, int num)
{
    pthread_mutex_lock(&lock);
    struct object *c = lookup(ctx, context, OBJ_CONTEXT);
    VAStatus status = !c ? VA_STATUS_ERROR_INVALID_CONTEXT : !c->in_picture ? VA_STATUS_ERROR_OPERATION_FAILED
                    : VA_STATUS_SUCCESS;
    VASurfaceID target = c ? c->current_target : VA_INVALID_SURFACE;
    for (int i = 0; status == VA_STATUS_SUCCESS && i < num; i++) {
        struct object *b = lookup(ctx, buffers[i], OBJ_BUFFER);
        if (!b) { status = VA_STATUS_ERROR_INVALID_BUFFER; break; }
        unsigned want = expected_size(b->type);
        if (want && b->element_size != want) status = VA_STATUS_ERROR_INVALID_BUFFER;
    }
    pthread_mutex_unlock(&lock);
    if (status != VA_STATUS_SUCCESS) return status;
    record(ctx, REC_RENDER_CALL, context, target, 0, 0, (uint32_t)num, NULL, 0);
    for (int i = 0; i < num; i++) {
        pthread_mutex_lock(&lock);
        struct object *b = lookup(ctx, buffers[i], OBJ_BUFFER);
        if (!b) { pthread_mutex_unlock(&lock); return VA_STATUS_ERROR_INVALID_BUFFER; }
        struct object snapshot = *b;
        size_t bytes = (size_t)b->element_size * b->num_elements;
        unsigned char *copy = malloc(bytes);
        if (copy) memcpy(copy, b->data, bytes);
        pthread_mutex_unlock(&lock);
        record(ctx, REC_RENDER, context, target, (uint32_t)snapshot.type, snapshot.element_size,
               snapshot.num_elements, copy, copy ? (uint32_t)bytes : 0);
        free(copy);
    }
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_EndPicture(VADriverContextP ctx, VAContextID context)
{
    struct driver *d = ctx->pDriverData;
    pthread_mutex_lock(&lock);
    struct object *c = lookup(ctx, context, OBJ_CONTEXT);
    VAStatus status = !c ? VA_STATUS_ERROR_INVALID_CONTEXT : !c->in_picture ? VA_STATUS_ERROR_OPERATION_FAILED
                    : VA_STATUS_SUCCESS;
    VASurfaceID target = c ? c->current_target : VA_INVALID_SURFACE;
    if (status == VA_STATUS_SUCCESS) {
        c->in_picture = 0;
        if (d->fail_end_picture_after >= 0 && c->pictures_ended >= (unsigned long)d->fail_end_picture_after)
            status = VA_STATUS_ERROR_DECODING_ERROR;
        c->pictures_ended++;
    }
    pthread_mutex_unlock(&lock);
    record(ctx, REC_END_PICTURE, context, target, (uint32_t)status, 0, 0, NULL, 0);
    return status;
}

static VAStatus rec_SyncSurface(VADriverContextP ctx, VASurfaceID surface)
{
    pthread_mutex_lock(&lock);
    struct object *s = lookup(ctx, surface, OBJ_SURFACE);
    pthread_mutex_unlock(&lock);
    if (!s) return VA_STATUS_ERROR_INVALID_SURFACE;
    record(ctx, REC_SYNC_SURFACE, 0, surface, 0, 0, 0, NULL, 0);
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_QuerySurfaceStatus(VADriverContextP ctx, VASurfaceID surface, VASurfaceStatus *status)
{
    pthread_mutex_lock(&lock);
    struct object *s = lookup(ctx, surface, OBJ_SURFACE);
    pthread_mutex_unlock(&lock);
    if (!s) return VA_STATUS_ERROR_INVALID_SURFACE;
    *status = VASurfaceReady;
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_ExportSurfaceHandle(VADriverContextP ctx, VASurfaceID surface, uint32_t mem_type,
                                        uint32_t flags, void *descriptor)
{
    struct driver *d = ctx->pDriverData;
    if (mem_type != VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2) return VA_STATUS_ERROR_UNSUPPORTED_MEMORY_TYPE;
    pthread_mutex_lock(&lock);
    struct object *s = lookup(ctx, surface, OBJ_SURFACE);
    struct object copy;
    if (s) copy = *s;
    pthread_mutex_unlock(&lock);
    if (!s) return VA_STATUS_ERROR_INVALID_SURFACE;
    VADRMPRIMESurfaceDescriptor *desc = descriptor;
    memset(desc, 0, sizeof *desc);
    int p010 = copy.fourcc == VA_FOURCC_P010;
    desc->fourcc = copy.fourcc;
    desc->width = copy.width;
    desc->height = copy.height;
    desc->num_objects = 1;
    desc->objects[0].fd = fcntl(copy.memfd, F_DUPFD_CLOEXEC, 0);
    if (desc->objects[0].fd < 0) return VA_STATUS_ERROR_OPERATION_FAILED;
    desc->objects[0].size = copy.total;
    desc->objects[0].drm_format_modifier = 0; /* DRM_FORMAT_MOD_LINEAR */
    /* DRM fourccs: R8 'R8  ', GR88 'GR88', R16 'R16 ', GR32 'GR32' (= GR1616). */
    uint32_t luma = p010 ? 0x20363152u : 0x20203852u, chroma = p010 ? 0x32335247u : 0x38385247u;
    if (flags & VA_EXPORT_SURFACE_SEPARATE_LAYERS) {
        desc->num_layers = 2;
        desc->layers[0].drm_format = luma; desc->layers[0].num_planes = 1;
        desc->layers[0].offset[0] = 0; desc->layers[0].pitch[0] = copy.pitch;
        desc->layers[1].drm_format = chroma; desc->layers[1].num_planes = 1;
        desc->layers[1].offset[0] = copy.chroma_offset; desc->layers[1].pitch[0] = copy.pitch;
    } else {
        desc->num_layers = 1;
        desc->layers[0].drm_format = p010 ? 0x30313050u : 0x3231564eu; /* 'P010' / 'NV12' */
        desc->layers[0].num_planes = 2;
        desc->layers[0].offset[1] = copy.chroma_offset;
        desc->layers[0].pitch[0] = desc->layers[0].pitch[1] = copy.pitch;
    }
    if (strcmp(d->export_fault, "no_objects") == 0) { close(desc->objects[0].fd); desc->objects[0].fd = -1; desc->num_objects = 0; }
    else if (strcmp(d->export_fault, "bad_object_index") == 0) desc->layers[1].object_index[0] = 2;
    else if (strcmp(d->export_fault, "wrong_fourcc") == 0) desc->fourcc = p010 ? VA_FOURCC_NV12 : VA_FOURCC_P010;
    else if (strcmp(d->export_fault, "negative_fd") == 0) { close(desc->objects[0].fd); desc->objects[0].fd = -1; }
    else if (strcmp(d->export_fault, "mixed_modifier") == 0) {
        desc->num_objects = 2;
        desc->objects[1].fd = fcntl(copy.memfd, F_DUPFD_CLOEXEC, 0);
        desc->objects[1].size = copy.total;
        desc->objects[1].drm_format_modifier = 0x0100000000000001ull; /* I915_FORMAT_MOD_X_TILED */
        desc->layers[1].object_index[0] = 1;
    }
    record(ctx, REC_EXPORT, 0, surface, mem_type, flags, 0, NULL, 0);
    return VA_STATUS_SUCCESS;
}

/* The formats of the surfaces (libavcodec maps them to its software pixel formats at device
 * initialisation); nothing is ever read back. */
static VAStatus rec_QueryImageFormats(VADriverContextP ctx, VAImageFormat *list, int *num)
{
    (void)ctx;
    memset(list, 0, 2 * sizeof *list);
    list[0].fourcc = VA_FOURCC_NV12; list[0].byte_order = VA_LSB_FIRST; list[0].bits_per_pixel = 12;
    list[1].fourcc = VA_FOURCC_P010; list[1].byte_order = VA_LSB_FIRST; list[1].bits_per_pixel = 24;
    *num = 2;
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_QuerySubpictureFormats(VADriverContextP ctx, VAImageFormat *list, unsigned *flags, unsigned *num)
{
    (void)ctx; (void)list; (void)flags;
    *num = 0;
    return VA_STATUS_SUCCESS;
}

static VAStatus rec_QueryDisplayAttributes(VADriverContextP ctx, VADisplayAttribute *list, int *num)
{
    (void)ctx; (void)list;
    *num = 0;
    return VA_STATUS_SUCCESS;
}

/* Image, subpicture and display-attribute entry points: libva refuses a driver without them;
 * a decoder never calls them. */
static VAStatus rec_CreateImage(VADriverContextP c, VAImageFormat *f, int w, int h, VAImage *i)
{ (void)c; (void)f; (void)w; (void)h; (void)i; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_DeriveImage(VADriverContextP c, VASurfaceID s, VAImage *i)
{ (void)c; (void)s; (void)i; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_DestroyImage(VADriverContextP c, VAImageID i)
{ (void)c; (void)i; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_SetImagePalette(VADriverContextP c, VAImageID i, unsigned char *p)
{ (void)c; (void)i; (void)p; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_GetImage(VADriverContextP c, VASurfaceID s, int x, int y, unsigned w, unsigned h, VAImageID i)
{ (void)c; (void)s; (void)x; (void)y; (void)w; (void)h; (void)i; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_PutImage(VADriverContextP c, VASurfaceID s, VAImageID i, int sx, int sy, unsigned sw, unsigned sh,
                             int dx, int dy, unsigned dw, unsigned dh)
{ (void)c; (void)s; (void)i; (void)sx; (void)sy; (void)sw; (void)sh; (void)dx; (void)dy; (void)dw; (void)dh;
  return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_CreateSubpicture(VADriverContextP c, VAImageID i, VASubpictureID *s)
{ (void)c; (void)i; (void)s; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_DestroySubpicture(VADriverContextP c, VASubpictureID s)
{ (void)c; (void)s; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_SetSubpictureImage(VADriverContextP c, VASubpictureID s, VAImageID i)
{ (void)c; (void)s; (void)i; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_SetSubpictureChromakey(VADriverContextP c, VASubpictureID s, unsigned a, unsigned b, unsigned m)
{ (void)c; (void)s; (void)a; (void)b; (void)m; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_SetSubpictureGlobalAlpha(VADriverContextP c, VASubpictureID s, float a)
{ (void)c; (void)s; (void)a; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_AssociateSubpicture(VADriverContextP c, VASubpictureID s, VASurfaceID *t, int n, short sx, short sy,
                                        unsigned short sw, unsigned short sh, short dx, short dy, unsigned short dw,
                                        unsigned short dh, unsigned f)
{ (void)c; (void)s; (void)t; (void)n; (void)sx; (void)sy; (void)sw; (void)sh; (void)dx; (void)dy; (void)dw; (void)dh;
  (void)f; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_DeassociateSubpicture(VADriverContextP c, VASubpictureID s, VASurfaceID *t, int n)
{ (void)c; (void)s; (void)t; (void)n; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_GetDisplayAttributes(VADriverContextP c, VADisplayAttribute *a, int n)
{ (void)c; (void)a; (void)n; return VA_STATUS_ERROR_UNIMPLEMENTED; }
static VAStatus rec_SetDisplayAttributes(VADriverContextP c, VADisplayAttribute *a, int n)
{ (void)c; (void)a; (void)n; return VA_STATUS_ERROR_UNIMPLEMENTED; }

static VAStatus rec_Terminate(VADriverContextP ctx)
{
    struct driver *d = ctx->pDriverData;
    pthread_mutex_lock(&lock);
    for (unsigned id = 1; id < MAX_OBJECTS; id++) {
        struct object *o = &objects[id];
        if (o->kind == OBJ_FREE || o->owner != ctx) continue;
        if (o->kind == OBJ_SURFACE && o->memfd >= 0) close(o->memfd);
        if (o->kind == OBJ_BUFFER) free(o->data);
        o->kind = OBJ_FREE;
    }
    pthread_mutex_unlock(&lock);
    if (d) {
        if (d->record) fclose(d->record);
        free(d);
    }
    ctx->pDriverData = NULL;
    return VA_STATUS_SUCCESS;
}

/* ---- the display ----
 * libva-drm's vaGetDisplayDRM(fd) refuses any fd that drmGetNodeTypeFromFd does not recognise as
 * a DRM node (it checks /sys/dev/char/MAJ:MIN/device/drm), so no regular file or memfd passes it.
 * varec_display_for_fd builds the same display libva-drm builds — a display context and driver
 * context from libva's exported constructors, a drm_state holding the fd, display type DRM —
 * without that check. vaInitialize on it then runs libva's real loader: LIBVA_DRIVER_NAME /
 * LIBVA_DRIVERS_PATH, dlopen, __vaDriverInit_1_17, the vtable. */

/* Exported by libva.so.2 for its display backends (not in the installed headers). */
VADisplayContextP va_newDisplayContext(void);
VADriverContextP va_newDriverContext(VADisplayContextP dctx);

static int display_is_valid(VADisplayContextP dctx)
{
    return dctx && dctx->pDriverContext && dctx->pDriverContext->drm_state;
}

static void display_destroy(VADisplayContextP dctx)
{
    if (!dctx) return;
    if (dctx->pDriverContext) {
        free(dctx->pDriverContext->drm_state);
        free(dctx->pDriverContext);
    }
    free(dctx);
}

static VAStatus display_driver_name(VADisplayContextP dctx, char **name)
{
    (void)dctx;
    *name = strdup("varecord");
    return *name ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_ALLOCATION_FAILED;
}

static VAStatus display_num_candidates(VADisplayContextP dctx, int *n)
{
    (void)dctx;
    *n = 1;
    return VA_STATUS_SUCCESS;
}

static VAStatus display_driver_name_by_index(VADisplayContextP dctx, char **name, int index)
{
    (void)index;
    return display_driver_name(dctx, name);
}

VADisplay varec_display_for_fd(int fd);

VADisplay varec_display_for_fd(int fd)
{
    if (fd < 0) return NULL;
    VADisplayContextP dctx = va_newDisplayContext();
    if (!dctx) return NULL;
    dctx->vaIsValid = display_is_valid;
    dctx->vaDestroy = display_destroy;
    dctx->vaGetDriverName = display_driver_name;
    dctx->vaGetNumCandidates = display_num_candidates;
    dctx->vaGetDriverNameByIndex = display_driver_name_by_index;
    VADriverContextP ctx = va_newDriverContext(dctx);
    struct drm_state *drm = calloc(1, sizeof *drm);
    if (!ctx || !drm) { free(drm); display_destroy(dctx); return NULL; }
    ctx->display_type = VA_DISPLAY_DRM;
    drm->fd = fd;
    ctx->drm_state = drm;
    return (VADisplay)dctx;
}

/* libva 2.17 (VA-API 1.17) looks for __vaDriverInit_1_17 first. */
VAStatus __vaDriverInit_1_17(VADriverContextP ctx);

VAStatus __vaDriverInit_1_17(VADriverContextP ctx)
{
    struct driver *d = calloc(1, sizeof *d);
    if (!d) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    d->fail_end_picture_after = -1;
    d->main10 = 1;
    struct drm_state *drm = ctx->drm_state;
    if (drm && drm->fd >= 0) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", drm->fd);
        ssize_t n = readlink(link, path, sizeof path - 16);
        if (n > 0) {
            path[n] = 0;
            read_config(d, path);
            strcat(path, ".record");
            d->record = fopen(path, "ae");
        }
    }
    ctx->pDriverData = d;
    ctx->version_major = VA_MAJOR_VERSION;
    ctx->version_minor = VA_MINOR_VERSION;
    ctx->max_profiles = 2;
    ctx->max_entrypoints = 1;
    ctx->max_attributes = 4;
    ctx->max_image_formats = 2;
    ctx->max_subpic_formats = 1;
    ctx->max_display_attributes = 1;
    ctx->str_vendor = "punktfunk VA recording driver (test fake)";

    struct VADriverVTable *vt = ctx->vtable;
    vt->vaTerminate = rec_Terminate;
    vt->vaQueryConfigProfiles = rec_QueryConfigProfiles;
    vt->vaQueryConfigEntrypoints = rec_QueryConfigEntrypoints;
    vt->vaGetConfigAttributes = rec_GetConfigAttributes;
    vt->vaCreateConfig = rec_CreateConfig;
    vt->vaDestroyConfig = rec_DestroyConfig;
    vt->vaQueryConfigAttributes = rec_QueryConfigAttributes;
    vt->vaCreateSurfaces = rec_CreateSurfaces;
    vt->vaCreateSurfaces2 = rec_CreateSurfaces2;
    vt->vaDestroySurfaces = rec_DestroySurfaces;
    vt->vaQuerySurfaceAttributes = rec_QuerySurfaceAttributes;
    vt->vaCreateContext = rec_CreateContext;
    vt->vaDestroyContext = rec_DestroyContext;
    vt->vaCreateBuffer = rec_CreateBuffer;
    vt->vaBufferSetNumElements = rec_BufferSetNumElements;
    vt->vaMapBuffer = rec_MapBuffer;
    vt->vaUnmapBuffer = rec_UnmapBuffer;
    vt->vaDestroyBuffer = rec_DestroyBuffer;
    vt->vaBufferInfo = rec_BufferInfo;
    vt->vaBeginPicture = rec_BeginPicture;
    vt->vaRenderPicture = rec_RenderPicture;
    vt->vaEndPicture = rec_EndPicture;
    vt->vaSyncSurface = rec_SyncSurface;
    vt->vaQuerySurfaceStatus = rec_QuerySurfaceStatus;
    vt->vaExportSurfaceHandle = rec_ExportSurfaceHandle;
    vt->vaQueryImageFormats = rec_QueryImageFormats;
    vt->vaQuerySubpictureFormats = rec_QuerySubpictureFormats;
    vt->vaQueryDisplayAttributes = rec_QueryDisplayAttributes;
    vt->vaCreateImage = rec_CreateImage;
    vt->vaDeriveImage = rec_DeriveImage;
    vt->vaDestroyImage = rec_DestroyImage;
    vt->vaSetImagePalette = rec_SetImagePalette;
    vt->vaGetImage = rec_GetImage;
    vt->vaPutImage = rec_PutImage;
    vt->vaCreateSubpicture = rec_CreateSubpicture;
    vt->vaDestroySubpicture = rec_DestroySubpicture;
    vt->vaSetSubpictureImage = rec_SetSubpictureImage;
    vt->vaSetSubpictureChromakey = rec_SetSubpictureChromakey;
    vt->vaSetSubpictureGlobalAlpha = rec_SetSubpictureGlobalAlpha;
    vt->vaAssociateSubpicture = rec_AssociateSubpicture;
    vt->vaDeassociateSubpicture = rec_DeassociateSubpicture;
    vt->vaGetDisplayAttributes = rec_GetDisplayAttributes;
    vt->vaSetDisplayAttributes = rec_SetDisplayAttributes;
    return VA_STATUS_SUCCESS;
}
