// pango's cairo binding: laid-out, shaped text (fontconfig faces) for the shell's screens.
#include <pango/pangocairo.h>
