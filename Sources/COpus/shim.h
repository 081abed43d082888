#include <opus/opus.h>
#include <opus/opus_multistream.h>

/* opus_encoder_ctl is variadic; Swift cannot call it directly. */
static inline int pf_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitrate) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}
