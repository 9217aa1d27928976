/* gst-avhw: library-internal helpers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <libavutil/error.h>
#include <gst/avhw/gstavhwdevice.h>

G_BEGIN_DECLS

G_GNUC_INTERNAL void gst_avhw_log_init (void);
G_GNUC_INTERNAL void gst_avhw_cache_count_device_open (void);
G_GNUC_INTERNAL void gst_avhw_codec_cache_clear (void);
G_GNUC_INTERNAL GList *gst_avhw_lru_trim (GQueue * lru, guint limit,
    gsize owner_offset);

/* Registry cache data of backend plugins: their memory features. */
#define GST_AVHW_CACHE_DATA_NAME "gst-avhw-backends"
G_GNUC_INTERNAL gboolean gst_avhw_strv_string_contains (const gchar * list,
    const gchar * item);

/* FFmpeg error code -> short text, in a caller-provided buffer. */
#define GST_AVHW_ERR2STR(buf, err) \
  av_make_error_string ((buf), sizeof (buf), (err))

G_GNUC_INTERNAL GstAvhwBackend *gst_avhw_foreign_buffer_plane (GstBuffer *
    buffer, guint plane, guint64 * handle, gint * stride, gint * index);

G_GNUC_INTERNAL void gst_avhw_codec_cache_count_open (GstAvhwDevice *
    device, gint delta);

G_END_DECLS
