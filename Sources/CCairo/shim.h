// cairo image surfaces and the toy text API (fontconfig picks the "monospace" face):
// the stats overlay's text renderer.
#include <cairo/cairo.h>
