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
  gboolean in_order;            /* pic_order_cnt_type 2: pictures are shown
                                 * in decoding order */
  gboolean field_coded;         /* frame_mbs_only_flag 0: fields may come */
} GstAvhwDecH264Seq;

/* The first SPS in @data: an avcC record when @avc_config, else one
 * packet, byte-stream when @nal_length_size is 0, else NAL units with
 * length prefixes of that many bytes. FALSE when it has none (or none that
 * parses). */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_h264_seq_find (const guint8 * data, gsize size,
    gboolean avc_config, guint nal_length_size, GstAvhwDecH264Seq * seq);

/* The SPS and PPS of the avcC record @data into @np; returns the length
 * prefix size it sets for the stream's packets, 0 when @data is not one. */
G_GNUC_INTERNAL
guint gst_avhw_dec_h264_read_config (GstH264NalParser * np,
    const guint8 * data, gsize size);

/* The length prefix size an avcC record sets for the stream's packets; 0
 * when @data is not one. */
G_GNUC_INTERNAL
guint gst_avhw_dec_h264_nal_length_size (const guint8 * data, gsize size);

/* The reorder depth to open FFmpeg's decoder with, under normal
 * compliance, on a hardware decoder with @slots DPB slots, so that the
 * pictures it keeps stay within them; -1 where strict compliance fits (or
 * nothing is known: @slots 0). */
G_GNUC_INTERNAL
gint gst_avhw_dec_h264_reorder_for (const GstAvhwDecH264Seq * seq,
    guint slots);

/* Watches a field-coded stream's packets for field pictures (a slice with
 * field_pic_flag), keeping its parameter sets as they come. */
typedef struct _GstAvhwDecH264Fields GstAvhwDecH264Fields;

/* @codec_data: the avcC record, or NULL for byte-stream. */
G_GNUC_INTERNAL
GstAvhwDecH264Fields * gst_avhw_dec_h264_fields_new (const guint8 * codec_data,
    gsize size);

/* Whether the picture in @data (one packet) is a field. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_h264_fields_in (GstAvhwDecH264Fields * w,
    const guint8 * data, gsize size);

G_GNUC_INTERNAL
void gst_avhw_dec_h264_fields_free (GstAvhwDecH264Fields * w);

G_END_DECLS
