#include <opus/opus.h>
#include <opus/opus_multistream.h>

/* opus_encoder_ctl is variadic; Swift cannot call it directly. */
static inline int pf_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitrate) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}

/* The mic uplink's encoder settings (data-plane.md §5.5). */
static inline int pf_opus_set_inband_fec(OpusEncoder *encoder, opus_int32 on) {
    return opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(on));
}
static inline int pf_opus_set_packet_loss_perc(OpusEncoder *encoder, opus_int32 percent) {
    return opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(percent));
}

/* The test host's multistream encoder (data-plane.md §5.1 bitrate tiers). */
static inline int pf_opus_ms_set_bitrate(OpusMSEncoder *encoder, opus_int32 bitrate) {
    return opus_multistream_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}
