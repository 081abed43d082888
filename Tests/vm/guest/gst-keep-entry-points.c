// LD_PRELOAD for gst-launch-1.0 in the VM's v4l2 check (the GStreamer oracle on visl).
// GStreamer 1.22's H.265 decoder base class frees each slice header's entry-point array right
// after parsing it (gsth265decoder.c: gst_h265_slice_hdr_free) while v4l2slh265dec reads the
// array later to fill V4L2_CID_STATELESS_HEVC_ENTRY_POINT_OFFSETS, which visl offers: a NULL
// dereference on the first slice of any stream with entry points (WPP, tiles). Making that one
// free a no-op keeps the array (leaked, a few bytes per slice) so the oracle runs on such streams.
// The call crosses a shared-library boundary (libgstcodecs → libgstcodecparsers), so it resolves
// here first.
struct GstH265SliceHdr;

void gst_h265_slice_hdr_free(struct GstH265SliceHdr *slice_hdr) {
    (void)slice_hdr;
}
