/* gst-avhw: avhwdec, what an H.264 sequence parameter set decides before a
 * hardware decoder sees it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * avhwdec opens FFmpeg's h264 decoder with strict compliance, so that a
 * stream without VUI reorder information keeps every B-frame: the decoder
 * then holds as many pictures for display order as the level allows
 * (up to 15) on top of its reference pictures. FFmpeg keeps those apart,
 * where the standard's DPB would count a picture that is both once, and a
 * hardware decoder with a fixed number of picture slots may not have that
 * many: FFmpeg 7.1's Vulkan hwaccel gives each picture the slot of its
 * index in the decoder's picture array, and on the H200 (17 slots)
 * MR2_TANDBERG_E (15 reference frames, level 3.1, QCIF: reorder depth 15)
 * failed its 25th submission. For such devices the SPS decides a depth
 * that fits: none where pictures are shown in decoding order, else what
 * the slots leave beside the references.
 *
 * Field-coded streams on a device that decodes field pictures wrongly are
 * watched slice by slice: a stream whose interlaced pictures are MBAFF
 * frames stays on the device, and the first field picture hands the
 * stream to software (gstavhwdec.c).
 *
 * The SPS is read with GStreamer's codecparsers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwdech264.h"

/* MaxDpbMbs by level_idc (H.264 Table A-1), as FFmpeg's h264_ps.c has it:
 * levels it does not list take the largest depth. */
static const guint level_max_dpb_mbs[][2] = {
  {10, 396}, {11, 900}, {12, 2376}, {13, 2376}, {20, 2376}, {21, 4752},
  {22, 8100}, {30, 8100}, {31, 18000}, {32, 20480}, {40, 32768},
  {41, 32768}, {42, 34816}, {50, 110400}, {51, 184320}, {52, 184320},
};

#define MAX_REORDER 15          /* FFmpeg's H264_MAX_DPB_FRAMES - 1 */

static void
seq_from_sps (const GstH264SPS * sps, GstAvhwDecH264Seq * seq)
{
  guint mbs = (sps->pic_width_in_mbs_minus1 + 1) *
      (sps->pic_height_in_map_units_minus1 + 1) *
      (sps->frame_mbs_only_flag ? 1 : 2);
  guint i;

  seq->refs = sps->num_ref_frames;
  seq->level_reorder = MAX_REORDER;
  for (i = 0; i < G_N_ELEMENTS (level_max_dpb_mbs); i++)
    if (level_max_dpb_mbs[i][0] == sps->level_idc && mbs > 0)
      seq->level_reorder = MIN (level_max_dpb_mbs[i][1] / mbs, MAX_REORDER);
  seq->restricted = sps->vui_parameters_present_flag
      && sps->vui_parameters.bitstream_restriction_flag;
  seq->in_order = sps->pic_order_cnt_type == 2;
  seq->field_coded = !sps->frame_mbs_only_flag;
}

static gboolean
parse_sps (GstH264NalParser * np, GstH264NalUnit * nalu,
    GstAvhwDecH264Seq * seq)
{
  GstH264SPS sps;

  if (nalu->type != GST_H264_NAL_SPS
      || gst_h264_parser_parse_sps (np, nalu, &sps) != GST_H264_PARSER_OK)
    return FALSE;
  seq_from_sps (&sps, seq);
  gst_h264_sps_clear (&sps);
  return TRUE;
}

static gboolean
find_in_config (GstH264NalParser * np, const guint8 * data, gsize size,
    GstAvhwDecH264Seq * seq)
{
  GstH264DecoderConfigRecord *config = NULL;
  gboolean found = FALSE;
  guint i;

  if (gst_h264_parser_parse_decoder_config_record (np, data, size,
          &config) != GST_H264_PARSER_OK)
    return FALSE;
  for (i = 0; i < config->sps->len && !found; i++)
    found = parse_sps (np, &g_array_index (config->sps, GstH264NalUnit, i),
        seq);
  gst_h264_decoder_config_record_free (config);
  return found;
}

static gboolean
find_in_packet (GstH264NalParser * np, const guint8 * data, gsize size,
    guint nal_length_size, GstAvhwDecH264Seq * seq)
{
  GstH264NalUnit nalu;
  GstH264ParserResult r;
  guint offset = 0;

  while (offset < size) {
    r = nal_length_size ?
        gst_h264_parser_identify_nalu_avc (np, data, offset, size,
        nal_length_size, &nalu) :
        gst_h264_parser_identify_nalu (np, data, offset, size, &nalu);
    if (r != GST_H264_PARSER_OK && r != GST_H264_PARSER_NO_NAL_END)
      return FALSE;
    if (parse_sps (np, &nalu, seq))
      return TRUE;
    offset = nalu.offset + nalu.size;
  }
  return FALSE;
}

gboolean
gst_avhw_dec_h264_seq_find (const guint8 * data, gsize size,
    gboolean avc_config, guint nal_length_size, GstAvhwDecH264Seq * seq)
{
  GstH264NalParser *np;
  gboolean found;

  g_return_val_if_fail (seq != NULL, FALSE);
  if (!data || size == 0)
    return FALSE;
  np = gst_h264_nal_parser_new ();
  found = avc_config ? find_in_config (np, data, size, seq) :
      find_in_packet (np, data, size, nal_length_size, seq);
  gst_h264_nal_parser_free (np);
  return found;
}

guint
gst_avhw_dec_h264_nal_length_size (const guint8 * data, gsize size)
{
  /* configurationVersion 1, then profile, compatibility, level, then
   * six reserved bits and lengthSizeMinusOne */
  if (!data || size < 7 || data[0] != 1)
    return 0;
  return (data[4] & 0x03) + 1;
}

gint
gst_avhw_dec_h264_reorder_for (const GstAvhwDecH264Seq * seq, guint slots)
{
  /* the picture being decoded, and one leaving the references while it is
   * still to be shown */
  const guint busy = 2;

  if (slots == 0 || seq->restricted)
    return -1;
  if (seq->refs + seq->level_reorder + busy <= slots)
    return -1;
  if (seq->in_order || seq->refs + busy >= slots)
    return 0;
  return MIN (seq->level_reorder, slots - busy - seq->refs);
}

guint
gst_avhw_dec_h264_read_config (GstH264NalParser * np, const guint8 * data,
    gsize size)
{
  GstH264DecoderConfigRecord *config = NULL;
  guint i, nal_length_size;

  if (!data || gst_h264_parser_parse_decoder_config_record (np, data, size,
          &config) != GST_H264_PARSER_OK)
    return 0;
  for (i = 0; i < config->sps->len; i++)
    gst_h264_parser_parse_nal (np, &g_array_index (config->sps,
            GstH264NalUnit, i));
  for (i = 0; i < config->pps->len; i++)
    gst_h264_parser_parse_nal (np, &g_array_index (config->pps,
            GstH264NalUnit, i));
  nal_length_size = config->length_size_minus_one + 1;
  gst_h264_decoder_config_record_free (config);
  return nal_length_size;
}

struct _GstAvhwDecH264Fields
{
  GstH264NalParser *np;
  guint nal_length_size;        /* 0: byte-stream */
};

GstAvhwDecH264Fields *
gst_avhw_dec_h264_fields_new (const guint8 * codec_data, gsize size)
{
  GstAvhwDecH264Fields *w = g_new0 (GstAvhwDecH264Fields, 1);

  w->np = gst_h264_nal_parser_new ();
  w->nal_length_size = gst_avhw_dec_h264_read_config (w->np, codec_data, size);
  return w;
}

gboolean
gst_avhw_dec_h264_fields_in (GstAvhwDecH264Fields * w, const guint8 * data,
    gsize size)
{
  GstH264NalUnit nalu;
  GstH264SliceHdr slice;
  GstH264ParserResult r;
  guint offset = 0;

  while (offset < size) {
    r = w->nal_length_size ?
        gst_h264_parser_identify_nalu_avc (w->np, data, offset, size,
        w->nal_length_size, &nalu) :
        gst_h264_parser_identify_nalu (w->np, data, offset, size, &nalu);
    if (r != GST_H264_PARSER_OK && r != GST_H264_PARSER_NO_NAL_END)
      return FALSE;
    if (nalu.type == GST_H264_NAL_SLICE || nalu.type == GST_H264_NAL_SLICE_IDR)
      /* the first slice says for the picture */
      return gst_h264_parser_parse_slice_hdr (w->np, &nalu, &slice, FALSE,
          FALSE) == GST_H264_PARSER_OK && slice.field_pic_flag;
    gst_h264_parser_parse_nal (w->np, &nalu);
    offset = nalu.offset + nalu.size;
  }
  return FALSE;
}

void
gst_avhw_dec_h264_fields_free (GstAvhwDecH264Fields * w)
{
  if (!w)
    return;
  gst_h264_nal_parser_free (w->np);
  g_free (w);
}
