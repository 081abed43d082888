// inputtool: the input check's device side in the harness VM. Creates uinput devices (keyboard,
// mouse, a tablet as QEMU's usb-tablet reports it, an Xbox 360-style pad with force feedback) and a uhid DualSense (USB, bound by the real
// hid-playstation driver), injects the events the guest script asks for on stdin, and records
// what comes back: FF uploads, erases, plays and stops on the pad, and every output report the
// DualSense receives. Evidence: one JSON line per record on stdout.
//
// Commands (one per line on stdin):
//   create kbd|mouse|tablet|pad|ds|dsbt  create the device ("@@CREATED <name>"); ds is a DualSense on USB,
//                               dsbt one on Bluetooth (its own descriptor, reports 0x31 with CRC-32)
//   destroy <name>              unplug it
//   ev <name> TYPE CODE VALUE   write one input_event to a uinput device (SYN included by the caller);
//                               after a SYN, "@@SYN <name> <CLOCK_MONOTONIC ns>" once it is written
//   ds|dsbt B0 B1 B2            a DualSense input report (USB 0x01, Bluetooth 0x31 + CRC) with these
//                               button bytes (hex), sticks centred, triggers released, hat in B0's low nibble
//   key <name> KEY VALUE        a key or button edge and its SYN (KEY: BTN_SOUTH, KEY_ENTER, ... or
//                               a number; VALUE 1 down, 0 up)
//   tap <name> KEY              press, SYN, 60 ms, release, SYN (a press shorter than key repeat)
//   hat <name> up|down|left|right   the d-pad (ABS_HAT0X/Y) pushed for 60 ms, then centred
//   sleep SECONDS               wait (scripts with timing: "tap pad BTN_SOUTH", "sleep 0.2", ...)
//   mark TEXT                   echo "@@MARK TEXT" (ordering in the log)
//   quit
#include <errno.h>
#include <fcntl.h>
#include <linux/uhid.h>
#include <linux/uinput.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void hexout(const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
}

// ---- uinput --------------------------------------------------------------------------------
enum { KBD, MOUSE, TABLET, PAD, NDEV };
static const char *dev_names[NDEV] = {"kbd", "mouse", "tablet", "pad"};
static int ufd[NDEV] = {-1, -1, -1, -1};

static int ioc(int fd, unsigned long req, unsigned long arg) {
    int r = ioctl(fd, req, arg);
    if (r < 0) fprintf(stderr, "inputtool: ioctl 0x%lx: %s\n", req, strerror(errno));
    return r;
}

static void abs_setup(int fd, int code, int min, int max) {
    struct uinput_abs_setup a;
    memset(&a, 0, sizeof a);
    a.code = code;
    a.absinfo.minimum = min;
    a.absinfo.maximum = max;
    ioctl(fd, UI_ABS_SETUP, &a);
}

static int create_uinput(int which) {
    int fd = open("/dev/uinput", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) { fprintf(stderr, "inputtool: /dev/uinput: %s\n", strerror(errno)); return -1; }
    struct uinput_setup s;
    memset(&s, 0, sizeof s);
    s.id.bustype = BUS_USB;
    if (which == KBD) {
        strcpy(s.name, "harness virtual keyboard");
        s.id.vendor = 0x1234; s.id.product = 0x0001;
        ioc(fd, UI_SET_EVBIT, EV_KEY);
        for (int k = 1; k < 249; k++) ioctl(fd, UI_SET_KEYBIT, k);
    } else if (which == MOUSE) {
        strcpy(s.name, "harness virtual mouse");
        s.id.vendor = 0x1234; s.id.product = 0x0002;
        ioc(fd, UI_SET_EVBIT, EV_KEY);
        ioc(fd, UI_SET_EVBIT, EV_REL);
        int keys[] = {BTN_LEFT, BTN_RIGHT, BTN_MIDDLE, BTN_SIDE, BTN_EXTRA};
        for (unsigned i = 0; i < sizeof keys / sizeof *keys; i++) ioctl(fd, UI_SET_KEYBIT, keys[i]);
        int rels[] = {REL_X, REL_Y, REL_WHEEL, REL_HWHEEL, REL_WHEEL_HI_RES, REL_HWHEEL_HI_RES};
        for (unsigned i = 0; i < sizeof rels / sizeof *rels; i++) ioctl(fd, UI_SET_RELBIT, rels[i]);
    } else if (which == TABLET) {
        // QEMU's usb-tablet (hw/input/hid.c, bound by hid-generic): ABS_X/ABS_Y 0…32767, three
        // buttons, a wheel
        strcpy(s.name, "QEMU QEMU USB Tablet");
        s.id.vendor = 0x0627; s.id.product = 0x0001;
        ioc(fd, UI_SET_EVBIT, EV_KEY);
        ioc(fd, UI_SET_EVBIT, EV_ABS);
        ioc(fd, UI_SET_EVBIT, EV_REL);
        int keys[] = {BTN_LEFT, BTN_RIGHT, BTN_MIDDLE};
        for (unsigned i = 0; i < sizeof keys / sizeof *keys; i++) ioctl(fd, UI_SET_KEYBIT, keys[i]);
        ioctl(fd, UI_SET_ABSBIT, ABS_X); abs_setup(fd, ABS_X, 0, 32767);
        ioctl(fd, UI_SET_ABSBIT, ABS_Y); abs_setup(fd, ABS_Y, 0, 32767);
        ioctl(fd, UI_SET_RELBIT, REL_WHEEL);
    } else {
        strcpy(s.name, "Microsoft X-Box 360 pad");
        s.id.vendor = 0x045e; s.id.product = 0x028e; s.id.version = 0x0110;
        s.ff_effects_max = 16;
        ioc(fd, UI_SET_EVBIT, EV_KEY);
        ioc(fd, UI_SET_EVBIT, EV_ABS);
        ioc(fd, UI_SET_EVBIT, EV_FF);
        int keys[] = {BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_TL, BTN_TR, BTN_SELECT, BTN_START,
                      BTN_MODE, BTN_THUMBL, BTN_THUMBR};
        for (unsigned i = 0; i < sizeof keys / sizeof *keys; i++) ioctl(fd, UI_SET_KEYBIT, keys[i]);
        int sticks[] = {ABS_X, ABS_Y, ABS_RX, ABS_RY};
        for (unsigned i = 0; i < 4; i++) { ioctl(fd, UI_SET_ABSBIT, sticks[i]); abs_setup(fd, sticks[i], -32768, 32767); }
        ioctl(fd, UI_SET_ABSBIT, ABS_Z); abs_setup(fd, ABS_Z, 0, 255);
        ioctl(fd, UI_SET_ABSBIT, ABS_RZ); abs_setup(fd, ABS_RZ, 0, 255);
        ioctl(fd, UI_SET_ABSBIT, ABS_HAT0X); abs_setup(fd, ABS_HAT0X, -1, 1);
        ioctl(fd, UI_SET_ABSBIT, ABS_HAT0Y); abs_setup(fd, ABS_HAT0Y, -1, 1);
        ioctl(fd, UI_SET_FFBIT, FF_RUMBLE);
    }
    if (ioc(fd, UI_DEV_SETUP, (unsigned long)&s) < 0 || ioc(fd, UI_DEV_CREATE, 0) < 0) { close(fd); return -1; }
    return fd;
}

static void emit(int fd, int type, int code, int value) {
    struct input_event e;
    memset(&e, 0, sizeof e);
    e.type = type; e.code = code; e.value = value;
    if (write(fd, &e, sizeof e) != sizeof e) fprintf(stderr, "inputtool: write: %s\n", strerror(errno));
}

// Force feedback requests arrive on the pad's uinput fd.
static void pad_ff(int fd) {
    struct input_event e;
    while (read(fd, &e, sizeof e) == sizeof e) {
        if (e.type == EV_UINPUT && e.code == UI_FF_UPLOAD) {
            struct uinput_ff_upload up;
            memset(&up, 0, sizeof up);
            up.request_id = e.value;
            if (ioctl(fd, UI_BEGIN_FF_UPLOAD, &up) < 0) continue;
            printf("{\"t_ms\":%.1f,\"ff\":\"upload\",\"id\":%d,\"type\":%d,\"strong\":%u,\"weak\":%u,\"length_ms\":%u}\n",
                   now_ms(), up.effect.id, up.effect.type, up.effect.u.rumble.strong_magnitude,
                   up.effect.u.rumble.weak_magnitude, up.effect.replay.length);
            up.retval = 0;
            ioctl(fd, UI_END_FF_UPLOAD, &up);
        } else if (e.type == EV_UINPUT && e.code == UI_FF_ERASE) {
            struct uinput_ff_erase er;
            memset(&er, 0, sizeof er);
            er.request_id = e.value;
            if (ioctl(fd, UI_BEGIN_FF_ERASE, &er) < 0) continue;
            printf("{\"t_ms\":%.1f,\"ff\":\"erase\",\"id\":%u}\n", now_ms(), er.effect_id);
            er.retval = 0;
            ioctl(fd, UI_END_FF_ERASE, &er);
        } else if (e.type == EV_FF) {
            printf("{\"t_ms\":%.1f,\"ff\":\"%s\",\"id\":%d}\n", now_ms(), e.value ? "play" : "stop", e.code);
        }
        fflush(stdout);
    }
}

// ---- uhid DualSense (USB) ---------------------------------------------------------------------
// The DualSense's USB report descriptor (public hardware data, 273 bytes).
static const uint8_t ds_rdesc[] = {
    0x05, 0x01, 0x09, 0x05, 0xA1, 0x01, 0x85, 0x01, 0x09, 0x30, 0x09, 0x31, 0x09, 0x32, 0x09, 0x35,
    0x09, 0x33, 0x09, 0x34, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08, 0x95, 0x06, 0x81, 0x02, 0x06,
    0x00, 0xFF, 0x09, 0x20, 0x95, 0x01, 0x81, 0x02, 0x05, 0x01, 0x09, 0x39, 0x15, 0x00, 0x25, 0x07,
    0x35, 0x00, 0x46, 0x3B, 0x01, 0x65, 0x14, 0x75, 0x04, 0x95, 0x01, 0x81, 0x42, 0x65, 0x00, 0x05,
    0x09, 0x19, 0x01, 0x29, 0x0F, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x0F, 0x81, 0x02, 0x06,
    0x00, 0xFF, 0x09, 0x21, 0x95, 0x0D, 0x81, 0x02, 0x06, 0x00, 0xFF, 0x09, 0x22, 0x15, 0x00, 0x26,
    0xFF, 0x00, 0x75, 0x08, 0x95, 0x34, 0x81, 0x02, 0x85, 0x02, 0x09, 0x23, 0x95, 0x2F, 0x91, 0x02,
    0x85, 0x05, 0x09, 0x33, 0x95, 0x28, 0xB1, 0x02, 0x85, 0x08, 0x09, 0x34, 0x95, 0x2F, 0xB1, 0x02,
    0x85, 0x09, 0x09, 0x24, 0x95, 0x13, 0xB1, 0x02, 0x85, 0x0A, 0x09, 0x25, 0x95, 0x1A, 0xB1, 0x02,
    0x85, 0x20, 0x09, 0x26, 0x95, 0x3F, 0xB1, 0x02, 0x85, 0x21, 0x09, 0x27, 0x95, 0x04, 0xB1, 0x02,
    0x85, 0x22, 0x09, 0x40, 0x95, 0x3F, 0xB1, 0x02, 0x85, 0x80, 0x09, 0x28, 0x95, 0x3F, 0xB1, 0x02,
    0x85, 0x81, 0x09, 0x29, 0x95, 0x3F, 0xB1, 0x02, 0x85, 0x82, 0x09, 0x2A, 0x95, 0x09, 0xB1, 0x02,
    0x85, 0x83, 0x09, 0x2B, 0x95, 0x3F, 0xB1, 0x02, 0x85, 0x84, 0x09, 0x2C, 0x95, 0x3F, 0xB1, 0x02,
    0x85, 0x85, 0x09, 0x2D, 0x95, 0x02, 0xB1, 0x02, 0x85, 0xA0, 0x09, 0x2E, 0x95, 0x01, 0xB1, 0x02,
    0x85, 0xE0, 0x09, 0x2F, 0x95, 0x3F, 0xB1, 0x02, 0x85, 0xF0, 0x09, 0x30, 0x95, 0x3F, 0xB1, 0x02,
    0x85, 0xF1, 0x09, 0x31, 0x95, 0x3F, 0xB1, 0x02, 0x85, 0xF2, 0x09, 0x32, 0x95, 0x0F, 0xB1, 0x02,
    0x85, 0xF4, 0x09, 0x35, 0x95, 0x3F, 0xB1, 0x02, 0x85, 0xF5, 0x09, 0x36, 0x95, 0x03, 0xB1, 0x02,
    0xC0};

// A Bluetooth DualSense descriptor with the reports hid-playstation uses over Bluetooth: input
// 0x01 (simple) and 0x31 (full, 78 bytes with id), output 0x31, features 0x05, 0x09, 0x20 (their
// sizes as on the pad; the driver checks a CRC-32 in their last 4 bytes). Built for the test.
static const uint8_t ds_bt_rdesc[] = {
    0x05, 0x01, 0x09, 0x05, 0xA1, 0x01,
    0x85, 0x01, 0x06, 0x00, 0xFF, 0x09, 0x20, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08, 0x95, 0x09, 0x81, 0x02,
    0x85, 0x31, 0x09, 0x21, 0x95, 0x4D, 0x81, 0x02,
    0x85, 0x31, 0x09, 0x22, 0x95, 0x4D, 0x91, 0x02,
    0x85, 0x05, 0x09, 0x33, 0x95, 0x28, 0xB1, 0x02,
    0x85, 0x09, 0x09, 0x24, 0x95, 0x13, 0xB1, 0x02,
    0x85, 0x20, 0x09, 0x26, 0x95, 0x3F, 0xB1, 0x02,
    0xC0};

enum { USB, BT, NDS };
static int dsfds[NDS] = {-1, -1};
static uint8_t ds_seqs[NDS];
static int dsfd = -1;   // the pad being served (set before each call below)

// CRC-32 (IEEE, zlib) of `seed` followed by `n` bytes.
static uint32_t crc32_seeded(uint8_t seed, const uint8_t *b, size_t n) {
    uint32_t c = 0xFFFFFFFF;
    for (size_t i = 0; i <= n; i++) {
        c ^= i == 0 ? seed : b[i - 1];
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

static void put32(uint8_t *b, uint32_t v) { b[0] = v; b[1] = v >> 8; b[2] = v >> 16; b[3] = v >> 24; }

static void put16(uint8_t *b, int v) { b[0] = v & 0xFF; b[1] = (v >> 8) & 0xFF; }

// Feature reports hid-playstation reads at probe: calibration 0x05, pairing info 0x09 (the MAC
// becomes the input devices' uniq), firmware info 0x20.
static int ds_feature_body(uint8_t id, uint8_t *out, int bt);
static int ds_feature(uint8_t id, uint8_t *out, int bt) {
    int n = ds_feature_body(id, out, bt);
    if (bt && n > 4) put32(out + n - 4, crc32_seeded(0xA3, out, n - 4));
    return n;
}

static int ds_feature_body(uint8_t id, uint8_t *out, int bt) {
    memset(out, 0, 64);
    out[0] = id;
    if (id == 0x05) {
        int v[17] = {0, 0, 0, 8704, -8704, 8704, -8704, 8704, -8704, 540, 540, 8192, -8192, 8192, -8192, 8192, -8192};
        for (int i = 0; i < 17; i++) put16(out + 1 + 2 * i, v[i]);
        return 41;
    }
    if (id == 0x09) {
        const uint8_t mac[6] = {0x12, 0x34, 0x56, 0x78, 0x9A, bt ? 0xBD : 0xBC};
        memcpy(out + 1, mac, 6);
        return 20;
    }
    if (id == 0x20) {
        memcpy(out + 1, "Jan 01 2024", 11);
        memcpy(out + 12, "12:00:00", 8);
        put16(out + 20, 0x0003); put16(out + 22, 0x0044);
        uint32_t hw = 0x00010208, fw = 0x0110002A;
        memcpy(out + 24, &hw, 4); memcpy(out + 28, &fw, 4);
        put16(out + 44, 0x0224);
        return 64;
    }
    return 0;
}

static void uhid_write(struct uhid_event *ev) {
    if (write(dsfd, ev, sizeof *ev) < 0) fprintf(stderr, "inputtool: uhid write: %s\n", strerror(errno));
}

static int create_ds(int bt) {
    dsfd = dsfds[bt] = open("/dev/uhid", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (dsfd < 0) { fprintf(stderr, "inputtool: /dev/uhid: %s\n", strerror(errno)); return -1; }
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_CREATE2;
    strcpy((char *)ev.u.create2.name, bt ? "Sony Interactive Entertainment DualSense Wireless Controller BT"
                                         : "Sony Interactive Entertainment DualSense Wireless Controller");
    strcpy((char *)ev.u.create2.phys, bt ? "harness/dualsense-bt" : "harness/dualsense0");
    ev.u.create2.rd_size = bt ? sizeof ds_bt_rdesc : sizeof ds_rdesc;
    ev.u.create2.bus = bt ? BUS_BLUETOOTH : BUS_USB;
    ev.u.create2.vendor = 0x054C;
    ev.u.create2.product = 0x0CE6;
    ev.u.create2.version = 0x8111;
    if (bt) memcpy(ev.u.create2.rd_data, ds_bt_rdesc, sizeof ds_bt_rdesc);
    else memcpy(ev.u.create2.rd_data, ds_rdesc, sizeof ds_rdesc);
    uhid_write(&ev);
    return 0;
}

static void ds_events(int bt) {
    dsfd = dsfds[bt];
    struct uhid_event ev;
    while (read(dsfd, &ev, sizeof ev) > 0) {
        if (ev.type == UHID_GET_REPORT) {
            struct uhid_event r;
            memset(&r, 0, sizeof r);
            r.type = UHID_GET_REPORT_REPLY;
            r.u.get_report_reply.id = ev.u.get_report.id;
            int n = ds_feature(ev.u.get_report.rnum, r.u.get_report_reply.data, bt);
            r.u.get_report_reply.err = n ? 0 : EIO;
            r.u.get_report_reply.size = n;
            uhid_write(&r);
        } else if (ev.type == UHID_SET_REPORT) {
            struct uhid_event r;
            memset(&r, 0, sizeof r);
            r.type = UHID_SET_REPORT_REPLY;
            r.u.set_report_reply.id = ev.u.set_report.id;
            uhid_write(&r);
        } else if (ev.type == UHID_OUTPUT) {
            printf("{\"t_ms\":%.1f,\"pad\":\"%s\",\"ds_output\":\"", now_ms(), bt ? "bt" : "usb");
            hexout(ev.u.output.data, ev.u.output.size);
            printf("\",\"rtype\":%d}\n", ev.u.output.rtype);
            fflush(stdout);
        }
    }
}

static void ds_input(int bt, uint8_t b0, uint8_t b1, uint8_t b2) {
    dsfd = dsfds[bt];
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_INPUT2;
    uint8_t *r = ev.u.input2.data + (bt ? 1 : 0);   // Bluetooth: 0x31, a tag byte, then the USB layout
    if (bt) { ev.u.input2.data[0] = 0x31; ev.u.input2.data[1] = 0x00; }
    r[0] = bt ? 0x00 : 0x01;
    uint8_t *seqp = r + 7;
    r[1] = r[2] = r[3] = r[4] = 0x80;   // sticks centred
    *seqp = ++ds_seqs[bt];
    r[8] = b0; r[9] = b1; r[10] = b2;
    put16(r + 16 + 6 + 2, 8192);         // accel y: 1 g
    r[33] = 0x80; r[37] = 0x81;          // both touch points inactive
    r[53] = 0x08;
    ev.u.input2.size = 64;
    if (bt) {
        ev.u.input2.size = 78;
        put32(ev.u.input2.data + 74, crc32_seeded(0xA1, ev.u.input2.data, 74));
    }
    uhid_write(&ev);
}

static void destroy_ds(int bt) {
    dsfd = dsfds[bt];
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_DESTROY;
    uhid_write(&ev);
    close(dsfd);
    dsfd = dsfds[bt] = -1;
}

// Key and button names the scripted commands take (else a number).
static const struct { const char *name; int code; } key_names[] = {
    {"BTN_SOUTH", BTN_SOUTH}, {"BTN_EAST", BTN_EAST}, {"BTN_NORTH", BTN_NORTH}, {"BTN_WEST", BTN_WEST},
    {"BTN_TL", BTN_TL}, {"BTN_TR", BTN_TR}, {"BTN_SELECT", BTN_SELECT}, {"BTN_START", BTN_START},
    {"BTN_MODE", BTN_MODE}, {"BTN_THUMBL", BTN_THUMBL}, {"BTN_THUMBR", BTN_THUMBR},
    {"BTN_LEFT", BTN_LEFT}, {"BTN_RIGHT", BTN_RIGHT},
    {"KEY_ENTER", KEY_ENTER}, {"KEY_ESC", KEY_ESC}, {"KEY_BACKSPACE", KEY_BACKSPACE},
    {"KEY_UP", KEY_UP}, {"KEY_DOWN", KEY_DOWN}, {"KEY_LEFT", KEY_LEFT}, {"KEY_RIGHT", KEY_RIGHT},
    {"KEY_LEFTCTRL", KEY_LEFTCTRL}, {"KEY_LEFTALT", KEY_LEFTALT}, {"KEY_LEFTSHIFT", KEY_LEFTSHIFT},
};

static int key_code(const char *n) {
    for (unsigned i = 0; i < sizeof key_names / sizeof *key_names; i++) if (!strcmp(n, key_names[i].name)) return key_names[i].code;
    char *end;
    long v = strtol(n, &end, 0);
    return *n && !*end && v > 0 && v < KEY_MAX ? (int)v : -1;
}

static void sleep_s(double s) {
    struct timespec t = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {}
}

// One edge and its SYN_REPORT on a uinput device.
static void edge(int fd, int type, int code, int value) {
    emit(fd, type, code, value);
    emit(fd, EV_SYN, SYN_REPORT, 0);
}

static int named(const char *n) {
    for (int i = 0; i < NDEV; i++) if (!strcmp(n, dev_names[i])) return i;
    return strcmp(n, "ds") == 0 ? NDEV : strcmp(n, "dsbt") == 0 ? NDEV + 1 : -1;
}

static void command(char *line) {
    char a[32] = "", b[32] = "";
    int t, c, v;
    unsigned x, y, z;
    if (sscanf(line, "create %31s", a) == 1) {
        int d = named(a);
        if (d >= NDEV) { if (create_ds(d - NDEV) == 0) printf("@@CREATED %s\n", a); }
        else if (d >= 0 && ufd[d] < 0 && (ufd[d] = create_uinput(d)) >= 0) {
            char sys[64] = "";
            ioctl(ufd[d], UI_GET_SYSNAME(sizeof sys), sys);
            printf("@@CREATED %s %s\n", a, sys);
        }
    } else if (sscanf(line, "destroy %31s", a) == 1) {
        int d = named(a);
        if (d >= NDEV && dsfds[d - NDEV] >= 0) destroy_ds(d - NDEV);
        else if (d >= 0 && d < NDEV && ufd[d] >= 0) { ioctl(ufd[d], UI_DEV_DESTROY); close(ufd[d]); ufd[d] = -1; }
        printf("@@DESTROYED %s\n", a);
    } else if (sscanf(line, "ev %31s %d %d %d", a, &t, &c, &v) == 4) {
        int d = named(a);
        if (d >= 0 && d < NDEV && ufd[d] >= 0) {
            emit(ufd[d], t, c, v);
            if (t == EV_SYN) {  /* the report is out: when, for the pointer check's latency figures */
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                printf("@@SYN %s %lld\n", a, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
            }
        }
    } else if (sscanf(line, "dsbt %x %x %x", &x, &y, &z) == 3) {
        if (dsfds[BT] >= 0) ds_input(BT, x, y, z);
    } else if (sscanf(line, "ds %x %x %x", &x, &y, &z) == 3) {
        if (dsfds[USB] >= 0) ds_input(USB, x, y, z);
    } else if (sscanf(line, "key %31s %31s %d", a, b, &v) == 3 || sscanf(line, "tap %31s %31s", a, b) == 2) {
        int d = named(a), code = key_code(b);
        if (d < 0 || d >= NDEV || ufd[d] < 0 || code < 0) { fprintf(stderr, "inputtool: cannot do \"%s\"\n", line); return; }
        if (line[0] == 'k') { edge(ufd[d], EV_KEY, code, v); }
        else { edge(ufd[d], EV_KEY, code, 1); sleep_s(0.06); edge(ufd[d], EV_KEY, code, 0); }
    } else if (sscanf(line, "hat %31s %31s", a, b) == 2) {
        int d = named(a);
        int axis = !strcmp(b, "left") || !strcmp(b, "right") ? ABS_HAT0X : ABS_HAT0Y;
        int dir = !strcmp(b, "left") || !strcmp(b, "up") ? -1 : 1;
        if (d != PAD || ufd[d] < 0 || (strcmp(b, "left") && strcmp(b, "right") && strcmp(b, "up") && strcmp(b, "down"))) {
            fprintf(stderr, "inputtool: cannot do \"%s\"\n", line);
            return;
        }
        edge(ufd[d], EV_ABS, axis, dir); sleep_s(0.06); edge(ufd[d], EV_ABS, axis, 0);
    } else if (strncmp(line, "sleep ", 6) == 0) {
        sleep_s(atof(line + 6));
    } else if (sscanf(line, "mark %31s", b) == 1) {
        printf("@@MARK %s\n", b);
    }
    fflush(stdout);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    char buf[4096];
    size_t have = 0;
    for (;;) {
        struct pollfd p[4] = {{0, POLLIN, 0}, {ufd[PAD], POLLIN, 0}, {dsfds[USB], POLLIN, 0}, {dsfds[BT], POLLIN, 0}};
        if (poll(p, 4, 1000) < 0 && errno != EINTR) return 1;
        if (p[1].revents & POLLIN) pad_ff(ufd[PAD]);
        if (p[2].revents & POLLIN) ds_events(USB);
        if (p[3].revents & POLLIN) ds_events(BT);
        if (p[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(0, buf + have, sizeof buf - 1 - have);
            if (n <= 0) break;
            have += n;
            buf[have] = 0;
            char *start = buf, *nl;
            while ((nl = strchr(start, '\n'))) {
                *nl = 0;
                if (!strcmp(start, "quit")) return 0;
                command(start);
                start = nl + 1;
            }
            have = strlen(start);
            memmove(buf, start, have);
        }
    }
    return 0;
}
