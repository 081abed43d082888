#include "pf_input.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <linux/input.h>

int pf_epoll_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int pf_epoll_add(int epfd, int fd, uint64_t tag) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN;
    ev.data.u64 = tag;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int pf_epoll_remove(int epfd, int fd) {
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL) < 0 ? -errno : 0;
}

int pf_epoll_wait(int epfd, uint64_t *tags, int *hangups, int max, int timeout_ms) {
    enum { BATCH = 32 };
    struct epoll_event evs[BATCH];
    if (max > BATCH) max = BATCH;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    if (n < 0) return -errno;
    for (int i = 0; i < n; i++) {
        tags[i] = evs[i].data.u64;
        hangups[i] = (evs[i].events & (EPOLLHUP | EPOLLERR)) != 0;
    }
    return n;
}

int pf_ff_rumble_upload(int fd, int effect_id, uint16_t strong, uint16_t weak, uint16_t length_ms) {
    struct ff_effect e;
    memset(&e, 0, sizeof e);
    e.type = FF_RUMBLE;
    e.id = (int16_t)effect_id;
    e.u.rumble.strong_magnitude = strong;
    e.u.rumble.weak_magnitude = weak;
    e.replay.length = length_ms;
    if (ioctl(fd, EVIOCSFF, &e) < 0) return -errno;
    return e.id;
}

int pf_ff_play(int fd, int effect_id, int play) {
    struct input_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = EV_FF;
    ev.code = (uint16_t)effect_id;
    ev.value = play;
    return write(fd, &ev, sizeof ev) == (ssize_t)sizeof ev ? 0 : -errno;
}

int pf_ff_erase(int fd, int effect_id) {
    return ioctl(fd, EVIOCRMFF, effect_id) < 0 ? -errno : 0;
}
