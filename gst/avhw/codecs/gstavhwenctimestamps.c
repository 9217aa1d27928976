/* gst-avhw: avhwenc, decode timestamps of the packets
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Why not the encoder's own DTS: they count in frame numbers, start below
 * the first frame's (libx264: -2, -1, 0...) and cannot be mapped to a time
 * before the first PTS without GstVideoEncoder's minimum PTS; and a DTS
 * clamped at 0 then nudged by a nanosecond is one no container timescale
 * keeps apart from the next, so the file loses frames.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <libavutil/avutil.h>
#include "gstavhwenctimestamps.h"
#include "gstavhwelementutils.h"

/* Frame duration when neither the framerate, the first frame's duration
 * nor the second frame say it: the nominal 30 fps the encoder is opened
 * with for variable-rate input. */
#define FALLBACK_DURATION (GST_SECOND / 30)

void
gst_avhw_enc_ts_reset (GstAvhwEncTimestamps * ts)
{
  memset (ts->history, 0xff, sizeof (ts->history));
  ts->started = FALSE;
  ts->first = ts->next = 0;
  ts->first_pts = ts->duration = ts->last_dts = GST_CLOCK_TIME_NONE;
  ts->reorder = ts->ctx_reorder = 0;
  ts->ctx_first = -1;
  ts->ctx_output = FALSE;
}

/* An encoder was opened for the stream; @reorder: its has_b_frames. */
void
gst_avhw_enc_ts_opened (GstAvhwEncTimestamps * ts, guint reorder)
{
  ts->ctx_reorder = reorder;
  ts->ctx_first = -1;
  ts->ctx_output = FALSE;
}

/* Frame @number (GstVideoCodecFrame.system_frame_number, which is also the
 * PTS the encoder gets) goes into the encoder. */
void
gst_avhw_enc_ts_add_frame (GstAvhwEncTimestamps * ts, guint32 number,
    GstClockTime pts, GstClockTime duration)
{
  ts->history[number % GST_AVHW_ENC_PTS_HISTORY].number = number;
  ts->history[number % GST_AVHW_ENC_PTS_HISTORY].pts = pts;
  if (ts->ctx_first < 0)
    ts->ctx_first = number;
  if (!ts->started) {
    ts->started = TRUE;
    ts->first = ts->next = number;
    ts->first_pts = pts;
    ts->duration = duration;
  }
}

static GstClockTime
pts_of (const GstAvhwEncTimestamps * ts, gint64 number)
{
  if (number < 0 || ts->history[number % GST_AVHW_ENC_PTS_HISTORY].number !=
      (guint32) number)
    return GST_CLOCK_TIME_NONE;
  return ts->history[number % GST_AVHW_ENC_PTS_HISTORY].pts;
}

static GstClockTime
frame_duration (const GstAvhwEncTimestamps * ts)
{
  GstClockTime second = pts_of (ts, (gint64) ts->first + 1);

  if (GST_CLOCK_TIME_IS_VALID (ts->duration) && ts->duration > 0)
    return ts->duration;
  if (GST_CLOCK_TIME_IS_VALID (second) && second > ts->first_pts)
    return second - ts->first_pts;
  return FALLBACK_DURATION;
}

/* The first packet of an encoder: its reorder depth is what it declared
 * (has_b_frames) or what its own DTS say, whichever is more; the count of
 * packets catches up with the frames sent when an earlier encoder of the
 * stream dropped some. */
static void
first_packet (GstAvhwEncTimestamps * ts, gint64 encoder_dts)
{
  guint reorder = ts->ctx_reorder;

  ts->ctx_output = TRUE;
  if (ts->ctx_first < 0)
    return;
  if (encoder_dts != AV_NOPTS_VALUE && encoder_dts < ts->ctx_first)
    reorder = MAX (reorder, (guint) MIN (ts->ctx_first - encoder_dts, 64));
  ts->reorder = MAX (ts->reorder, reorder);
  if ((gint64) ts->next < ts->ctx_first)
    ts->next = ts->ctx_first;
}

/* The DTS of the next packet, whose PTS is @pts (NONE: the input has no
 * timestamps, nor has the packet); @encoder_dts is the encoder's, in frame
 * numbers. FALSE, with @error saying why, when no DTS both increases and
 * stays at or below @pts. */
gboolean
gst_avhw_enc_ts_next_dts (GstAvhwEncTimestamps * ts, gint64 encoder_dts,
    GstClockTime pts, GstClockTime * dts, GError ** error)
{
  gint64 i;
  GstClockTime d, back;

  if (!ts->ctx_output)
    first_packet (ts, encoder_dts);
  i = (gint64) ts->next - ts->reorder;
  ts->next++;
  *dts = GST_CLOCK_TIME_NONE;
  if (!GST_CLOCK_TIME_IS_VALID (pts) || !ts->started)
    return TRUE;

  if (i >= ts->first) {
    d = pts_of (ts, i);
  } else {
    back = (ts->first - i) * frame_duration (ts);
    d = GST_CLOCK_TIME_IS_VALID (ts->first_pts) && ts->first_pts >= back ?
        ts->first_pts - back : GST_CLOCK_TIME_NONE;
  }
  if (!GST_CLOCK_TIME_IS_VALID (d)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "no PTS known for frame %" G_GINT64_FORMAT " (%u frames reordered) "
        "to decode packet %u at", i, ts->reorder, ts->next - 1);
    return FALSE;
  }
  if (d > pts) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "the encoder reorders frames more than the %u it declares: a packet "
        "shown at %" GST_TIME_FORMAT " would be decoded at %" GST_TIME_FORMAT,
        ts->reorder, GST_TIME_ARGS (pts), GST_TIME_ARGS (d));
    return FALSE;
  }
  if (GST_CLOCK_TIME_IS_VALID (ts->last_dts) && d <= ts->last_dts) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "decode timestamps would not increase (%" GST_TIME_FORMAT " after %"
        GST_TIME_FORMAT "): the input's PTS do not increase, or the encoder "
        "reopened mid-stream reorders more frames (%u) than the one before",
        GST_TIME_ARGS (d), GST_TIME_ARGS (ts->last_dts), ts->reorder);
    return FALSE;
  }
  ts->last_dts = d;
  *dts = d;
  return TRUE;
}
