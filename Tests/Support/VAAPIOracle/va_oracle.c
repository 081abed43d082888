/*
 * TEST ORACLE — decodes an Annex-B HEVC file with libavcodec's own VA-API hwaccel (the path of
 * `ffmpeg -hwaccel vaapi`, mpv and Kodi) on a display opened on the VA recording driver, so the
 * driver's record holds exactly the buffers libavcodec sends a real GPU. The pictures themselves
 * are garbage (the driver decodes nothing); only the record matters.
 *
 *   va_oracle DRIVER_SO DEVICE_FILE STREAM.hevc
 *
 * LIBVA_DRIVER_NAME=varecord and LIBVA_DRIVERS_PATH (the directory of DRIVER_SO) must be set.
 * The display is built by the driver's varec_display_for_fd(fd of DEVICE_FILE) — the same
 * display the Swift tests use — then wrapped as an FFmpeg VA-API device with
 * av_hwdevice_ctx_alloc + av_hwdevice_ctx_init (no DRM node). The record lands in
 * DEVICE_FILE.record. Prints "frames N" (pictures output) and exits 0, or prints why not and
 * exits 1; libavcodec falling back to software decoding counts as a failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_vaapi.h>
#include <va/va.h>

static int hw_failures;

static enum AVPixelFormat pick_vaapi(AVCodecContext *avctx, const enum AVPixelFormat *formats)
{
    (void)avctx;
    for (const enum AVPixelFormat *f = formats; *f != AV_PIX_FMT_NONE; f++)
        if (*f == AV_PIX_FMT_VAAPI) return *f;
    hw_failures++;  /* the hwaccel failed to initialise: libavcodec offers software only */
    return AV_PIX_FMT_NONE;
}

static int drain(AVCodecContext *avctx, AVFrame *frame, long *frames)
{
    for (;;) {
        int ret = avcodec_receive_frame(avctx, frame);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return 0;
        if (ret < 0) return ret;
        if (frame->format != AV_PIX_FMT_VAAPI) { av_frame_unref(frame); return AVERROR(ENOSYS); }
        (*frames)++;
        av_frame_unref(frame);
    }
}

static int fail(const char *what, int err)
{
    char text[AV_ERROR_MAX_STRING_SIZE] = "";
    if (err) av_strerror(err, text, sizeof text);
    fprintf(stderr, "va_oracle: %s%s%s\n", what, err ? ": " : "", text);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: va_oracle DRIVER_SO DEVICE_FILE STREAM.hevc\n"); return 2; }
    av_log_set_level(AV_LOG_ERROR);

    void *driver = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!driver) return fail(dlerror(), 0);
    VADisplay (*display_for_fd)(int) = (VADisplay (*)(int))dlsym(driver, "varec_display_for_fd");
    if (!display_for_fd) return fail("no varec_display_for_fd in the driver", 0);
    int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail("cannot open the device file", 0);
    VADisplay display = display_for_fd(fd);
    int major = 0, minor = 0;
    if (!display || vaInitialize(display, &major, &minor) != VA_STATUS_SUCCESS) return fail("vaInitialize", 0);

    AVBufferRef *device = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_VAAPI);
    if (!device) return fail("av_hwdevice_ctx_alloc", 0);
    AVVAAPIDeviceContext *vaapi = ((AVHWDeviceContext *)device->data)->hwctx;
    vaapi->display = display;
    int ret = av_hwdevice_ctx_init(device);
    if (ret < 0) return fail("av_hwdevice_ctx_init", ret);

    const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_HEVC);
    AVCodecContext *avctx = codec ? avcodec_alloc_context3(codec) : NULL;
    AVCodecParserContext *parser = av_parser_init(AV_CODEC_ID_HEVC);
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    if (!avctx || !parser || !packet || !frame) return fail("allocation", 0);
    avctx->hw_device_ctx = av_buffer_ref(device);
    avctx->get_format = pick_vaapi;
    avctx->thread_count = 1;  /* pictures reach the driver in decoding order, one at a time */
    if ((ret = avcodec_open2(avctx, codec, NULL)) < 0) return fail("avcodec_open2", ret);

    FILE *in = fopen(argv[3], "rb");
    if (!in) return fail("cannot open the stream", 0);
    long frames = 0;
    uint8_t chunk[65536 + AV_INPUT_BUFFER_PADDING_SIZE];
    int eof = 0;
    while (!eof) {
        size_t n = fread(chunk, 1, 65536, in);
        memset(chunk + n, 0, AV_INPUT_BUFFER_PADDING_SIZE);
        eof = n == 0;
        const uint8_t *p = chunk;
        int left = (int)n;
        do {  /* with left == 0 the parser flushes its last access unit */
            int used = av_parser_parse2(parser, avctx, &packet->data, &packet->size, p, left,
                                        AV_NOPTS_VALUE, AV_NOPTS_VALUE, 0);
            if (used < 0) return fail("parser", used);
            p += used;
            left -= used;
            if (packet->size) {
                if ((ret = avcodec_send_packet(avctx, packet)) < 0) return fail("avcodec_send_packet", ret);
                if ((ret = drain(avctx, frame, &frames)) < 0) return fail("avcodec_receive_frame", ret);
            }
        } while (left > 0);
    }
    fclose(in);
    if ((ret = avcodec_send_packet(avctx, NULL)) < 0) return fail("flush", ret);
    if ((ret = drain(avctx, frame, &frames)) < 0) return fail("avcodec_receive_frame", ret);
    if (hw_failures) return fail("libavcodec's VA-API hwaccel did not initialise", 0);

    printf("frames %ld\n", frames);
    av_frame_free(&frame);
    av_packet_free(&packet);
    av_parser_close(parser);
    avcodec_free_context(&avctx);
    av_buffer_unref(&device);
    vaTerminate(display);
    close(fd);
    return 0;
}
