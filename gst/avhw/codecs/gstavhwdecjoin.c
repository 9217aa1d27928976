/* gst-avhw: avhwdec, ending an H.264 stream without flushing the decoder
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Draining a decoder (a NULL packet) leaves it unusable until it is
 * flushed, and FFmpeg's h264 flush drops the hwaccel: h264_decode_flush()
 * clears context_initialized, so the next stream's first frame calls
 * get_format again, which destroys and re-creates the hardware decoder
 * (NVDEC: ~50 ms to create, ~190 ms to destroy; issues 17 and 20).
 *
 * A join ends the stream the way the next IDR of a longer stream would:
 * the stream's last IDR access unit (with its parameter sets) is decoded
 * again, marked by its pts, until a frame with this join's mark comes out
 * (a kept decoder may still hold the marked frames of its join before). FFmpeg outputs
 * every picture before an IDR ahead of it (its output search stops at key
 * frames and MMCO resets), and its h264 decoder ignores
 * no_output_of_prior_pics_flag, so by then every frame of the stream is
 * out, each once, as a drain would give them. The marked frames left in
 * the decoder come out ahead of the next stream's, which must start with
 * an IDR, and are dropped. Nothing the decoder keeps across the IDR (the
 * parameter sets) differs from what a flush keeps.
 *
 * H.265 is not joined: its decoder honours NoOutputOfPriorPicsFlag, and
 * its flush keeps the hwaccel anyway. Whatever goes wrong in a join ends
 * in the drain and flush it replaces, so no frame is lost.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwdecjoin.h"
#include "gstavhwdecfail.h"

GST_DEBUG_CATEGORY_EXTERN (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

/* Pictures FFmpeg's h264 decoder may hold back: its DPB (16) plus one per
 * frame thread, plus the one being decoded. */
#define MAX_HELD(ctx) ((guint) (16 + MAX ((ctx)->thread_count, 1) + 1))

gboolean
gst_avhw_dec_join_applies (const AVCodec * codec, gboolean hw)
{
  const gchar *env = g_getenv ("GST_AVHW_DEC_JOIN");

  /* h264_cuvid and other wrappers of a decoder of their own: no */
  if (codec->id != AV_CODEC_ID_H264
      || (codec->capabilities & AV_CODEC_CAP_HARDWARE))
    return FALSE;
  /* 0: never (drain and flush, as before); 1: software decoders too */
  if (env && *env)
    return g_strcmp0 (env, "0") != 0 && (hw || g_strcmp0 (env, "1") == 0);
  return hw;
}

/* FALSE when @out stopped; *@marked set once a frame with @mark came,
 * *@failed once the device failed (gstavhwdecfail.c). */
static gboolean
receive (AVCodecContext * ctx, GstAvhwDecJoinOut out, gpointer user_data,
    int64_t mark, gboolean * marked, gboolean * failed)
{
  AVFrame *frame;
  int r;

  for (;;) {
    frame = av_frame_alloc ();
    if (!frame)
      return out (NULL, AVERROR (ENOMEM), user_data);
    r = avcodec_receive_frame (ctx, frame);
    if (r == AVERROR (EAGAIN) || r == AVERROR_EOF) {
      av_frame_free (&frame);
      return TRUE;
    }
    if (r < 0) {
      av_frame_free (&frame);
      *failed |= gst_avhw_dec_fail_is_device (ctx, r);
      if (!out (NULL, r, user_data) || *failed)
        return FALSE;
    } else if (gst_avhw_dec_is_join_frame (frame)) {
      *marked |= frame->pts == mark;
      av_frame_free (&frame);
    } else if (!out (frame, 0, user_data)) {
      return FALSE;
    }
  }
}

/* TRUE, once told to @out, when sending a packet gave @r, a device
 * failure: @ctx is not to be called again. */
static gboolean
send_failed (AVCodecContext * ctx, int r, GstAvhwDecJoinOut out,
    gpointer user_data)
{
  if (!gst_avhw_dec_fail_is_device (ctx, r))
    return FALSE;
  out (NULL, r, user_data);
  return TRUE;
}

gboolean
gst_avhw_dec_receive (AVCodecContext * ctx, GstAvhwDecJoinOut out,
    gpointer user_data)
{
  gboolean marked, failed = FALSE;

  return receive (ctx, out, user_data, 0, &marked, &failed);
}

gboolean
gst_avhw_dec_end_stream (AVCodecContext * ctx, const AVPacket * idr,
    GstAvhwDecJoinOut out, gpointer user_data)
{
  static gint joins;
  int64_t mark = GST_AVHW_DEC_JOIN_PTS - (g_atomic_int_add (&joins, 1)
      & (GST_AVHW_DEC_JOIN_RANGE - 1));
  gboolean marked = FALSE, going = TRUE, failed = FALSE;
  AVPacket *again;
  guint sent = 0;
  int r = 0;

  while (idr && going && !marked && sent < MAX_HELD (ctx)) {
    again = av_packet_clone (idr);
    if (!again)
      break;
    again->pts = again->dts = mark;
    again->flags |= AV_PKT_FLAG_KEY;
    while ((r = avcodec_send_packet (ctx, again)) == AVERROR (EAGAIN)
        && (going = receive (ctx, out, user_data, mark, &marked, &failed)));
    av_packet_free (&again);
    sent++;
    if (r < 0 && r != AVERROR (EAGAIN)) {
      failed = send_failed (ctx, r, out, user_data);
      break;
    }
    if (going)
      going = receive (ctx, out, user_data, mark, &marked, &failed);
  }
  /* a decoder whose device failed is not called again */
  if (failed)
    return FALSE;
  if (marked) {
    GST_LOG ("joined after %u access unit(s)", sent);
    return TRUE;
  }
  if (idr)
    GST_DEBUG ("no join (%u sent, last %d): drain and flush", sent, r);
  if (going) {
    if (send_failed (ctx, avcodec_send_packet (ctx, NULL), out, user_data))
      return FALSE;
    receive (ctx, out, user_data, mark, &marked, &failed);
    if (failed)
      return FALSE;
  }
  avcodec_flush_buffers (ctx);
  return FALSE;
}
