/* gst-avhw: avhwdec, what an H.264 sequence parameter set decides before a
 * hardware decoder sees it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/codecparsers/gsth264parser.h>

G_BEGIN_DECLS

/* What of an H.264 SPS matters to the choices avhwdec makes for FFmpeg's
 * h264 decoder on a hardware device. */
typedef struct
{
  guint refs;                   /* max_num_ref_frames */
  /* The reorder depth FFmpeg's decoder takes under strict compliance when
   * the SPS has no VUI bitstream_restriction: MaxDpbMbs of the level over
   * the frame's macroblocks, at most 15 (h264_ps.c). */
  guint level_reorder;
  gboolean restricted;          /* VUI bitstream_restriction: FFmpeg takes
                                 * its num_reorder_frames in any mode */
  guint reorder;                /* the reorder depth FFmpeg's SPS gets:
                                 * num_reorder_frames where restricted,
                                 * else level_reorder */
  gboolean in_order;            /* pic_order_cnt_type 2: pictures are shown
                                 * in decoding order */
  gboolean field_coded;         /* frame_mbs_only_flag 0: fields may come */
} GstAvhwDecH264Seq;

/* What of @sps matters (the stream's first SPS). */
G_GNUC_INTERNAL
void gst_avhw_dec_h264_seq_from_sps (const GstH264SPS * sps,
    GstAvhwDecH264Seq * seq);

/* The reorder depth to open FFmpeg's decoder with, under normal
 * compliance, on a hardware decoder with @slots DPB slots, so that the
 * pictures it keeps stay within them; -1 where strict compliance fits (or
 * nothing is known: @slots 0). */
G_GNUC_INTERNAL
gint gst_avhw_dec_h264_reorder_for (const GstAvhwDecH264Seq * seq,
    guint slots);

G_END_DECLS
