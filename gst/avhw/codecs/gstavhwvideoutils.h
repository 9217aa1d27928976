/* gst-avhw: AVFrame properties -> GStreamer video info and buffer flags
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>
#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

void gst_avhw_video_info_from_frame (GstVideoInfo * info,
    const AVFrame * frame, GstVideoFormat format);

void gst_avhw_buffer_flags_from_frame (GstBuffer * buffer,
    const AVFrame * frame);

gboolean gst_avhw_frame_is_keyframe (const AVFrame * frame);

gboolean gst_avhw_frame_is_interlaced (const AVFrame * frame);

void gst_avhw_caps_add_hdr (GstCaps * caps, const AVFrame * frame);

G_END_DECLS
