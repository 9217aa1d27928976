/* gst-avhw: avhwenc, decode timestamps of the packets
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* Frames whose PTS are remembered: far more than any encoder holds. */
#define GST_AVHW_ENC_PTS_HISTORY 512

/* The least PTS avhwenc gives GstVideoEncoder to work with
 * (gst_video_encoder_set_min_pts(), as x264enc does): a stream that starts
 * at 0 is shifted up by this much, its segment with it, so the DTS of
 * packets decoded before the first frame is shown stay above 0. */
#define GST_AVHW_ENC_MIN_PTS (GST_SECOND * 60 * 60 * 1000)

/* One stream's timestamps, from its start or a flush to its EOS. Packet k
 * (in the order they come out, which is decode order) gets as DTS the PTS
 * of input frame k - R, R being the most frames the encoder reorders; the
 * R packets before the first frame's PTS get DTS one frame duration apart
 * below it. With the encoder's reordering no deeper than R, every DTS is
 * at most its packet's PTS, and DTS increase as the input's PTS do, as far
 * apart as they are. */
typedef struct
{
  struct
  {
    guint32 number;
    GstClockTime pts;
  } history[GST_AVHW_ENC_PTS_HISTORY];
  gboolean started;
  guint32 first;                /* the stream's first frame number */
  GstClockTime first_pts;
  GstClockTime duration;        /* of the first frame; NONE: unknown */
  guint32 next;                 /* frame number of the next packet, k */
  guint reorder;                /* R: the most of any encoder of the stream */
  guint ctx_reorder;            /* has_b_frames of the current encoder */
  gint64 ctx_first;             /* first frame it was sent; -1: none yet */
  gboolean ctx_output;          /* it has put a packet out */
  GstClockTime last_dts;
} GstAvhwEncTimestamps;

void gst_avhw_enc_ts_reset (GstAvhwEncTimestamps * ts);

void gst_avhw_enc_ts_opened (GstAvhwEncTimestamps * ts, guint reorder);

void gst_avhw_enc_ts_add_frame (GstAvhwEncTimestamps * ts, guint32 number,
    GstClockTime pts, GstClockTime duration);

gboolean gst_avhw_enc_ts_next_dts (GstAvhwEncTimestamps * ts,
    gint64 encoder_dts, GstClockTime pts, GstClockTime * dts,
    GError ** error);

G_END_DECLS
