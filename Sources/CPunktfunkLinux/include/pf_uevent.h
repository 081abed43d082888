// The kernel's uevent broadcast (NETLINK_KOBJECT_UEVENT): struct sockaddr_nl is not visible to
// Swift through Glibc, so the socket is opened and read here.
#ifndef PF_UEVENT_H
#define PF_UEVENT_H

/// A non-blocking, close-on-exec socket bound to the kernel's uevent group (1), or -errno.
int pf_uevent_socket(void);
/// Receives one uevent datagram into `buffer` (at most `length` bytes; a longer one is cut).
/// `sender` gets the sending port id (0 = the kernel). - Returns: bytes, or -errno (-EAGAIN: none).
long pf_uevent_receive(int fd, void *buffer, unsigned long length, unsigned int *sender);

#endif
