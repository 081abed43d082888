#include <libevdev/libevdev.h>
#include <linux/input.h>
#include <linux/input-event-codes.h>
