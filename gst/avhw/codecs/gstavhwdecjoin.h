/* gst-avhw: avhwdec, ending an H.264 stream without flushing the decoder
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

/* The pts of the frames decoded only to push a stream's last frames out
 * (one value per join, in a range below this): dropped wherever they come
 * out. */
#define GST_AVHW_DEC_JOIN_PTS ((int64_t) -0x6a6f696e000000)
#define GST_AVHW_DEC_JOIN_RANGE ((int64_t) 0x1000000)

/* Takes a decoded frame (owns it) or, with @frame NULL, an error of
 * avcodec_receive_frame(); FALSE stops the join. */
typedef gboolean (*GstAvhwDecJoinOut) (AVFrame * frame, int error,
    gpointer user_data);

/* Whether streams of @codec end by a join rather than a drain and flush on
 * this decoder. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_join_applies (const AVCodec * codec, gboolean hw);

static inline gboolean
gst_avhw_dec_is_join_frame (const AVFrame * frame)
{
  return frame->pts <= GST_AVHW_DEC_JOIN_PTS
      && frame->pts > GST_AVHW_DEC_JOIN_PTS - GST_AVHW_DEC_JOIN_RANGE;
}

/* Takes every frame @ctx has ready to @out, dropping join frames. FALSE
 * when @out stopped. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_receive (AVCodecContext * ctx, GstAvhwDecJoinOut out,
    gpointer user_data);

/* Ends the stream on @ctx: every frame of it still in @ctx goes to @out.
 * With @idr (the stream's last IDR access unit, parameter sets in front) by
 * a join; TRUE: @ctx was not flushed, and may still hold join frames: the
 * next packet it is sent must be a cut point (an IDR), or it must be
 * flushed first. FALSE: without @idr, or when the join could not be made,
 * it was drained and flushed instead (or @out stopped it, and it was
 * flushed), or the device failed (gstavhwdecfail.c): then @ctx was left
 * as it was, not to be called again. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_end_stream (AVCodecContext * ctx, const AVPacket * idr,
    GstAvhwDecJoinOut out, gpointer user_data);

G_END_DECLS
