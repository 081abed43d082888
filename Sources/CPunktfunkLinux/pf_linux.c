#define _GNU_SOURCE
#include <sys/eventfd.h>
#include <poll.h>
#include <time.h>
#include "pf_linux.h"

#include <errno.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/uio.h>

enum { PF_BATCH_MAX = 64 };

/// Points msgs[i] at slot i's buffer (`length` bytes to send, or `capacity` to receive) and
/// address. Returns the clamped batch size.
static unsigned int prepare(struct mmsghdr *msgs, struct iovec *iov, const pf_datagram *slots,
                            unsigned int n, int receiving) {
    if (n > PF_BATCH_MAX) n = PF_BATCH_MAX;
    memset(msgs, 0, sizeof(msgs[0]) * n);
    for (unsigned int i = 0; i < n; i++) {
        iov[i].iov_base = slots[i].data;
        iov[i].iov_len = receiving ? slots[i].capacity : slots[i].length;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = (void *)&slots[i].address;
        msgs[i].msg_hdr.msg_namelen = receiving ? sizeof(slots[i].address) : slots[i].address_length;
    }
    return n;
}

int pf_recv_batch(int fd, pf_datagram *slots, unsigned int n) {
    struct mmsghdr msgs[PF_BATCH_MAX];
    struct iovec iov[PF_BATCH_MAX];
    n = prepare(msgs, iov, slots, n, 1);
    int got = recvmmsg(fd, msgs, n, MSG_DONTWAIT, NULL);
    if (got < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
    for (int i = 0; i < got; i++) {
        slots[i].length = msgs[i].msg_len;
        slots[i].truncated = (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
        slots[i].address_length = msgs[i].msg_hdr.msg_namelen;
    }
    return got;
}

int pf_send_batch(int fd, const pf_datagram *slots, unsigned int n) {
    struct mmsghdr msgs[PF_BATCH_MAX];
    struct iovec iov[PF_BATCH_MAX];
    n = prepare(msgs, iov, slots, n, 0);
    int sent = sendmmsg(fd, msgs, n, MSG_DONTWAIT);
    if (sent < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
    return sent;
}

int pf_wake_fd(void) {
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int pf_poll_ns(struct pollfd *fds, unsigned long nfds, long long timeout_ns) {
    if (timeout_ns < 0) return ppoll(fds, (nfds_t)nfds, NULL, NULL);
    struct timespec t = { .tv_sec = (time_t)(timeout_ns / 1000000000LL), .tv_nsec = (long)(timeout_ns % 1000000000LL) };
    return ppoll(fds, (nfds_t)nfds, &t, NULL);
}

int pf_thread_set_fifo(int priority) {
    struct sched_param p = { .sched_priority = priority };
    int policy = priority > 0 ? (SCHED_FIFO | SCHED_RESET_ON_FORK) : SCHED_OTHER;
    return sched_setscheduler(0, policy, &p) == 0 ? 0 : -errno;
}

int pf_thread_set_timer_slack(unsigned long ns) {
    return prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0) == 0 ? 0 : -errno;
}

int pf_thread_scheduling(int *policy, int *priority, unsigned long *timer_slack_ns) {
    int current = sched_getscheduler(0);
    if (current < 0) return -errno;
    struct sched_param p;
    if (sched_getparam(0, &p) != 0) return -errno;
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (slack < 0) return -errno;
    *policy = current & ~SCHED_RESET_ON_FORK;
    *priority = p.sched_priority;
    *timer_slack_ns = (unsigned long)slack;
    return 0;
}

unsigned long pf_rtprio_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_RTPRIO, &limit) != 0) return 0;
    return limit.rlim_cur == RLIM_INFINITY ? 99 : (unsigned long)limit.rlim_cur;
}
