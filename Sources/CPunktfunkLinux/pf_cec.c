// See pf_cec.h for why this exists.
#include "pf_cec.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/cec.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = ioctl(fd, request, arg); } while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

int pf_cec_open(const char *path) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int pf_cec_info(int fd, struct pf_cec_info *out) {
    memset(out, 0, sizeof *out);
    struct cec_caps caps;
    memset(&caps, 0, sizeof caps);
    int r = xioctl(fd, CEC_ADAP_G_CAPS, &caps);
    if (r < 0) return r;
    memcpy(out->driver, caps.driver, sizeof out->driver);
    out->driver[sizeof out->driver - 1] = 0;
    memcpy(out->name, caps.name, sizeof out->name);
    out->name[sizeof out->name - 1] = 0;
    out->capabilities = caps.capabilities;
    out->available_log_addrs = caps.available_log_addrs;
    __u16 pa = CEC_PHYS_ADDR_INVALID;
    r = xioctl(fd, CEC_ADAP_G_PHYS_ADDR, &pa);
    if (r < 0) return r;
    out->phys_addr = pa;
    struct cec_log_addrs la;
    memset(&la, 0, sizeof la);
    r = xioctl(fd, CEC_ADAP_G_LOG_ADDRS, &la);
    if (r < 0) return r;
    out->log_addr_mask = la.log_addr_mask;
    out->num_log_addrs = la.num_log_addrs;
    out->log_addr = CEC_LOG_ADDR_INVALID;
    for (int i = 0; i < la.num_log_addrs && i < CEC_MAX_LOG_ADDRS; i++) {
        if (la.log_addr[i] != CEC_LOG_ADDR_INVALID) { out->log_addr = la.log_addr[i]; break; }
    }
    if (caps.capabilities & CEC_CAP_CONNECTOR_INFO) {
        struct cec_connector_info ci;
        memset(&ci, 0, sizeof ci);
        if (xioctl(fd, CEC_ADAP_G_CONNECTOR_INFO, &ci) == 0 && ci.type == CEC_CONNECTOR_TYPE_DRM) {
            out->connector_type = ci.type;
            out->card_no = ci.drm.card_no;
            out->connector_id = ci.drm.connector_id;
        }
    }
    return 0;
}

int pf_cec_set_mode(int fd, int exclusive) {
    __u32 mode = CEC_MODE_INITIATOR | (exclusive ? CEC_MODE_EXCL_FOLLOWER : CEC_MODE_FOLLOWER);
    return xioctl(fd, CEC_S_MODE, &mode);
}

int pf_cec_claim_playback(int fd, const char *osd_name, uint8_t cec_version, uint32_t vendor_id) {
    struct cec_log_addrs la;
    memset(&la, 0, sizeof la);
    la.cec_version = cec_version;
    la.num_log_addrs = 1;
    la.vendor_id = vendor_id;
    strncpy(la.osd_name, osd_name, sizeof la.osd_name - 1);
    la.primary_device_type[0] = CEC_OP_PRIM_DEVTYPE_PLAYBACK;
    la.log_addr_type[0] = CEC_LOG_ADDR_TYPE_PLAYBACK;
    la.all_device_types[0] = CEC_OP_ALL_DEVTYPE_PLAYBACK;
    return xioctl(fd, CEC_ADAP_S_LOG_ADDRS, &la);
}

int pf_cec_unclaim(int fd) {
    struct cec_log_addrs la;
    memset(&la, 0, sizeof la);
    return xioctl(fd, CEC_ADAP_S_LOG_ADDRS, &la);
}

int pf_cec_transmit(int fd, const uint8_t *bytes, int len, uint32_t *sequence) {
    if (len < 1 || len > CEC_MAX_MSG_SIZE) return -EINVAL;
    struct cec_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.len = (__u32)len;
    memcpy(msg.msg, bytes, (size_t)len);
    int r = xioctl(fd, CEC_TRANSMIT, &msg);
    if (r == 0 && sequence) *sequence = msg.sequence;
    return r;
}

int pf_cec_receive(int fd, uint8_t *bytes, int *len, uint32_t *sequence, uint8_t *tx_status,
                   uint8_t *rx_status, uint8_t *tx_nack_cnt) {
    struct cec_msg msg;
    memset(&msg, 0, sizeof msg);
    int r = xioctl(fd, CEC_RECEIVE, &msg);
    if (r < 0) return r;
    __u32 n = msg.len > CEC_MAX_MSG_SIZE ? CEC_MAX_MSG_SIZE : msg.len;
    memcpy(bytes, msg.msg, n);
    *len = (int)n;
    *sequence = msg.sequence;
    *tx_status = msg.tx_status;
    *rx_status = msg.rx_status;
    *tx_nack_cnt = msg.tx_nack_cnt;
    return 0;
}

int pf_cec_dqevent(int fd, uint32_t *event, uint16_t *phys_addr, uint16_t *log_addr_mask, uint32_t *lost) {
    struct cec_event ev;
    memset(&ev, 0, sizeof ev);
    int r = xioctl(fd, CEC_DQEVENT, &ev);
    if (r < 0) return r;
    *event = ev.event;
    *phys_addr = CEC_PHYS_ADDR_INVALID;
    *log_addr_mask = 0;
    *lost = 0;
    if (ev.event == CEC_EVENT_STATE_CHANGE) {
        *phys_addr = ev.state_change.phys_addr;
        *log_addr_mask = ev.state_change.log_addr_mask;
    } else if (ev.event == CEC_EVENT_LOST_MSGS) {
        *lost = ev.lost_msgs.lost_msgs;
    }
    return 0;
}

int pf_cec_epoll_add(int epfd, int fd, uint64_t tag) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN | EPOLLPRI;
    ev.data.u64 = tag;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}
