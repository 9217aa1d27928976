/* gst-avhw: H.264/H.265/AV1 bitstream helpers for avhwenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <libavcodec/codec_id.h>

G_BEGIN_DECLS

GstBuffer * gst_avhw_enc_make_codec_data (enum AVCodecID codec_id,
    const guint8 * data, gsize size);

GstBuffer * gst_avhw_enc_annexb_to_length_prefixed (const guint8 * data,
    gsize size);

gboolean gst_avhw_enc_caps_set_profile_level (GstCaps * caps,
    enum AVCodecID codec_id, const guint8 * data, gsize size);

gboolean gst_avhw_enc_is_annexb (const guint8 * data, gsize size);

G_END_DECLS
