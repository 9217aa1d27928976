/* gst-avhw: avhwdec, a stream's parameter sets from its codec data, as
 * NAL units of the stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

/* Writes @len big-endian into the @size bytes (1 to 4) at @dst: a NAL
 * unit's length in front of it, as framed streams carry it. */
static inline void
gst_avhw_dec_put_nal_length (guint8 * dst, gsize len, guint size)
{
  guint i;

  for (i = 0; i < size; i++)
    dst[i] = (len >> (8 * (size - 1 - i))) & 0xff;
}

/* The SPS and PPS of avcC (@id AV_CODEC_ID_H264), or the VPS, SPS and
 * PPS of hvcC (AV_CODEC_ID_HEVC), @cd of @size bytes, each behind its
 * length in the codec data's NAL length size, as they would be in the
 * stream. NULL for other codec data, or where one does not fit. */
G_GNUC_INTERNAL
GBytes *gst_avhw_dec_param_sets_inband (const guint8 * cd, gsize size,
    enum AVCodecID id);

/* Gives @pkt, a kept decoder's first packet of a stream, the stream's
 * codec data @cd (@size bytes): as AV_PKT_DATA_NEW_EXTRADATA side data,
 * and, for avcC and hvcC, its parameter sets as NAL units before the
 * packet's own (gst_avhw_dec_param_sets_inband()). Returns the bytes put
 * before them, 0 for none. */
G_GNUC_INTERNAL
gsize gst_avhw_dec_param_sets_give (AVPacket * pkt, const guint8 * cd,
    gsize size, enum AVCodecID id);

G_END_DECLS
