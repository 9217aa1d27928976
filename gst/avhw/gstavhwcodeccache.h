/* gst-avhw: opened codec contexts kept across pipelines, per device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwdevice.h>

G_BEGIN_DECLS

/**
 * GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT:
 *
 * How many opened decoders the cache keeps per device by default.
 */
#define GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT 4

GST_AVHW_API
void gst_avhw_cache_set_decoders_limit (guint limit);

GST_AVHW_API
guint gst_avhw_cache_get_decoders_limit (void);

GST_AVHW_API
void gst_avhw_cache_get_decoder_stats (guint * n_cached, guint64 * n_hits,
    guint64 * n_misses);

G_END_DECLS
