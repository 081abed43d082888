// Linux calls Swift's Glibc module cannot reach: recvmmsg/sendmmsg/ppoll need _GNU_SOURCE, which the
// Glibc module map is built without. Delete this target once Glibc exposes them.
#ifndef PF_LINUX_H
#define PF_LINUX_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/signalfd.h>   // SignalWatch (signalfd_siginfo, SFD_*): not in the Glibc module

/// One slot of a datagram batch. The caller owns `data` (capacity bytes).
typedef struct pf_datagram {
    void *data;
    size_t capacity;
    /// Bytes received (≤ capacity) or to send.
    size_t length;
    /// Set when the datagram was longer than `capacity` and was cut (MSG_TRUNC).
    int truncated;
    struct sockaddr_storage address;
    socklen_t address_length;
} pf_datagram;

/// Receives up to `n` datagrams with one non-blocking recvmmsg. Returns the count (0 when nothing
/// is waiting) or -errno.
int pf_recv_batch(int fd, pf_datagram *slots, unsigned int n);

/// Sends up to `n` datagrams (each to its `address`) with one non-blocking sendmmsg. Returns how
/// many the kernel took (0 when the socket buffer is full), or -errno.
int pf_send_batch(int fd, const pf_datagram *slots, unsigned int n);

/// A non-blocking, close-on-exec eventfd (counter 0) for waking a poll loop from another thread,
/// or -errno.
int pf_wake_fd(void);

struct pollfd;
/// poll(2) with a nanosecond timeout (ppoll, no signal mask change); timeout_ns < 0 waits
/// forever. Returns what ppoll returns (-1 with errno on failure).
int pf_poll_ns(struct pollfd *fds, unsigned long nfds, long long timeout_ns);

/// Makes the calling thread SCHED_FIFO at `priority` (1…99) with SCHED_RESET_ON_FORK (threads and
/// processes it creates start as SCHED_OTHER), or — `priority` 0 — SCHED_OTHER again. Returns 0 or
/// -errno (EPERM: neither CAP_SYS_NICE nor an RLIMIT_RTPRIO of at least `priority`).
int pf_thread_set_fifo(int priority);

/// Sets the calling thread's timer slack, ns (how late the kernel may fire its timers to batch
/// wake-ups; the default is 50 000; 0 restores the thread's default). Returns 0 or -errno.
int pf_thread_set_timer_slack(unsigned long ns);

/// The calling thread's scheduling: policy (SCHED_OTHER 0, SCHED_FIFO 1, …, without the reset
/// flag), real-time priority and timer slack in ns. Returns 0 or -errno.
int pf_thread_scheduling(int *policy, int *priority, unsigned long *timer_slack_ns);

/// RLIMIT_RTPRIO's soft limit: the highest real-time priority an unprivileged thread may take.
unsigned long pf_rtprio_limit(void);

#endif
