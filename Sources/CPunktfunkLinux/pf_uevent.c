#include "pf_uevent.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>

int pf_uevent_socket(void) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
    if (fd < 0) return -errno;
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_groups = 1;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

long pf_uevent_receive(int fd, void *buffer, unsigned long length, unsigned int *sender) {
    struct sockaddr_nl from;
    socklen_t size = sizeof from;
    memset(&from, 0, sizeof from);
    ssize_t n = recvfrom(fd, buffer, length, 0, (struct sockaddr *)&from, &size);
    if (n < 0) return -errno;
    if (sender) *sender = from.nl_pid;
    return (long)n;
}
