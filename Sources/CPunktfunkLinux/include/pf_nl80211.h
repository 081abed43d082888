// Generic netlink and nl80211 (the Wi-Fi link, its power save, its events): the kernel's own uapi
// headers, so every command and attribute number is the kernel's (linux-libc-dev).
#pragma once
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <linux/nl80211.h>
