/* gst-avhw: GstVideoFormat <-> AVPixelFormat, in one place
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/avhw-prelude.h>
#include <gst/video/video.h>
#include <libavutil/pixfmt.h>

G_BEGIN_DECLS

GST_AVHW_API
enum AVPixelFormat gst_avhw_format_to_av (GstVideoFormat format);

GST_AVHW_API
GstVideoFormat gst_avhw_format_from_av (enum AVPixelFormat pix_fmt);

GST_AVHW_API
gchar ** gst_avhw_format_list_names (void);

GST_AVHW_API
GstCaps * gst_avhw_format_template_caps (const gchar * const *features,
    const GValue * formats);

G_END_DECLS
