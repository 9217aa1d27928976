/* gst-avhw: avhwdec, one watcher of the input stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/avhw/gstavhw-impl.h>
#include "gstavhwdech264.h"

G_BEGIN_DECLS
/* What kind of random access point a packet is. */
    typedef enum
{
  GST_AVHW_DEC_KEY_NONE = 0,
  GST_AVHW_DEC_KEY_IDR_FRAME,   /* H.264 IDR picture coded as a frame */
  GST_AVHW_DEC_KEY_IDR_FIELD,   /* H.264 IDR field: half a picture */
  GST_AVHW_DEC_KEY_IDR,         /* H.265 IDR_W_RADL, IDR_N_LP */
  GST_AVHW_DEC_KEY_BLA,         /* H.265 BLA_W_LP, BLA_W_RADL, BLA_N_LP */
  GST_AVHW_DEC_KEY_CRA,         /* H.265 CRA: its RASL pictures need what
                                 * came before it */
  GST_AVHW_DEC_KEY_SHOWN_KEY,   /* VP9, AV1: a shown key frame */
} GstAvhwDecKey;

/* What one packet is, as the watcher read it. */
typedef struct
{
  GstAvhwDecKey key;            /* the packet's first random access picture */
  gboolean cut;                 /* decoding can start here with only the
                                 * parameter sets kept before it */
  gboolean field;               /* H.264: its first slice is a field */
} GstAvhwDecUnit;

/* One per stream: one codecparsers parser for its codec, and what the
 * stream said so far. */
typedef struct _GstAvhwDecWatch GstAvhwDecWatch;

/* @caps: the input caps (stream-format, alignment); @codec_data: avcC,
 * hvcC or NULL. */
G_GNUC_INTERNAL
    GstAvhwDecWatch * gst_avhw_dec_watch_new (enum AVCodecID codec,
    const GstCaps * caps, GstBuffer * codec_data);
G_GNUC_INTERNAL void gst_avhw_dec_watch_free (GstAvhwDecWatch * w);

/* FALSE, with *why (free it), when this stream's cut points cannot be
 * used: its codec, stream-format or alignment. */
G_GNUC_INTERNAL
    gboolean gst_avhw_dec_watch_cuts (GstAvhwDecWatch * w, gchar ** why);

/* Reads one packet (an access unit, temporal unit or frame): @unit says
 * what it is; its parameter sets are kept. */
G_GNUC_INTERNAL
    void gst_avhw_dec_watch_scan (GstAvhwDecWatch * w, const guint8 * data,
    gsize size, GstAvhwDecUnit * unit);

/* H.264: the first SPS seen (codec_data first), NULL before one. */
G_GNUC_INTERNAL
    const GstAvhwDecH264Seq *gst_avhw_dec_watch_h264_seq (GstAvhwDecWatch * w);

/* How many distinct parameter sets (AV1: sequence headers) are kept. */
G_GNUC_INTERNAL guint gst_avhw_dec_watch_n_param_sets (GstAvhwDecWatch * w);

/* @data, the packet scanned last, as a new packet; with @with_param_sets
 * every parameter set kept goes in front of its units (AV1: after its
 * temporal delimiter). NULL when out of memory. */
G_GNUC_INTERNAL
    AVPacket * gst_avhw_dec_watch_packet (GstAvhwDecWatch * w,
    const guint8 * data, gsize size, gboolean with_param_sets);

G_END_DECLS
