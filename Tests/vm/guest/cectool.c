// The cec check's hostile TV: puts raw frames on the bus from an adapter (as root, with
// CEC_MSG_FL_RAW, so the kernel does not validate what it sends — the receiving adapter's kernel
// still checks sizes and addressing before the kiosk sees anything). One JSON line per frame.
//   cectool DEVICE [-n COUNT] FRAME...     FRAME = hex bytes separated by ':' (e.g. 04:44:01)
// Each frame is sent COUNT times (default 1), blocking until its transmit result.
#include <errno.h>
#include <fcntl.h>
#include <linux/cec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static int parse(const char *text, unsigned char *out) {
    int n = 0;
    const char *p = text;
    while (*p && n < CEC_MAX_MSG_SIZE) {
        char *end;
        long v = strtol(p, &end, 16);
        if (end == p || v < 0 || v > 255) return -1;
        out[n++] = (unsigned char)v;
        p = *end == ':' ? end + 1 : end;
        if (*end && *end != ':') return -1;
    }
    return n;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: cectool DEVICE [-n COUNT] FRAME...\n"); return 2; }
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) { fprintf(stderr, "cectool: %s: %s\n", argv[1], strerror(errno)); return 1; }
    int count = 1, first = 2;
    if (argc > 4 && strcmp(argv[2], "-n") == 0) { count = atoi(argv[3]); first = 4; }
    __u32 mode = CEC_MODE_INITIATOR;
    if (ioctl(fd, CEC_S_MODE, &mode) < 0) { fprintf(stderr, "cectool: CEC_S_MODE: %s\n", strerror(errno)); return 1; }
    int failed = 0;
    for (int a = first; a < argc; a++) {
        unsigned char bytes[CEC_MAX_MSG_SIZE];
        int n = parse(argv[a], bytes);
        if (n < 1) { fprintf(stderr, "cectool: bad frame %s\n", argv[a]); return 2; }
        for (int i = 0; i < count; i++) {
            struct cec_msg msg;
            memset(&msg, 0, sizeof msg);
            msg.len = (__u32)n;
            memcpy(msg.msg, bytes, (size_t)n);
            msg.flags = CEC_MSG_FL_RAW;
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            int r = ioctl(fd, CEC_TRANSMIT, &msg);
            printf("{\"frame\":\"%s\",\"n\":%d,\"sent_ns\":%lld,\"rc\":%d,\"tx_status\":%u}\n", argv[a], i,
                   (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, r < 0 ? -errno : 0, msg.tx_status);
            if (r < 0) failed++;
        }
    }
    fflush(stdout);
    close(fd);
    return failed ? 1 : 0;
}
