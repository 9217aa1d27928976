/* gst-avhw: avhwdec, where decoding can start without anything before it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>
#include <gst/avhw/gstavhw.h>
#include <gst/codecparsers/gsth264parser.h>

G_BEGIN_DECLS

typedef struct
{
  enum AVCodecID codec;
  guint nal_length_size;        /* 0: byte-stream */
  GPtrArray *param_sets;        /* GBytes, units as in the stream, oldest first */
  GBytes *joined;               /* param_sets in one, made on demand */
  gboolean av1_reduced;         /* AV1 reduced_still_picture_header */
  GstH264NalParser *h264;       /* H.264: SPS and PPS, for slice headers */
  gboolean cut_is_frame;        /* H.264: the last IDR is a frame, not a
                                 * field (a join needs one) */
} GstAvhwDecCuts;

/* FALSE, with *why (free it), when this stream cannot be cut. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_cuts_init (GstAvhwDecCuts * c, enum AVCodecID codec,
    GstVideoCodecState * state, gchar ** why);
G_GNUC_INTERNAL
void gst_avhw_dec_cuts_clear (GstAvhwDecCuts * c);
/* TRUE when decoding can start at this access unit; keeps its parameter
 * sets. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_cuts_scan (GstAvhwDecCuts * c, const guint8 * data,
    gsize size);
/* @data as a new packet; with @with_param_sets, every parameter set kept
 * goes in front of its units. NULL when out of memory. */
G_GNUC_INTERNAL
AVPacket * gst_avhw_dec_cuts_packet (GstAvhwDecCuts * c, const guint8 * data,
    gsize size, gboolean with_param_sets);

G_END_DECLS
