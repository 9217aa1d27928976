/* gst-avhw: H.264/H.265/AV1 bitstream helpers for avhwenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FFmpeg's encoders write Annex B (start codes) both in their packets and,
 * with AV_CODEC_FLAG_GLOBAL_HEADER, in their extradata. GStreamer's avc and
 * hvc1/hev1 stream formats want NAL units prefixed with their length and
 * the parameter sets in an AVCDecoderConfigurationRecord /
 * HEVCDecoderConfigurationRecord (ISO/IEC 14496-15) as codec_data. AV1 in
 * MP4 and Matroska wants an AV1CodecConfigurationRecord (av1C) holding the
 * sequence header OBU. libavcodec keeps its own writers of those records
 * private, hence these few.
 *
 * Reading is GStreamer's: NAL units, parameter sets and AV1 OBUs through
 * codecparsers (GstH264NalParser, GstH265Parser, GstAV1Parser), profile,
 * level and tier names through pbutils' codec utils. What is written here
 * is the records, field by field from the parsers' structures.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/base/gstbytereader.h>
#include <gst/base/gstbytewriter.h>
#include <gst/codecparsers/gsth264parser.h>
#include <gst/codecparsers/gsth265parser.h>
#include <gst/codecparsers/gstav1parser.h>
#include <gst/pbutils/codec-utils.h>
#include "gstavhwencbitstream.h"

/* ---------------------------------------------------------------- NALs */

gboolean
gst_avhw_enc_is_annexb (const guint8 * data, gsize size)
{
  return (size >= 3 && data[0] == 0 && data[1] == 0 && data[2] == 1)
      || (size >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0
      && data[3] == 1);
}

typedef struct
{
  guint sc;                     /* where its 00 00 01 is */
  guint offset;                 /* its first byte */
  guint size;
} Span;

/* The NAL units of Annex B @data: between start codes, without the zero
 * bytes before the next one. Only the framing, which is the same for
 * H.264 and H.265: GstByteReader finds the start codes, as the
 * codecparsers' own identify functions do; those need a parser (240 kB for
 * H.264, 545 kB for H.265), too much to allocate for every packet that
 * gst_avhw_enc_annexb_to_length_prefixed() sees. */
static GArray *
split_annexb (const guint8 * data, gsize size)
{
  GArray *spans = g_array_new (FALSE, FALSE, sizeof (Span));
  GstByteReader br;
  gint pos;

  size = MIN (size, G_MAXUINT);
  gst_byte_reader_init (&br, data, size);
  pos = gst_byte_reader_masked_scan_uint32 (&br, 0xffffff00, 0x00000100, 0,
      size);
  while (pos >= 0) {
    guint start = pos + 3, end;
    gint next = -1;
    Span span;

    if (start < size)
      next = gst_byte_reader_masked_scan_uint32 (&br, 0xffffff00, 0x00000100,
          start, size - start);
    end = next >= 0 ? (guint) next : size;
    while (end > start && data[end - 1] == 0)
      end--;
    if (end > start) {
      span.sc = pos;
      span.offset = start;
      span.size = end - start;
      g_array_append_val (spans, span);
    }
    pos = next;
  }
  return spans;
}

/* The H.264 NAL units of Annex B @data, identified by @np. */
static GArray *
h264_nals (GstH264NalParser * np, const guint8 * data, gsize size)
{
  GArray *spans = split_annexb (data, size);
  GArray *nals = g_array_new (FALSE, FALSE, sizeof (GstH264NalUnit));
  guint i;

  for (i = 0; i < spans->len; i++) {
    Span *s = &g_array_index (spans, Span, i);
    GstH264NalUnit nalu;

    if (gst_h264_parser_identify_nalu_unchecked (np, data, s->sc,
            s->offset + s->size, &nalu) == GST_H264_PARSER_OK)
      g_array_append_val (nals, nalu);
  }
  g_array_unref (spans);
  return nals;
}

/* The H.265 NAL units of Annex B @data, identified by @parser. */
static GArray *
h265_nals (GstH265Parser * parser, const guint8 * data, gsize size)
{
  GArray *spans = split_annexb (data, size);
  GArray *nals = g_array_new (FALSE, FALSE, sizeof (GstH265NalUnit));
  guint i;

  for (i = 0; i < spans->len; i++) {
    Span *s = &g_array_index (spans, Span, i);
    GstH265NalUnit nalu;

    if (gst_h265_parser_identify_nalu_unchecked (parser, data, s->sc,
            s->offset + s->size, &nalu) == GST_H265_PARSER_OK)
      g_array_append_val (nals, nalu);
  }
  g_array_unref (spans);
  return nals;
}

/* ---------------------------------------------------------------- H.264 */

/* The first SPS of @nals parsed into @sps. */
static gboolean
h264_parse_first_sps (GstH264NalParser * np, GArray * nals, GstH264SPS * sps)
{
  guint i;

  for (i = 0; i < nals->len; i++) {
    GstH264NalUnit *nalu = &g_array_index (nals, GstH264NalUnit, i);

    if (nalu->type == GST_H264_NAL_SPS)
      return gst_h264_parser_parse_sps (np, nalu, sps) == GST_H264_PARSER_OK;
  }
  return FALSE;
}

/* profile_idc, the constraint_set flags' byte and level_idc, as an SPS
 * starts (and as avcC repeats them). */
static void
h264_sps_head (const GstH264SPS * sps, guint8 out[3])
{
  out[0] = sps->profile_idc;
  out[1] = (sps->constraint_set0_flag << 7) | (sps->constraint_set1_flag << 6)
      | (sps->constraint_set2_flag << 5) | (sps->constraint_set3_flag << 4)
      | (sps->constraint_set4_flag << 3) | (sps->constraint_set5_flag << 2);
  out[2] = sps->level_idc;
}

static guint
h264_count (GArray * nals, GstH264NalUnitType type)
{
  guint i, n = 0;

  for (i = 0; i < nals->len; i++)
    n += g_array_index (nals, GstH264NalUnit, i).type == type;
  return n;
}

static void
h264_put (GstByteWriter * bw, GArray * nals, GstH264NalUnitType type)
{
  guint i;

  for (i = 0; i < nals->len; i++) {
    GstH264NalUnit *nalu = &g_array_index (nals, GstH264NalUnit, i);

    if (nalu->type != type)
      continue;
    gst_byte_writer_put_uint16_be (bw, nalu->size);
    gst_byte_writer_put_data (bw, nalu->data + nalu->offset, nalu->size);
  }
}

/* avcC (ISO/IEC 14496-15 5.3.3.1) with the SPSs, PPSs and SPS extensions
 * of Annex B @data; the profile and the fields after the PPSs from its
 * first SPS. */
static GstBuffer *
make_avcc (const guint8 * data, gsize size)
{
  GstH264NalParser *np = gst_h264_nal_parser_new ();
  GArray *nals = h264_nals (np, data, size);
  GstBuffer *out = NULL;
  GstByteWriter bw;
  GstH264SPS sps = { 0, };
  guint8 head[3];

  if (!h264_parse_first_sps (np, nals, &sps)
      || h264_count (nals, GST_H264_NAL_PPS) == 0)
    goto done;
  h264_sps_head (&sps, head);
  gst_byte_writer_init (&bw);
  gst_byte_writer_put_uint8 (&bw, 1);
  gst_byte_writer_put_data (&bw, head, 3);
  gst_byte_writer_put_uint8 (&bw, 0xfc | 3);    /* 4-byte lengths */
  gst_byte_writer_put_uint8 (&bw, 0xe0 | h264_count (nals, GST_H264_NAL_SPS));
  h264_put (&bw, nals, GST_H264_NAL_SPS);
  gst_byte_writer_put_uint8 (&bw, h264_count (nals, GST_H264_NAL_PPS));
  h264_put (&bw, nals, GST_H264_NAL_PPS);
  /* ISO/IEC 14496-15 from its 6th edition, FFmpeg's ff_isom_write_avcc
   * and h264parse: every profile but Baseline, Main and Extended. (The 5th
   * edition's list, 100, 110, 122 and 144, left out High 4:4:4 Predictive,
   * 244: 144 is the High 4:4:4 profile withdrawn from H.264.) */
  if (sps.profile_idc != 66 && sps.profile_idc != 77 && sps.profile_idc != 88) {
    gst_byte_writer_put_uint8 (&bw, 0xfc | sps.chroma_format_idc);
    gst_byte_writer_put_uint8 (&bw, 0xf8 | sps.bit_depth_luma_minus8);
    gst_byte_writer_put_uint8 (&bw, 0xf8 | sps.bit_depth_chroma_minus8);
    gst_byte_writer_put_uint8 (&bw, h264_count (nals, GST_H264_NAL_SPS_EXT));
    h264_put (&bw, nals, GST_H264_NAL_SPS_EXT);
  }
  out = gst_byte_writer_reset_and_get_buffer (&bw);
done:
  gst_h264_sps_clear (&sps);
  g_array_unref (nals);
  gst_h264_nal_parser_free (np);
  return out;
}

/* profile and level from the first SPS of Annex B @data or of the avcC
 * record @data, named by pbutils (as h264parse names them). */
static gboolean
h264_caps (GstCaps * caps, const guint8 * data, gsize size)
{
  GstH264NalParser *np = gst_h264_nal_parser_new ();
  GstH264DecoderConfigRecord *config = NULL;
  GArray *nals = NULL;
  GstH264SPS sps = { 0, };
  gboolean found = FALSE;
  guint8 head[3];

  if (gst_avhw_enc_is_annexb (data, size))
    nals = h264_nals (np, data, size);
  else if (gst_h264_parser_parse_decoder_config_record (np, data, size,
          &config) == GST_H264_PARSER_OK)
    nals = g_array_ref (config->sps);
  if (nals && h264_parse_first_sps (np, nals, &sps)) {
    h264_sps_head (&sps, head);
    gst_codec_utils_h264_caps_set_level_and_profile (caps, head, 3);
    found = TRUE;
  }
  gst_h264_sps_clear (&sps);
  if (nals)
    g_array_unref (nals);
  if (config)
    gst_h264_decoder_config_record_free (config);
  gst_h264_nal_parser_free (np);
  return found;
}

/* ---------------------------------------------------------------- H.265 */

/* The first SPS of @nals parsed into @sps (with its VUI). */
static gboolean
h265_parse_first_sps (GstH265Parser * parser, GArray * nals, GstH265SPS * sps)
{
  guint i;

  for (i = 0; i < nals->len; i++) {
    GstH265NalUnit *nalu = &g_array_index (nals, GstH265NalUnit, i);

    if (nalu->type == GST_H265_NAL_SPS)
      return gst_h265_parser_parse_sps (parser, nalu, sps, TRUE) ==
          GST_H265_PARSER_OK;
  }
  return FALSE;
}

/* general_profile_tier_level() as H.265 7.3.3 writes it: 12 bytes, which
 * hvcC repeats and pbutils reads. GstH265Parser reads the 43 bits after
 * the 4 source flags as the RExt constraint flags and then skips the
 * rest: those are reserved bits, or a flag written only in place of one
 * (one_picture_only for Main 10), so this gives them back but for
 * general_inbld_flag, which it drops (0: no independent non-base layer). */
static void
h265_ptl_bytes (const GstH265ProfileTierLevel * ptl, guint8 out[12])
{
  const guint8 flags[] = {
    ptl->progressive_source_flag, ptl->interlaced_source_flag,
    ptl->non_packed_constraint_flag, ptl->frame_only_constraint_flag,
    ptl->max_12bit_constraint_flag, ptl->max_10bit_constraint_flag,
    ptl->max_8bit_constraint_flag, ptl->max_422chroma_constraint_flag,
    ptl->max_420chroma_constraint_flag, ptl->max_monochrome_constraint_flag,
    ptl->intra_constraint_flag, ptl->one_picture_only_constraint_flag,
    ptl->lower_bit_rate_constraint_flag, ptl->max_14bit_constraint_flag,
  };
  guint32 compat = 0;
  guint64 constraints = 0;
  guint i;

  for (i = 0; i < 32; i++)
    compat |= (guint32) (ptl->profile_compatibility_flag[i] & 1) << (31 - i);
  for (i = 0; i < G_N_ELEMENTS (flags); i++)
    constraints |= (guint64) (flags[i] & 1) << (47 - i);
  out[0] = (ptl->profile_space << 6) | (ptl->tier_flag << 5) | ptl->profile_idc;
  GST_WRITE_UINT32_BE (out + 1, compat);
  GST_WRITE_UINT16_BE (out + 5, constraints >> 32);
  GST_WRITE_UINT32_BE (out + 7, constraints & 0xffffffff);
  out[11] = ptl->level_idc;
}

static guint
h265_count (GArray * nals, GstH265NalUnitType type)
{
  guint i, n = 0;

  for (i = 0; i < nals->len; i++)
    n += g_array_index (nals, GstH265NalUnit, i).type == type;
  return n;
}

/* hvcC (ISO/IEC 14496-15 8.3.3.1) with the VPSs, SPSs and PPSs of Annex B
 * @data, as complete arrays; the rest from its first SPS. */
static GstBuffer *
make_hvcc (const guint8 * data, gsize size)
{
  static const GstH265NalUnitType types[] = {
    GST_H265_NAL_VPS, GST_H265_NAL_SPS, GST_H265_NAL_PPS
  };
  GstH265Parser *parser = gst_h265_parser_new ();
  GArray *nals = h265_nals (parser, data, size);
  GstBuffer *out = NULL;
  GstByteWriter bw;
  GstH265SPS sps;
  guint8 ptl[12];
  guint i, j, n_arrays = 0;

  if (!h265_parse_first_sps (parser, nals, &sps)
      || h265_count (nals, GST_H265_NAL_PPS) == 0)
    goto done;
  h265_ptl_bytes (&sps.profile_tier_level, ptl);
  gst_byte_writer_init (&bw);
  gst_byte_writer_put_uint8 (&bw, 1);
  gst_byte_writer_put_data (&bw, ptl, 12);
  gst_byte_writer_put_uint16_be (&bw, 0xf000 |
      (sps.vui_parameters_present_flag ?
          sps.vui_params.min_spatial_segmentation_idc : 0));
  gst_byte_writer_put_uint8 (&bw, 0xfc);        /* parallelismType unknown */
  gst_byte_writer_put_uint8 (&bw, 0xfc | sps.chroma_format_idc);
  gst_byte_writer_put_uint8 (&bw, 0xf8 | sps.bit_depth_luma_minus8);
  gst_byte_writer_put_uint8 (&bw, 0xf8 | sps.bit_depth_chroma_minus8);
  gst_byte_writer_put_uint16_be (&bw, 0);       /* avgFrameRate */
  /* constantFrameRate 0, numTemporalLayers, temporalIdNested, 4-byte
   * lengths */
  gst_byte_writer_put_uint8 (&bw, ((sps.max_sub_layers_minus1 + 1) << 3) |
      (sps.temporal_id_nesting_flag << 2) | 3);
  for (i = 0; i < G_N_ELEMENTS (types); i++)
    n_arrays += h265_count (nals, types[i]) > 0;
  gst_byte_writer_put_uint8 (&bw, n_arrays);
  for (i = 0; i < G_N_ELEMENTS (types); i++) {
    guint n = h265_count (nals, types[i]);

    if (n == 0)
      continue;
    gst_byte_writer_put_uint8 (&bw, 0x80 | types[i]);   /* complete array */
    gst_byte_writer_put_uint16_be (&bw, n);
    for (j = 0; j < nals->len; j++) {
      GstH265NalUnit *nalu = &g_array_index (nals, GstH265NalUnit, j);

      if (nalu->type != types[i])
        continue;
      gst_byte_writer_put_uint16_be (&bw, nalu->size);
      gst_byte_writer_put_data (&bw, nalu->data + nalu->offset, nalu->size);
    }
  }
  out = gst_byte_writer_reset_and_get_buffer (&bw);
done:
  g_array_unref (nals);
  gst_h265_parser_free (parser);
  return out;
}

/* profile, tier and level from the first SPS of Annex B @data, or from
 * the hvcC record @data (its bytes 1 to 12 are the profile_tier_level),
 * named by pbutils. */
static gboolean
h265_caps (GstCaps * caps, const guint8 * data, gsize size)
{
  GstH265Parser *parser;
  GArray *nals;
  GstH265SPS sps;
  gboolean found;
  guint8 ptl[12];

  if (!gst_avhw_enc_is_annexb (data, size)) {
    if (size < 23 || data[0] != 1)
      return FALSE;
    gst_codec_utils_h265_caps_set_level_tier_and_profile (caps, data + 1, 12);
    return TRUE;
  }
  parser = gst_h265_parser_new ();
  nals = h265_nals (parser, data, size);
  found = h265_parse_first_sps (parser, nals, &sps);
  if (found) {
    h265_ptl_bytes (&sps.profile_tier_level, ptl);
    gst_codec_utils_h265_caps_set_level_tier_and_profile (caps, ptl, 12);
  }
  g_array_unref (nals);
  gst_h265_parser_free (parser);
  return found;
}

/* ---------------------------------------------------------------- AV1 */

/* The first sequence header OBU of the OBUs at @data, identified and
 * parsed by @parser. */
static gboolean
av1_sequence_header (GstAV1Parser * parser, const guint8 * data, gsize size,
    GstAV1OBU * obu, GstAV1SequenceHeaderOBU * seq)
{
  while (size > 0) {
    guint32 consumed = 0;
    GstAV1ParserResult res = gst_av1_parser_identify_one_obu (parser, data,
        MIN (size, G_MAXUINT32), obu, &consumed);

    if (res != GST_AV1_PARSER_OK && res != GST_AV1_PARSER_DROP)
      return FALSE;
    if (res == GST_AV1_PARSER_OK
        && obu->obu_type == GST_AV1_OBU_SEQUENCE_HEADER)
      return gst_av1_parser_parse_sequence_header_obu (parser, obu, seq) ==
          GST_AV1_PARSER_OK;
    if (consumed == 0 || consumed > size)
      return FALSE;
    data += consumed;
    size -= consumed;
  }
  return FALSE;
}

/* av1C (AV1 Codec ISO Media File Format Binding 2.3) with the sequence
 * header OBU of the OBUs at @data (a temporal unit, or an encoder's
 * extradata), or @data as it is when it is an av1C already. */
static GstBuffer *
make_av1c (const guint8 * data, gsize size)
{
  GstAV1Parser *parser;
  GstAV1SequenceHeaderOBU seq;
  GstAV1OBU obu;
  GstByteWriter bw;
  GstBuffer *out = NULL;
  const GstAV1ColorConfig *cc = &seq.color_config;
  guint64 v;

  if (size >= 4 && data[0] == 0x81)
    return gst_buffer_new_memdup (data, size);
  parser = gst_av1_parser_new ();
  if (!av1_sequence_header (parser, data, size, &obu, &seq))
    goto done;
  gst_byte_writer_init (&bw);
  gst_byte_writer_put_uint8 (&bw, 0x81);        /* marker, version 1 */
  gst_byte_writer_put_uint8 (&bw, (seq.seq_profile << 5) |
      seq.operating_points[0].seq_level_idx);
  gst_byte_writer_put_uint8 (&bw, (seq.operating_points[0].seq_tier << 7) |
      (cc->high_bitdepth << 6) | (cc->twelve_bit << 5) |
      (cc->mono_chrome << 4) | (cc->subsampling_x << 3) |
      (cc->subsampling_y << 2) | cc->chroma_sample_position);
  gst_byte_writer_put_uint8 (&bw, 0);   /* no initial_presentation_delay */
  /* configOBUs: the OBU again, with its size field */
  gst_byte_writer_put_uint8 (&bw, (obu.header.obu_type << 3) |
      (obu.header.obu_extention_flag << 2) | 0x02);
  if (obu.header.obu_extention_flag)
    gst_byte_writer_put_uint8 (&bw, (obu.header.obu_temporal_id << 5) |
        (obu.header.obu_spatial_id << 3));
  v = obu.obu_size;
  do {                          /* leb128 */
    gst_byte_writer_put_uint8 (&bw, (v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  gst_byte_writer_put_data (&bw, obu.data, obu.obu_size);
  out = gst_byte_writer_reset_and_get_buffer (&bw);
done:
  gst_av1_parser_free (parser);
  return out;
}

/* profile from the first sequence header of the OBUs at @data or in the
 * configOBUs of the av1C @data, named as av1parse names it (no level:
 * av1parse sets none). */
static gboolean
av1_caps (GstCaps * caps, const guint8 * data, gsize size)
{
  GstAV1Parser *parser = gst_av1_parser_new ();
  GstAV1SequenceHeaderOBU seq;
  GstAV1OBU obu;
  gboolean found;

  if (size >= 4 && data[0] == 0x81) {
    data += 4;
    size -= 4;
  }
  found = av1_sequence_header (parser, data, size, &obu, &seq);
  if (found && seq.seq_profile <= GST_AV1_PROFILE_2) {
    static const gchar *names[] = { "main", "high", "professional" };

    gst_caps_set_simple (caps, "profile", G_TYPE_STRING,
        names[seq.seq_profile], NULL);
  }
  gst_av1_parser_free (parser);
  return found;
}

/**
 * gst_avhw_enc_make_codec_data:
 * @codec_id: AV_CODEC_ID_H264, AV_CODEC_ID_HEVC or AV_CODEC_ID_AV1
 * @data: Annex B parameter sets (an encoder's extradata, or a keyframe),
 *   AV1 OBUs (extradata, or a key temporal unit), or a configuration record
 *   already
 *
 * Returns: (transfer full) (nullable): avcC / hvcC / av1C for @data, %NULL
 *   when @data holds no SPS (or no PPS; for AV1 no sequence header)
 */
GstBuffer *
gst_avhw_enc_make_codec_data (enum AVCodecID codec_id, const guint8 * data,
    gsize size)
{
  if (!data || size == 0)
    return NULL;
  if (codec_id == AV_CODEC_ID_AV1)
    return make_av1c (data, size);
  if (!gst_avhw_enc_is_annexb (data, size))
    return data[0] == 1 ? gst_buffer_new_memdup (data, size) : NULL;
  if (codec_id == AV_CODEC_ID_H264)
    return make_avcc (data, size);
  if (codec_id == AV_CODEC_ID_HEVC)
    return make_hvcc (data, size);
  return NULL;
}

/**
 * gst_avhw_enc_annexb_to_length_prefixed:
 * @data: an Annex B access unit
 *
 * Returns: (transfer full): the same NAL units, each preceded by its size
 *   as 4 bytes big endian
 */
GstBuffer *
gst_avhw_enc_annexb_to_length_prefixed (const guint8 * data, gsize size)
{
  GArray *spans = split_annexb (data, size);
  GstByteWriter bw;
  guint i;

  gst_byte_writer_init_with_size (&bw, size + 4 * spans->len, FALSE);
  for (i = 0; i < spans->len; i++) {
    Span *s = &g_array_index (spans, Span, i);

    gst_byte_writer_put_uint32_be (&bw, s->size);
    gst_byte_writer_put_data (&bw, data + s->offset, s->size);
  }
  g_array_unref (spans);
  return gst_byte_writer_reset_and_get_buffer (&bw);
}

/* ---------------------------------------------------------------- caps */

/**
 * gst_avhw_enc_caps_set_profile_level:
 * @caps: H.264, H.265 or AV1 caps to complete
 * @data: Annex B data holding an SPS, AV1 OBUs holding a sequence header,
 *   or a configuration record
 *
 * Sets `profile`, `level` (and `tier` for H.265) from the first SPS in @data,
 * as h264parse and h265parse do; for AV1 `profile` from the sequence header,
 * as av1parse does.
 *
 * Returns: whether an SPS (a sequence header) was found
 */
gboolean
gst_avhw_enc_caps_set_profile_level (GstCaps * caps, enum AVCodecID codec_id,
    const guint8 * data, gsize size)
{
  if (!data || size == 0)
    return FALSE;
  if (codec_id == AV_CODEC_ID_H264)
    return h264_caps (caps, data, size);
  if (codec_id == AV_CODEC_ID_HEVC)
    return h265_caps (caps, data, size);
  if (codec_id == AV_CODEC_ID_AV1)
    return av1_caps (caps, data, size);
  return FALSE;
}
