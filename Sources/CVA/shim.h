#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_drmcommon.h>
#include <va/va_str.h>

#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <linux/dma-buf.h>
#include <libdrm/drm.h>
#include <string.h>

/* Constants Swift cannot import (function-like macros or casts in libva's headers). */
#define PF_VA_FOURCC_NV12 0x3231564Eu
#define PF_VA_FOURCC_P010 0x30313050u
#define PF_VA_INVALID_ID 0xFFFFFFFFu

/// A sync_file fd snapshotting the fences a reader of the dma-buf `fd` must wait for
/// (DMA_BUF_IOCTL_EXPORT_SYNC_FILE, DMA_BUF_SYNC_READ; Linux ≥ 6.0). Returns -errno on failure
/// (-ENOTTY: the kernel or the exporter has no such ioctl).
static inline int pf_dmabuf_export_sync_file(int fd) {
#ifdef DMA_BUF_IOCTL_EXPORT_SYNC_FILE
    struct dma_buf_export_sync_file arg = { .flags = DMA_BUF_SYNC_READ, .fd = -1 };
    if (ioctl(fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &arg) != 0) return -errno;
    return arg.fd;
#else
    (void)fd;
    return -ENOTTY;
#endif
}

/// The DRM driver name of the node behind `fd` (DRM_IOCTL_VERSION: "i915", "amdgpu", "xe" …),
/// NUL-terminated in `name`. Returns 0, or -errno (-ENOTTY: `fd` is not a DRM node). Here rather
/// than in CDRM so the VA-API rung needs no libdrm link for one ioctl.
static inline int pf_drm_driver_name(int fd, char *name, size_t capacity) {
    if (capacity == 0) return -EINVAL;
    struct drm_version v;
    memset(&v, 0, sizeof v);
    v.name = name;
    v.name_len = capacity - 1;
    if (ioctl(fd, DRM_IOCTL_VERSION, &v) != 0) return -errno;
    name[v.name_len < capacity ? v.name_len : capacity - 1] = 0;
    return 0;
}

/* Layout of the libva HEVC decode structs as the C compiler sees the installed headers; the
 * tests compare them with Swift's MemoryLayout (sizes and the offsets the rung writes). */
enum pf_va_layout_field {
    PF_VA_PIC_SIZE, PF_VA_PIC_CURRPIC, PF_VA_PIC_REFERENCEFRAMES, PF_VA_PIC_WIDTH, PF_VA_PIC_FIELDS,
    PF_VA_PIC_SPS_MAX_DEC, PF_VA_PIC_COLUMN_WIDTH, PF_VA_PIC_ROW_HEIGHT, PF_VA_PIC_SLICE_PARSING_FIELDS,
    PF_VA_PIC_LOG2_MAX_POC_LSB, PF_VA_PIC_ST_RPS_BITS,
    PF_VA_PICTURE_SIZE, PF_VA_PICTURE_POC, PF_VA_PICTURE_FLAGS,
    PF_VA_SLICE_SIZE, PF_VA_SLICE_BYTE_OFFSET, PF_VA_SLICE_REFPICLIST, PF_VA_SLICE_LONGFLAGS,
    PF_VA_SLICE_COLLOCATED_REF_IDX, PF_VA_SLICE_LUMA_LOG2_WEIGHT_DENOM, PF_VA_SLICE_CHROMA_OFFSET_L1,
    PF_VA_SLICE_FIVE_MINUS, PF_VA_SLICE_NUM_ENTRY_POINTS, PF_VA_SLICE_EMU_PREVN,
    PF_VA_IQ_SIZE, PF_VA_IQ_32X32, PF_VA_IQ_DC16, PF_VA_IQ_DC32,
    PF_VA_DRM_DESC_SIZE, PF_VA_DRM_DESC_OBJECTS, PF_VA_DRM_DESC_NUM_LAYERS, PF_VA_DRM_DESC_LAYERS,
    PF_VA_LAYOUT_COUNT
};

static inline size_t pf_va_layout(enum pf_va_layout_field f) {
    switch (f) {
    case PF_VA_PIC_SIZE: return sizeof(VAPictureParameterBufferHEVC);
    case PF_VA_PIC_CURRPIC: return offsetof(VAPictureParameterBufferHEVC, CurrPic);
    case PF_VA_PIC_REFERENCEFRAMES: return offsetof(VAPictureParameterBufferHEVC, ReferenceFrames);
    case PF_VA_PIC_WIDTH: return offsetof(VAPictureParameterBufferHEVC, pic_width_in_luma_samples);
    case PF_VA_PIC_FIELDS: return offsetof(VAPictureParameterBufferHEVC, pic_fields);
    case PF_VA_PIC_SPS_MAX_DEC: return offsetof(VAPictureParameterBufferHEVC, sps_max_dec_pic_buffering_minus1);
    case PF_VA_PIC_COLUMN_WIDTH: return offsetof(VAPictureParameterBufferHEVC, column_width_minus1);
    case PF_VA_PIC_ROW_HEIGHT: return offsetof(VAPictureParameterBufferHEVC, row_height_minus1);
    case PF_VA_PIC_SLICE_PARSING_FIELDS: return offsetof(VAPictureParameterBufferHEVC, slice_parsing_fields);
    case PF_VA_PIC_LOG2_MAX_POC_LSB: return offsetof(VAPictureParameterBufferHEVC, log2_max_pic_order_cnt_lsb_minus4);
    case PF_VA_PIC_ST_RPS_BITS: return offsetof(VAPictureParameterBufferHEVC, st_rps_bits);
    case PF_VA_PICTURE_SIZE: return sizeof(VAPictureHEVC);
    case PF_VA_PICTURE_POC: return offsetof(VAPictureHEVC, pic_order_cnt);
    case PF_VA_PICTURE_FLAGS: return offsetof(VAPictureHEVC, flags);
    case PF_VA_SLICE_SIZE: return sizeof(VASliceParameterBufferHEVC);
    case PF_VA_SLICE_BYTE_OFFSET: return offsetof(VASliceParameterBufferHEVC, slice_data_byte_offset);
    case PF_VA_SLICE_REFPICLIST: return offsetof(VASliceParameterBufferHEVC, RefPicList);
    case PF_VA_SLICE_LONGFLAGS: return offsetof(VASliceParameterBufferHEVC, LongSliceFlags);
    case PF_VA_SLICE_COLLOCATED_REF_IDX: return offsetof(VASliceParameterBufferHEVC, collocated_ref_idx);
    case PF_VA_SLICE_LUMA_LOG2_WEIGHT_DENOM: return offsetof(VASliceParameterBufferHEVC, luma_log2_weight_denom);
    case PF_VA_SLICE_CHROMA_OFFSET_L1: return offsetof(VASliceParameterBufferHEVC, ChromaOffsetL1);
    case PF_VA_SLICE_FIVE_MINUS: return offsetof(VASliceParameterBufferHEVC, five_minus_max_num_merge_cand);
    case PF_VA_SLICE_NUM_ENTRY_POINTS: return offsetof(VASliceParameterBufferHEVC, num_entry_point_offsets);
    case PF_VA_SLICE_EMU_PREVN: return offsetof(VASliceParameterBufferHEVC, slice_data_num_emu_prevn_bytes);
    case PF_VA_IQ_SIZE: return sizeof(VAIQMatrixBufferHEVC);
    case PF_VA_IQ_32X32: return offsetof(VAIQMatrixBufferHEVC, ScalingList32x32);
    case PF_VA_IQ_DC16: return offsetof(VAIQMatrixBufferHEVC, ScalingListDC16x16);
    case PF_VA_IQ_DC32: return offsetof(VAIQMatrixBufferHEVC, ScalingListDC32x32);
    case PF_VA_DRM_DESC_SIZE: return sizeof(VADRMPRIMESurfaceDescriptor);
    case PF_VA_DRM_DESC_OBJECTS: return offsetof(VADRMPRIMESurfaceDescriptor, objects);
    case PF_VA_DRM_DESC_NUM_LAYERS: return offsetof(VADRMPRIMESurfaceDescriptor, num_layers);
    case PF_VA_DRM_DESC_LAYERS: return offsetof(VADRMPRIMESurfaceDescriptor, layers);
    default: return (size_t)-1;
    }
}

/* VADRMPRIMESurfaceDescriptor's objects[] and layers[] are arrays of anonymous structs, which
 * Swift does not import; these copy one entry out (index ≥ 4: fd -1 / zeroes). */
typedef struct { int32_t fd; uint32_t size; uint64_t modifier; } pf_drm_prime_object;
typedef struct {
    uint32_t drm_format;
    uint32_t num_planes;
    uint32_t object_index[4];
    uint32_t offset[4];
    uint32_t pitch[4];
} pf_drm_prime_layer;

static inline pf_drm_prime_object pf_drm_prime_object_at(const VADRMPRIMESurfaceDescriptor *d, unsigned i) {
    pf_drm_prime_object o = { -1, 0, 0 };
    if (i < 4) { o.fd = d->objects[i].fd; o.size = d->objects[i].size; o.modifier = d->objects[i].drm_format_modifier; }
    return o;
}

static inline pf_drm_prime_layer pf_drm_prime_layer_at(const VADRMPRIMESurfaceDescriptor *d, unsigned i) {
    pf_drm_prime_layer l = { 0 };
    if (i < 4) {
        l.drm_format = d->layers[i].drm_format;
        l.num_planes = d->layers[i].num_planes;
        for (int p = 0; p < 4; p++) {
            l.object_index[p] = d->layers[i].object_index[p];
            l.offset[p] = d->layers[i].offset[p];
            l.pitch[p] = d->layers[i].pitch[p];
        }
    }
    return l;
}

/* Rows of planar 4:2:0 into the NV12 / P010 layout VA surfaces and KMS planes use (the
 * libavcodec rung's output). Plain loops the C compiler vectorises; n = samples per row. */
static inline void pf_pack_nv12_chroma_row(uint8_t *dst, const uint8_t *u, const uint8_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) { dst[2 * i] = u[i]; dst[2 * i + 1] = v[i]; }
}

/* 10-bit samples in the low bits of little-endian 16-bit words → P010 (sample in the high 10 bits). */
static inline void pf_pack_p010_chroma_row(uint16_t *dst, const uint16_t *u, const uint16_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) { dst[2 * i] = (uint16_t)(u[i] << 6); dst[2 * i + 1] = (uint16_t)(v[i] << 6); }
}

static inline void pf_pack_p010_luma_row(uint16_t *dst, const uint16_t *y, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = (uint16_t)(y[i] << 6);
}

