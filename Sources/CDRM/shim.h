#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
// The presenter's VT handling (process-mode VT switching, KD_GRAPHICS) and its event loop
// (signalfd, poll, mmap of dumb buffers) need these; Glibc's module does not export them.
#include <linux/vt.h>
#include <linux/kd.h>
#include <sys/signalfd.h>
#include <sys/mman.h>
#include <poll.h>
