/* gst-avhw: a device's FFmpeg contexts, for backends and elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwcache.h>
#include <gst/avhw/gstavhwbackend-impl.h>

G_BEGIN_DECLS

GST_AVHW_API
AVBufferRef * gst_avhw_device_get_device_ctx (GstAvhwDevice * device);

GST_AVHW_API
AVBufferRef * gst_avhw_device_get_frames_ctx (GstAvhwDevice * device,
    enum AVPixelFormat sw_format, gint width, gint height, gint pool_size,
    GError ** error);

G_END_DECLS
