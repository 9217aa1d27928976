/* gst-avhw: caps <-> AVCodecID, in one place
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/avhw-prelude.h>
#include <libavcodec/codec_id.h>

G_BEGIN_DECLS

GST_AVHW_API
GstCaps * gst_avhw_codec_get_caps (enum AVCodecID codec_id);

GST_AVHW_API
enum AVCodecID gst_avhw_codec_from_caps (const GstCaps * caps);

GST_AVHW_API
const gchar * gst_avhw_codec_get_nick (enum AVCodecID codec_id);

GST_AVHW_API
const enum AVCodecID * gst_avhw_codec_list (guint * n);

G_END_DECLS
