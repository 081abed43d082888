// The input thread's kernel calls Swift cannot make directly: epoll (struct epoll_event is
// packed on x86-64) and the evdev force-feedback ioctls (variadic ioctl).
#ifndef PF_INPUT_H
#define PF_INPUT_H

#include <stdint.h>

/// A close-on-exec epoll instance, or -errno.
int pf_epoll_create(void);
/// Watches `fd` for input (EPOLLIN); `tag` comes back from pf_epoll_wait. 0 or -errno.
int pf_epoll_add(int epfd, int fd, uint64_t tag);
/// Stops watching `fd`. 0 or -errno.
int pf_epoll_remove(int epfd, int fd);
/// Waits up to `timeout_ms` (-1: forever) for ready fds; writes up to `max` tags and, per tag,
/// whether the fd hung up or failed (EPOLLHUP/EPOLLERR). Returns the count, 0 on timeout, or
/// -errno (EINTR included).
int pf_epoll_wait(int epfd, uint64_t *tags, int *hangups, int max, int timeout_ms);

/// Uploads (or, with `effect_id` ≥ 0, updates) an FF_RUMBLE effect of `length_ms` (0: until
/// stopped) with the two motor levels. Returns the effect id or -errno.
int pf_ff_rumble_upload(int fd, int effect_id, uint16_t strong, uint16_t weak, uint16_t length_ms);
/// Starts (`play` 1) or stops (0) effect `effect_id` by writing an EV_FF event. 0 or -errno.
int pf_ff_play(int fd, int effect_id, int play);
/// Erases an uploaded effect. 0 or -errno.
int pf_ff_erase(int fd, int effect_id);

#endif
