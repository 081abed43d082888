#include <opus/opus.h>
#include <opus/opus_multistream.h>
