// The kernel's HDMI-CEC API (linux/cec.h, /dev/cecN) for the input thread. Swift cannot import
// the CEC_* ioctl numbers (function-like _IOWR macros) or call the variadic ioctl, and
// struct cec_log_addrs/cec_connector_info hold arrays and unions that are clumsy to fill from
// Swift; these calls take and give plain values. Delete when Swift imports ioctl macros.
#ifndef PF_CEC_H
#define PF_CEC_H

#include <stdint.h>

/// What one adapter is and where it sits.
struct pf_cec_info {
    char driver[32];
    char name[32];
    /// CEC_CAP_* bits.
    uint32_t capabilities;
    uint32_t available_log_addrs;
    /// 0xffff: none (no hot-plug, no EDID yet).
    uint16_t phys_addr;
    /// Claimed logical addresses (bit n = address n); 0: none yet.
    uint16_t log_addr_mask;
    /// The first claimed logical address, 0xff: none.
    uint8_t log_addr;
    /// Logical addresses configured (claimed or being claimed), 0…4.
    uint8_t num_log_addrs;
    /// 1: a DRM connector (card_no, connector_id valid); 0: none reported.
    uint32_t connector_type;
    uint32_t card_no;
    uint32_t connector_id;
};

/// Opens `path` read/write, non-blocking, close-on-exec. The fd or -errno.
int pf_cec_open(const char *path);
/// Capabilities, addresses and (where the kernel offers CEC_ADAP_G_CONNECTOR_INFO) the DRM
/// connector of the adapter on `fd`. 0 or -errno.
int pf_cec_info(int fd, struct pf_cec_info *out);
/// This fd as initiator and (exclusive when `exclusive`) follower (CEC_S_MODE). 0 or -errno.
int pf_cec_set_mode(int fd, int exclusive);
/// Claims one Playback logical address (CEC_ADAP_S_LOG_ADDRS) with `osd_name` (≤ 14 bytes),
/// `cec_version` (5 = 1.4, 6 = 2.0) and `vendor_id` (0xffffffff: none). Non-blocking: the
/// claim finishes later and is reported as a state-change event. 0 or -errno (EBUSY: the
/// adapter is configured already).
int pf_cec_claim_playback(int fd, const char *osd_name, uint8_t cec_version, uint32_t vendor_id);
/// Drops every claimed logical address (CEC_ADAP_S_LOG_ADDRS with none). 0 or -errno.
int pf_cec_unclaim(int fd);
/// Queues `len` (1…16) bytes for the bus (CEC_TRANSMIT, non-blocking: the result comes back
/// through pf_cec_receive with `tx_status` set). Writes the kernel's sequence number. 0 or -errno.
int pf_cec_transmit(int fd, const uint8_t *bytes, int len, uint32_t *sequence);
/// One received message or transmit result (CEC_RECEIVE, non-blocking). `bytes` takes up to 16
/// bytes; `len` gets the count. For a transmit result `sequence` ≠ 0 and `tx_status` ≠ 0
/// (CEC_TX_STATUS_*; `tx_nack_cnt` counts NACKs). 0, or -errno (-EAGAIN: nothing waiting).
int pf_cec_receive(int fd, uint8_t *bytes, int *len, uint32_t *sequence, uint8_t *tx_status,
                   uint8_t *rx_status, uint8_t *tx_nack_cnt);
/// One event (CEC_DQEVENT): `event` (1 state change, 2 lost messages), then for a state change
/// the physical address and logical address mask, for lost messages the count in `lost`.
/// 0 or -errno (-EAGAIN: none waiting).
int pf_cec_dqevent(int fd, uint32_t *event, uint16_t *phys_addr, uint16_t *log_addr_mask, uint32_t *lost);
/// Watches a CEC fd for messages (EPOLLIN) and events (EPOLLPRI). 0 or -errno.
int pf_cec_epoll_add(int epfd, int fd, uint64_t tag);

#endif
