// libwayland-client (connection, proxies, event queues) and its core protocol (wl_compositor,
// wl_shm, wl_output, wl_seat …). The extension protocols are generated at build time into
// CWaylandProtocols.
#include <wayland-client.h>
