/* gst-avhw: process-wide cache of device and frames contexts
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwdevice.h>

G_BEGIN_DECLS

/**
 * GST_AVHW_FRAMES_CACHE_DEFAULT_LIMIT:
 *
 * How many frames contexts the cache keeps per device context by default.
 */
#define GST_AVHW_FRAMES_CACHE_DEFAULT_LIMIT 16

GST_AVHW_API
GstAvhwDevice * gst_avhw_device_open_foreign (GstContext * context,
    const gchar * device_string, GError ** error);

GST_AVHW_API
void gst_avhw_cache_clear (void);

GST_AVHW_API
void gst_avhw_cache_clear_device (GstAvhwDevice * device);

GST_AVHW_API
void gst_avhw_cache_set_reuse (gboolean reuse);

GST_AVHW_API
gboolean gst_avhw_cache_get_reuse (void);

/**
 * GST_AVHW_MAX_LANES:
 *
 * The most device contexts gst_avhw_cache_set_lanes() lets one device have.
 */
#define GST_AVHW_MAX_LANES 16

GST_AVHW_API
void gst_avhw_cache_set_lanes (guint lanes);

GST_AVHW_API
guint gst_avhw_cache_get_lanes (void);

GST_AVHW_API
void gst_avhw_cache_set_frames_limit (guint limit);

GST_AVHW_API
guint gst_avhw_cache_get_frames_limit (void);

GST_AVHW_API
void gst_avhw_cache_get_stats (guint * n_devices, guint * n_frames,
    guint64 * n_device_opens, guint64 * n_frames_created);

G_END_DECLS
