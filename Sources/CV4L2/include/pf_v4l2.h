// The kernel's V4L2 and media-controller interfaces (linux/videodev2.h, linux/media.h,
// linux/v4l2-controls.h) for the V4L2 stateless decoder rung. Swift cannot import the VIDIOC_* /
// MEDIA_IOC_* request numbers (function-like _IOWR macros) or call the variadic ioctl, and
// struct v4l2_ext_control is packed around a union; these calls take typed arguments instead.
// Every call returns 0 (or a new fd) on success and -errno on failure; EINTR is retried.
// Delete when Swift imports ioctl macros.
#ifndef PF_V4L2_H
#define PF_V4L2_H

#include <linux/media.h>
#include <linux/v4l2-controls.h>
#include <linux/videodev2.h>
#include <stdint.h>

/// Opens `path` read/write, non-blocking, close-on-exec. The fd or -errno.
int pf_v4l2_open(const char *path);

int pf_v4l2_querycap(int fd, struct v4l2_capability *cap);
/// VIDIOC_ENUM_FMT: the caller sets `type` and `index`.
int pf_v4l2_enum_fmt(int fd, struct v4l2_fmtdesc *desc);
/// VIDIOC_ENUM_FRAMESIZES: the caller sets `pixel_format` and `index`.
int pf_v4l2_enum_framesizes(int fd, struct v4l2_frmsizeenum *sizes);
int pf_v4l2_g_fmt(int fd, struct v4l2_format *format);
int pf_v4l2_s_fmt(int fd, struct v4l2_format *format);
/// VIDIOC_QUERY_EXT_CTRL for `id`: -EINVAL when the driver has no such control.
int pf_v4l2_query_ext_ctrl(int fd, uint32_t id, struct v4l2_query_ext_ctrl *out);
/// VIDIOC_QUERYMENU: whether menu item `index` of control `id` exists (0) or not (-EINVAL).
int pf_v4l2_querymenu(int fd, uint32_t id, uint32_t index);
/// The current value of an integer or menu control (VIDIOC_G_EXT_CTRLS, one control).
int pf_v4l2_get_control(int fd, uint32_t id, int32_t *value);
/// Sets an integer or menu control now (VIDIOC_S_EXT_CTRLS, which = current value).
int pf_v4l2_set_control(int fd, uint32_t id, int32_t value);

/// VIDIOC_S_EXT_CTRLS of `count` (≤ 16) compound controls: `ids[i]` with `sizes[i]` bytes at
/// `values[i]`. With `request_fd` ≥ 0 the values go into that request
/// (V4L2_CTRL_WHICH_REQUEST_VAL), else they are set now. On failure `*error_index` is the
/// kernel's error_idx (== count when no single control is to blame).
int pf_v4l2_set_compound_controls(int fd, int request_fd, uint32_t count, const uint32_t *ids,
                                  const uint32_t *sizes, void *const *values, uint32_t *error_index);

int pf_v4l2_reqbufs(int fd, struct v4l2_requestbuffers *request);
int pf_v4l2_querybuf(int fd, struct v4l2_buffer *buffer);
int pf_v4l2_qbuf(int fd, struct v4l2_buffer *buffer);
int pf_v4l2_dqbuf(int fd, struct v4l2_buffer *buffer);
/// VIDIOC_EXPBUF of plane `plane` of buffer `index` (O_RDONLY | O_CLOEXEC). The dma-buf fd or -errno.
int pf_v4l2_expbuf(int fd, uint32_t type, uint32_t index, uint32_t plane);
int pf_v4l2_streamon(int fd, uint32_t type);
int pf_v4l2_streamoff(int fd, uint32_t type);

int pf_media_device_info(int fd, struct media_device_info *info);
/// MEDIA_IOC_G_TOPOLOGY into caller arrays (entities, interfaces, links of up to the given
/// counts; pads are not read). On return the counts are the topology's (compare with what was
/// passed to see whether the arrays were large enough).
int pf_media_topology(int fd, struct media_v2_entity *entities, uint32_t *num_entities,
                      struct media_v2_interface *interfaces, uint32_t *num_interfaces,
                      struct media_v2_link *links, uint32_t *num_links);
/// MEDIA_IOC_REQUEST_ALLOC: a new request fd or -errno.
int pf_media_request_alloc(int media_fd);
int pf_media_request_queue(int request_fd);
int pf_media_request_reinit(int request_fd);

/// poll(2) on one fd: its revents (> 0), 0 on timeout, or -errno.
int pf_v4l2_poll(int fd, short events, int timeout_ms);

#endif
