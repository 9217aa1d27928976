/* gst-avhw: opened codec contexts kept across pipelines, per device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwdevice.h>

G_BEGIN_DECLS

/**
 * GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT:
 *
 * How many opened decoders the cache keeps per device at least, with
 * the limit left to the cache (%GST_AVHW_DECODERS_CACHE_AUTO).
 */
#define GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT 4

/**
 * GST_AVHW_DECODERS_CACHE_AUTO:
 *
 * The decoder limit by default: each device keeps
 * %GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT opened decoders, or as many as
 * were open on it at once, when more were (N pipelines at once, or
 * `parallel=N`), so every one of them finds its decoder kept next time.
 * gst_avhw_cache_set_decoders_limit() with a number fixes the limit
 * instead; with this value it gives the limit back to the cache.
 */
#define GST_AVHW_DECODERS_CACHE_AUTO ((guint) 0xffffffff)

GST_AVHW_API
void gst_avhw_cache_set_decoders_limit (guint limit);

GST_AVHW_API
guint gst_avhw_cache_get_decoders_limit (void);

GST_AVHW_API
void gst_avhw_cache_get_decoder_stats (guint * n_cached, guint64 * n_hits,
    guint64 * n_misses);

G_END_DECLS
