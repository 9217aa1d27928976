/* gst-avhw: the AVFrame of a GstAvhwMemory, for backends and elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwmemory.h>
#include <gst/avhw/gstavhwbackend-impl.h>

G_BEGIN_DECLS

GST_AVHW_API
GstMemory * gst_avhw_memory_new (GstAvhwDevice * device, AVFrame * frame,
    const GstVideoInfo * info);

GST_AVHW_API
GstBuffer * gst_avhw_buffer_new (GstAvhwDevice * device, AVFrame * frame,
    const GstVideoInfo * info);

GST_AVHW_API
AVFrame * gst_avhw_memory_get_frame (GstMemory * mem);

GST_AVHW_API
AVFrame * gst_avhw_buffer_peek_frame (GstBuffer * buffer);

GST_AVHW_API
gboolean gst_avhw_frame_wrap_buffer (AVFrame * dst, GstBuffer * buffer,
    const GstVideoInfo * info, GstMapFlags flags, GError ** error);

GST_AVHW_API
gboolean gst_avhw_transfer_buffer (GstAvhwBackend * backend, AVFrame * hw,
    GstBuffer * buffer, const GstVideoInfo * info, gboolean download,
    GError ** error);

G_END_DECLS
