// See pf_v4l2.h for why this exists.
#include "pf_v4l2.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = ioctl(fd, request, arg); } while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : r;
}

int pf_v4l2_open(const char *path) {
    int fd;
    do { fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC); } while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

int pf_v4l2_querycap(int fd, struct v4l2_capability *cap) {
    memset(cap, 0, sizeof *cap);
    return xioctl(fd, VIDIOC_QUERYCAP, cap);
}

int pf_v4l2_enum_fmt(int fd, struct v4l2_fmtdesc *desc) { return xioctl(fd, VIDIOC_ENUM_FMT, desc); }
int pf_v4l2_enum_framesizes(int fd, struct v4l2_frmsizeenum *sizes) { return xioctl(fd, VIDIOC_ENUM_FRAMESIZES, sizes); }
int pf_v4l2_g_fmt(int fd, struct v4l2_format *format) { return xioctl(fd, VIDIOC_G_FMT, format); }
int pf_v4l2_s_fmt(int fd, struct v4l2_format *format) { return xioctl(fd, VIDIOC_S_FMT, format); }

int pf_v4l2_query_ext_ctrl(int fd, uint32_t id, struct v4l2_query_ext_ctrl *out) {
    memset(out, 0, sizeof *out);
    out->id = id;
    return xioctl(fd, VIDIOC_QUERY_EXT_CTRL, out);
}

int pf_v4l2_querymenu(int fd, uint32_t id, uint32_t index) {
    struct v4l2_querymenu menu;
    memset(&menu, 0, sizeof menu);
    menu.id = id;
    menu.index = index;
    return xioctl(fd, VIDIOC_QUERYMENU, &menu);
}

int pf_v4l2_get_control(int fd, uint32_t id, int32_t *value) {
    struct v4l2_ext_control control;
    memset(&control, 0, sizeof control);
    control.id = id;
    struct v4l2_ext_controls controls;
    memset(&controls, 0, sizeof controls);
    controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    controls.count = 1;
    controls.controls = &control;
    int r = xioctl(fd, VIDIOC_G_EXT_CTRLS, &controls);
    if (r == 0) *value = control.value;
    return r;
}

int pf_v4l2_set_control(int fd, uint32_t id, int32_t value) {
    struct v4l2_ext_control control;
    memset(&control, 0, sizeof control);
    control.id = id;
    control.value = value;
    struct v4l2_ext_controls controls;
    memset(&controls, 0, sizeof controls);
    controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    controls.count = 1;
    controls.controls = &control;
    return xioctl(fd, VIDIOC_S_EXT_CTRLS, &controls);
}

int pf_v4l2_set_compound_controls(int fd, int request_fd, uint32_t count, const uint32_t *ids,
                                  const uint32_t *sizes, void *const *values, uint32_t *error_index) {
    struct v4l2_ext_control list[16];
    if (count == 0 || count > 16) return -EINVAL;
    memset(list, 0, sizeof list);
    for (uint32_t i = 0; i < count; i++) {
        list[i].id = ids[i];
        list[i].size = sizes[i];
        list[i].ptr = values[i];
    }
    struct v4l2_ext_controls controls;
    memset(&controls, 0, sizeof controls);
    if (request_fd >= 0) {
        controls.which = V4L2_CTRL_WHICH_REQUEST_VAL;
        controls.request_fd = request_fd;
    } else {
        controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    }
    controls.count = count;
    controls.controls = list;
    int r = xioctl(fd, VIDIOC_S_EXT_CTRLS, &controls);
    if (error_index) *error_index = controls.error_idx;
    return r;
}

int pf_v4l2_reqbufs(int fd, struct v4l2_requestbuffers *request) { return xioctl(fd, VIDIOC_REQBUFS, request); }
int pf_v4l2_querybuf(int fd, struct v4l2_buffer *buffer) { return xioctl(fd, VIDIOC_QUERYBUF, buffer); }
int pf_v4l2_qbuf(int fd, struct v4l2_buffer *buffer) { return xioctl(fd, VIDIOC_QBUF, buffer); }
int pf_v4l2_dqbuf(int fd, struct v4l2_buffer *buffer) { return xioctl(fd, VIDIOC_DQBUF, buffer); }

int pf_v4l2_expbuf(int fd, uint32_t type, uint32_t index, uint32_t plane) {
    struct v4l2_exportbuffer e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.index = index;
    e.plane = plane;
    e.flags = O_RDONLY | O_CLOEXEC;
    int r = xioctl(fd, VIDIOC_EXPBUF, &e);
    return r < 0 ? r : e.fd;
}

int pf_v4l2_streamon(int fd, uint32_t type) { return xioctl(fd, VIDIOC_STREAMON, &type); }
int pf_v4l2_streamoff(int fd, uint32_t type) { return xioctl(fd, VIDIOC_STREAMOFF, &type); }

int pf_media_device_info(int fd, struct media_device_info *info) {
    memset(info, 0, sizeof *info);
    return xioctl(fd, MEDIA_IOC_DEVICE_INFO, info);
}

int pf_media_topology(int fd, struct media_v2_entity *entities, uint32_t *num_entities,
                      struct media_v2_interface *interfaces, uint32_t *num_interfaces,
                      struct media_v2_link *links, uint32_t *num_links) {
    struct media_v2_topology t;
    memset(&t, 0, sizeof t);
    t.num_entities = *num_entities;
    t.ptr_entities = (uintptr_t)entities;
    t.num_interfaces = *num_interfaces;
    t.ptr_interfaces = (uintptr_t)interfaces;
    t.num_links = *num_links;
    t.ptr_links = (uintptr_t)links;
    int r = xioctl(fd, MEDIA_IOC_G_TOPOLOGY, &t);
    if (r == 0) {
        *num_entities = t.num_entities;
        *num_interfaces = t.num_interfaces;
        *num_links = t.num_links;
    }
    return r;
}

int pf_media_request_alloc(int media_fd) {
    int request_fd = -1;
    int r = xioctl(media_fd, MEDIA_IOC_REQUEST_ALLOC, &request_fd);
    return r < 0 ? r : request_fd;
}

int pf_media_request_queue(int request_fd) { return xioctl(request_fd, MEDIA_REQUEST_IOC_QUEUE, NULL); }
int pf_media_request_reinit(int request_fd) { return xioctl(request_fd, MEDIA_REQUEST_IOC_REINIT, NULL); }

int pf_v4l2_poll(int fd, short events, int timeout_ms) {
    struct pollfd p = { .fd = fd, .events = events, .revents = 0 };
    int r;
    do { r = poll(&p, 1, timeout_ms); } while (r < 0 && errno == EINTR);
    if (r < 0) return -errno;
    return r == 0 ? 0 : p.revents;
}
