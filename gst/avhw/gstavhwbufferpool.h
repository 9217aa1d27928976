/* gst-avhw: buffer pool over an AVHWFramesContext
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>
#include <gst/avhw/gstavhwdevice.h>

G_BEGIN_DECLS

#define GST_TYPE_AVHW_BUFFER_POOL (gst_avhw_buffer_pool_get_type ())
GST_AVHW_API
G_DECLARE_FINAL_TYPE (GstAvhwBufferPool, gst_avhw_buffer_pool, GST,
    AVHW_BUFFER_POOL, GstBufferPool);

GST_AVHW_API
GstBufferPool * gst_avhw_buffer_pool_new (GstAvhwDevice * device);

GST_AVHW_API
GstAvhwDevice * gst_avhw_buffer_pool_get_device (GstAvhwBufferPool * pool);

G_END_DECLS
