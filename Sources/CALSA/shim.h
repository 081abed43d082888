#include <alsa/asoundlib.h>
#include <stdlib.h>
#include <string.h>

/* snd_pcm_chmap_t ends in a flexible array Swift cannot index; these move positions in and out
 * of plain arrays. Positions are SND_CHMAP_* values. */

/* Sets the channel map of an open PCM (after hw_params). 0 or a negative errno. */
static inline int pf_alsa_set_chmap(snd_pcm_t *pcm, const unsigned int *positions, unsigned int channels) {
    snd_pcm_chmap_t *map = malloc(sizeof(snd_pcm_chmap_t) + channels * sizeof(unsigned int));
    if (!map) return -ENOMEM;
    map->channels = channels;
    memcpy(map->pos, positions, channels * sizeof(unsigned int));
    int rc = snd_pcm_set_chmap(pcm, map);
    free(map);
    return rc;
}

/* The current channel map of an open PCM into `positions` (capacity `max`): the channel count,
 * or a negative errno (-ENXIO when the device reports none). */
static inline int pf_alsa_get_chmap(snd_pcm_t *pcm, unsigned int *positions, unsigned int max) {
    snd_pcm_chmap_t *map = snd_pcm_get_chmap(pcm);
    if (!map) return -ENXIO;
    unsigned int n = map->channels < max ? map->channels : max;
    memcpy(positions, map->pos, n * sizeof(unsigned int));
    free(map);
    return (int)n;
}

/* Whether the device offers a settable (VAR or PAIRED) map, or one fixed map equal to
 * `positions`, for `channels` channels: 1 settable, 2 fixed and equal, 0 none, negative errno. */
static inline int pf_alsa_chmap_offered(snd_pcm_t *pcm, const unsigned int *positions, unsigned int channels) {
    snd_pcm_chmap_query_t **maps = snd_pcm_query_chmaps(pcm);
    if (!maps) return -ENXIO;
    int result = 0;
    for (snd_pcm_chmap_query_t **m = maps; *m; m++) {
        if ((*m)->map.channels != channels) continue;
        if ((*m)->type != SND_CHMAP_TYPE_FIXED) { result = 1; break; }
        if (memcmp((*m)->map.pos, positions, channels * sizeof(unsigned int)) == 0) { result = 2; break; }
    }
    snd_pcm_free_chmaps(maps);
    return result;
}

/* One control element's bytes (ELD) by interface, device and name: the byte count, or a
 * negative errno. */
static inline int pf_alsa_ctl_bytes(snd_ctl_t *ctl, snd_ctl_elem_iface_t iface, unsigned int device,
                                    const char *name, unsigned char *out, unsigned int max) {
    snd_ctl_elem_value_t *value = NULL;
    snd_ctl_elem_info_t *info = NULL;
    int rc = snd_ctl_elem_value_malloc(&value);
    if (rc < 0) return rc;
    rc = snd_ctl_elem_info_malloc(&info);
    if (rc < 0) { snd_ctl_elem_value_free(value); return rc; }
    snd_ctl_elem_info_set_interface(info, iface);
    snd_ctl_elem_info_set_device(info, device);
    snd_ctl_elem_info_set_name(info, name);
    rc = snd_ctl_elem_info(ctl, info);
    if (rc >= 0) {
        unsigned int count = snd_ctl_elem_info_get_count(info);
        snd_ctl_elem_value_set_interface(value, iface);
        snd_ctl_elem_value_set_device(value, device);
        snd_ctl_elem_value_set_name(value, name);
        rc = snd_ctl_elem_read(ctl, value);
        if (rc >= 0) {
            unsigned int n = count < max ? count : max;
            memcpy(out, snd_ctl_elem_value_get_bytes(value), n);
            rc = (int)n;
        }
    }
    snd_ctl_elem_info_free(info);
    snd_ctl_elem_value_free(value);
    return rc;
}

/* One boolean control (a jack) by interface and name: 0/1, or a negative errno. */
static inline int pf_alsa_ctl_boolean(snd_ctl_t *ctl, snd_ctl_elem_iface_t iface, const char *name) {
    snd_ctl_elem_value_t *value = NULL;
    int rc = snd_ctl_elem_value_malloc(&value);
    if (rc < 0) return rc;
    snd_ctl_elem_value_set_interface(value, iface);
    snd_ctl_elem_value_set_name(value, name);
    rc = snd_ctl_elem_read(ctl, value);
    if (rc >= 0) rc = snd_ctl_elem_value_get_boolean(value, 0) ? 1 : 0;
    snd_ctl_elem_value_free(value);
    return rc;
}

/* The names of every control element of `ctl`, NUL-separated, into `out`; with the interface
 * and device of each in `ifaces`/`devices` (capacity `max` elements). The element count, or a
 * negative errno. */
static inline int pf_alsa_ctl_list(snd_ctl_t *ctl, char *out, unsigned int outBytes,
                                   int *ifaces, unsigned int *devices, unsigned int max) {
    snd_ctl_elem_list_t *list = NULL;
    int rc = snd_ctl_elem_list_malloc(&list);
    if (rc < 0) return rc;
    rc = snd_ctl_elem_list(ctl, list);
    if (rc < 0) { snd_ctl_elem_list_free(list); return rc; }
    unsigned int count = snd_ctl_elem_list_get_count(list);
    rc = snd_ctl_elem_list_alloc_space(list, count);
    if (rc < 0) { snd_ctl_elem_list_free(list); return rc; }
    rc = snd_ctl_elem_list(ctl, list);
    if (rc < 0) { snd_ctl_elem_list_free_space(list); snd_ctl_elem_list_free(list); return rc; }
    unsigned int used = 0, n = 0;
    unsigned int got = snd_ctl_elem_list_get_used(list);
    for (unsigned int i = 0; i < got && n < max; i++) {
        const char *name = snd_ctl_elem_list_get_name(list, i);
        size_t len = strlen(name) + 1;
        if (used + len > outBytes) break;
        memcpy(out + used, name, len);
        used += (unsigned int)len;
        ifaces[n] = (int)snd_ctl_elem_list_get_interface(list, i);
        devices[n] = snd_ctl_elem_list_get_device(list, i);
        n++;
    }
    snd_ctl_elem_list_free_space(list);
    snd_ctl_elem_list_free(list);
    return (int)n;
}

/* alsa-lib prints its own errors to stderr; the sink reports failures in its own lines. */
static void pf_alsa_silent(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void pf_alsa_quiet(void) { snd_lib_error_set_handler(pf_alsa_silent); }
