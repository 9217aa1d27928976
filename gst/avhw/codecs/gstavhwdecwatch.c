/* gst-avhw: avhwdec, one watcher of the input stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One per stream, made with its caps: it holds the one codecparsers parser
 * of the stream's codec and reads each packet once, for whoever asks:
 *
 * - cut points, where decoding can start without anything before it but
 *   the parameter sets (GOP-parallel decoding, gstavhwdecsched.c; the
 *   join at the end of a stream, gstavhwdecjoin.c): H.264 IDR; H.265 IDR
 *   and BLA, not CRA, whose RASL pictures need what came before; VP9 and
 *   AV1 a shown key frame (the first frame of the packet or temporal unit
 *   decides: it refreshes every reference slot);
 * - the kind of that random access point, and for H.264 whether the IDR
 *   is a frame or a field (a join needs a frame);
 * - whether a H.264 packet's first slice is a field picture (devices that
 *   decode them wrongly hand the stream to software, gstavhwdec.c);
 * - the parameter sets so far (H.264 SPS, PPS, SPS extension, subset SPS;
 *   H.265 VPS, SPS, PPS; AV1 sequence headers), so that a decoder that
 *   starts at a cut knows what one that saw everything before it knows;
 * - the first H.264 SPS, for the reorder depth and DPB choices
 *   (gstavhwdech264.c).
 *
 * H.264 avc/avc3 or byte-stream, H.265 hvc1/hev1 or byte-stream (cut
 * points need alignment=au), VP9, AV1 obu-stream (cut points need
 * alignment=tu).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/codecparsers/gsth264parser.h>
#include <gst/codecparsers/gsth265parser.h>
#include <gst/codecparsers/gstvp9parser.h>
#include <gst/codecparsers/gstav1parser.h>
#include "gstavhwdecwatch.h"
#include "gstavhwdecparamsets.h"

/* Parameter sets kept (distinct units, the oldest dropped first). */
#define MAX_PARAM_SETS 64

struct _GstAvhwDecWatch
{
  enum AVCodecID codec;
  gchar *no_cuts;               /* why cut points are not used; NULL: they are */
  guint nal_length_size;        /* H.264, H.265: 0 for byte-stream */
  GstH264NalParser *h264;
  GstH265Parser *h265;
  GstVp9Parser *vp9;
  GstAV1Parser *av1;
  gboolean have_seq;
  GstAvhwDecH264Seq seq;        /* H.264: the first SPS */
  GPtrArray *param_sets;        /* GBytes, units as in the stream, oldest first */
  GBytes *joined;               /* param_sets in one, made on demand */
  gsize insert_at;              /* AV1: after the temporal delimiter of the
                                 * packet scanned last */
};

static const guint8 start_code[4] = { 0, 0, 0, 1 };

/* H.264: an SPS into the parser; the first one is the stream's. */
static void
h264_sps (GstAvhwDecWatch * w, GstH264NalUnit * nalu)
{
  GstH264SPS sps;

  if (gst_h264_parser_parse_sps (w->h264, nalu, &sps) != GST_H264_PARSER_OK)
    return;
  if (!w->have_seq)
    gst_avhw_dec_h264_seq_from_sps (&sps, &w->seq);
  w->have_seq = TRUE;
  gst_h264_sps_clear (&sps);
}

/* H.264: the SPS and PPS of an avcC record; its NAL length size, 0 when
 * @data is not one. */
static guint
h264_read_config (GstAvhwDecWatch * w, const guint8 * data, gsize size)
{
  GstH264DecoderConfigRecord *config = NULL;
  guint i, nal_length_size;

  if (gst_h264_parser_parse_decoder_config_record (w->h264, data, size,
          &config) != GST_H264_PARSER_OK)
    return 0;
  for (i = 0; i < config->sps->len; i++)
    h264_sps (w, &g_array_index (config->sps, GstH264NalUnit, i));
  for (i = 0; i < config->pps->len; i++)
    gst_h264_parser_parse_nal (w->h264, &g_array_index (config->pps,
            GstH264NalUnit, i));
  nal_length_size = config->length_size_minus_one + 1;
  gst_h264_decoder_config_record_free (config);
  return nal_length_size;
}

/* H.265: the NAL length size of an hvcC record (ISO/IEC 14496-15 8.3.3.1:
 * lengthSizeMinusOne ends its 22nd byte); GStreamer 1.22 has no hvcC
 * parser. 0 when @data is not one. */
static guint
h265_config_nal_length_size (const guint8 * data, gsize size)
{
  if (size < 23 || data[0] != 1)
    return 0;
  return (data[21] & 3) + 1;
}

static void
init_nal (GstAvhwDecWatch * w, const gchar * format, const gchar * align,
    GstBuffer * codec_data)
{
  gboolean framed = format && g_strcmp0 (format, "byte-stream") != 0;
  GstMapInfo map;

  if (codec_data && gst_buffer_map (codec_data, &map, GST_MAP_READ)) {
    guint n = w->codec == AV_CODEC_ID_H264 ?
        h264_read_config (w, map.data, map.size) :
        h265_config_nal_length_size (map.data, map.size);

    if (framed)
      w->nal_length_size = n;
    gst_buffer_unmap (codec_data, &map);
  }
  if (g_strcmp0 (align, "au") != 0)
    w->no_cuts = g_strdup_printf ("input is not alignment=au (%s)",
        align ? align : "none given");
  else if (framed && !codec_data)
    w->no_cuts = g_strdup_printf ("stream-format=%s without codec_data",
        format);
  else if (framed && (w->nal_length_size == 0 || w->nal_length_size == 3))
    w->no_cuts = g_strdup ("codec_data gives no usable NAL length size");
}

GstAvhwDecWatch *
gst_avhw_dec_watch_new (enum AVCodecID codec, const GstCaps * caps,
    GstBuffer * codec_data)
{
  GstAvhwDecWatch *w = g_new0 (GstAvhwDecWatch, 1);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *format = gst_structure_get_string (s, "stream-format");
  const gchar *align = gst_structure_get_string (s, "alignment");

  w->codec = codec;
  w->param_sets = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  switch (codec) {
    case AV_CODEC_ID_H264:
      w->h264 = gst_h264_nal_parser_new ();
      init_nal (w, format, align, codec_data);
      break;
    case AV_CODEC_ID_HEVC:
      w->h265 = gst_h265_parser_new ();
      init_nal (w, format, align, codec_data);
      break;
    case AV_CODEC_ID_VP9:
      w->vp9 = gst_vp9_parser_new ();
      break;
    case AV_CODEC_ID_AV1:
      w->av1 = gst_av1_parser_new ();
      if (g_strcmp0 (format, "obu-stream") != 0 || g_strcmp0 (align, "tu") != 0)
        w->no_cuts = g_strdup_printf ("AV1 input is not "
            "stream-format=obu-stream, alignment=tu (%s, %s)",
            format ? format : "none given", align ? align : "none given");
      break;
    default:
      w->no_cuts = g_strdup_printf ("no cut-point parser for %s (H.264, "
          "H.265, VP9 and AV1 only)", avcodec_get_name (codec));
      break;
  }
  return w;
}

void
gst_avhw_dec_watch_free (GstAvhwDecWatch * w)
{
  if (!w)
    return;
  g_clear_pointer (&w->h264, gst_h264_nal_parser_free);
  g_clear_pointer (&w->h265, gst_h265_parser_free);
  g_clear_pointer (&w->vp9, gst_vp9_parser_free);
  g_clear_pointer (&w->av1, gst_av1_parser_free);
  g_ptr_array_unref (w->param_sets);
  g_clear_pointer (&w->joined, g_bytes_unref);
  g_free (w->no_cuts);
  g_free (w);
}

gboolean
gst_avhw_dec_watch_cuts (GstAvhwDecWatch * w, gchar ** why)
{
  if (w->no_cuts && why)
    *why = g_strdup (w->no_cuts);
  return w->no_cuts == NULL;
}

const GstAvhwDecH264Seq *
gst_avhw_dec_watch_h264_seq (GstAvhwDecWatch * w)
{
  return w->have_seq ? &w->seq : NULL;
}

guint
gst_avhw_dec_watch_n_param_sets (GstAvhwDecWatch * w)
{
  return w->param_sets->len;
}

/* Keeps @b (taken): last in the list, once. */
static void
keep_unit (GstAvhwDecWatch * w, GBytes * b)
{
  guint i;

  for (i = 0; i < w->param_sets->len; i++) {
    if (g_bytes_equal (g_ptr_array_index (w->param_sets, i), b)) {
      if (i + 1 == w->param_sets->len) {
        g_bytes_unref (b);
        return;
      }
      g_ptr_array_remove_index (w->param_sets, i);
      break;
    }
  }
  g_ptr_array_add (w->param_sets, b);
  if (w->param_sets->len > MAX_PARAM_SETS)
    g_ptr_array_remove_index (w->param_sets, 0);
  g_clear_pointer (&w->joined, g_bytes_unref);
}

/* A NAL unit (header and payload) with the stream's framing in front. */
static void
keep_nal (GstAvhwDecWatch * w, const guint8 * nal, gsize len)
{
  gsize prefix = w->nal_length_size ? w->nal_length_size : 4;
  guint8 *unit = g_malloc (prefix + len);

  if (w->nal_length_size) {
    gst_avhw_dec_put_nal_length (unit, len, prefix);
  } else {
    memcpy (unit, start_code, 4);
  }
  memcpy (unit + prefix, nal, len);
  keep_unit (w, g_bytes_new_take (unit, prefix + len));
}

/* Byte-stream: the last unit of a packet ends where the data does, less
 * the zero bytes after it. */
static guint
trim_zeros (const guint8 * d, guint offset, guint size)
{
  while (size > 0 && d[offset + size - 1] == 0)
    size--;
  return size;
}

/* H.264: the next NAL unit at or after *offset; broken units in a byte
 * stream are stepped over. */
static gboolean
h264_next (GstAvhwDecWatch * w, const guint8 * d, gsize size, guint * offset,
    GstH264NalUnit * nalu)
{
  GstH264ParserResult r;

  while (*offset < size) {
    if (w->nal_length_size) {
      r = gst_h264_parser_identify_nalu_avc (w->h264, d, *offset, size,
          w->nal_length_size, nalu);
      if (r != GST_H264_PARSER_OK)
        return FALSE;
      *offset = nalu->offset + nalu->size;
      return TRUE;
    }
    r = gst_h264_parser_identify_nalu (w->h264, d, *offset, size, nalu);
    if (r == GST_H264_PARSER_NO_NAL_END) {
      nalu->size = trim_zeros (d, nalu->offset, nalu->size);
      *offset = size;
      return nalu->size > 0;
    }
    if (r == GST_H264_PARSER_OK) {
      *offset = nalu->offset + nalu->size;
      return TRUE;
    }
    if (r != GST_H264_PARSER_BROKEN_DATA)
      return FALSE;
    *offset = nalu->offset;
  }
  return FALSE;
}

/* H.264: a slice's field_pic_flag; FALSE when its header does not parse
 * (*ok FALSE). */
static gboolean
h264_slice_is_field (GstAvhwDecWatch * w, GstH264NalUnit * nalu, gboolean * ok)
{
  GstH264SliceHdr slice;

  *ok = gst_h264_parser_parse_slice_hdr (w->h264, nalu, &slice, FALSE,
      FALSE) == GST_H264_PARSER_OK;
  return *ok && slice.field_pic_flag;
}

static void
h264_scan (GstAvhwDecWatch * w, const guint8 * d, gsize size,
    GstAvhwDecUnit * unit)
{
  GstH264NalUnit nalu;
  gboolean slice_seen = FALSE, ok, field;
  guint offset = 0;

  while (h264_next (w, d, size, &offset, &nalu)) {
    switch (nalu.type) {
      case GST_H264_NAL_SPS:
        h264_sps (w, &nalu);
        keep_nal (w, d + nalu.offset, nalu.size);
        break;
      case GST_H264_NAL_PPS:
        gst_h264_parser_parse_nal (w->h264, &nalu);
        keep_nal (w, d + nalu.offset, nalu.size);
        break;
      case GST_H264_NAL_SPS_EXT:
      case GST_H264_NAL_SUBSET_SPS:
        keep_nal (w, d + nalu.offset, nalu.size);
        break;
      case GST_H264_NAL_SLICE:
      case GST_H264_NAL_SLICE_IDR:
        /* the first slice says field or frame for the picture, the first
         * IDR slice for the IDR */
        if (slice_seen && (nalu.type != GST_H264_NAL_SLICE_IDR || unit->cut))
          break;
        field = h264_slice_is_field (w, &nalu, &ok);
        if (!slice_seen)
          unit->field = field;
        slice_seen = TRUE;
        if (nalu.type == GST_H264_NAL_SLICE_IDR) {
          unit->cut = TRUE;
          unit->key = !ok ? GST_AVHW_DEC_KEY_IDR : field ?
              GST_AVHW_DEC_KEY_IDR_FIELD : GST_AVHW_DEC_KEY_IDR_FRAME;
        }
        break;
      default:
        break;
    }
  }
}

/* H.265: as h264_next(). */
static gboolean
h265_next (GstAvhwDecWatch * w, const guint8 * d, gsize size, guint * offset,
    GstH265NalUnit * nalu)
{
  GstH265ParserResult r;

  while (*offset < size) {
    if (w->nal_length_size) {
      r = gst_h265_parser_identify_nalu_hevc (w->h265, d, *offset, size,
          w->nal_length_size, nalu);
      if (r != GST_H265_PARSER_OK)
        return FALSE;
      *offset = nalu->offset + nalu->size;
      return TRUE;
    }
    r = gst_h265_parser_identify_nalu (w->h265, d, *offset, size, nalu);
    if (r == GST_H265_PARSER_NO_NAL_END) {
      nalu->size = trim_zeros (d, nalu->offset, nalu->size);
      *offset = size;
      return nalu->size > 0;
    }
    if (r == GST_H265_PARSER_OK) {
      *offset = nalu->offset + nalu->size;
      return TRUE;
    }
    if (r != GST_H265_PARSER_BROKEN_DATA)
      return FALSE;
    *offset = nalu->offset;
  }
  return FALSE;
}

static void
h265_scan (GstAvhwDecWatch * w, const guint8 * d, gsize size,
    GstAvhwDecUnit * unit)
{
  GstH265NalUnit nalu;
  guint offset = 0;

  while (h265_next (w, d, size, &offset, &nalu)) {
    if (nalu.type >= GST_H265_NAL_SLICE_BLA_W_LP
        && nalu.type <= GST_H265_NAL_SLICE_CRA_NUT && !unit->key)
      unit->key = nalu.type <= GST_H265_NAL_SLICE_BLA_N_LP ?
          GST_AVHW_DEC_KEY_BLA : nalu.type <= GST_H265_NAL_SLICE_IDR_N_LP ?
          GST_AVHW_DEC_KEY_IDR : GST_AVHW_DEC_KEY_CRA;
    /* BLA_W_LP .. IDR_N_LP; not CRA */
    if (nalu.type >= GST_H265_NAL_SLICE_BLA_W_LP
        && nalu.type <= GST_H265_NAL_SLICE_IDR_N_LP)
      unit->cut = TRUE;
    if (nalu.type >= GST_H265_NAL_VPS && nalu.type <= GST_H265_NAL_PPS)
      keep_nal (w, d + nalu.offset, nalu.size);
  }
}

/* VP9: the packet's first frame (of a superframe) decides. */
static void
vp9_scan (GstAvhwDecWatch * w, const guint8 * d, gsize size,
    GstAvhwDecUnit * unit)
{
  GstVp9FrameHdr hdr;

  if (gst_vp9_parser_parse_frame_header (w->vp9, &hdr, d, size) ==
      GST_VP9_PARSER_OK && !hdr.show_existing_frame
      && hdr.frame_type == GST_VP9_KEY_FRAME && hdr.show_frame) {
    unit->key = GST_AVHW_DEC_KEY_SHOWN_KEY;
    unit->cut = TRUE;
  }
}

/* AV1: the first frame header of the temporal unit decides; sequence
 * headers are kept as they are, with their OBU header. */
static void
av1_scan (GstAvhwDecWatch * w, const guint8 * d, gsize size,
    GstAvhwDecUnit * unit)
{
  GstAV1OBU obu;
  GstAV1SequenceHeaderOBU seq;
  GstAV1FrameHeaderOBU fh;
  GstAV1FrameOBU frame;
  GstAV1ParserResult r;
  GstAV1FrameHeaderOBU *hdr = NULL;
  gsize pos = 0;
  guint32 consumed;

  w->insert_at = 0;
  while (pos < size && !hdr) {
    r = gst_av1_parser_identify_one_obu (w->av1, d + pos, size - pos, &obu,
        &consumed);
    if (r != GST_AV1_PARSER_OK && r != GST_AV1_PARSER_DROP)
      return;
    if (r == GST_AV1_PARSER_OK) {
      switch (obu.obu_type) {
        case GST_AV1_OBU_TEMPORAL_DELIMITER:
          gst_av1_parser_parse_temporal_delimiter_obu (w->av1, &obu);
          if (pos == 0)
            w->insert_at = consumed;
          break;
        case GST_AV1_OBU_SEQUENCE_HEADER:
          if (gst_av1_parser_parse_sequence_header_obu (w->av1, &obu,
                  &seq) == GST_AV1_PARSER_OK && obu.header.obu_has_size_field)
            keep_unit (w, g_bytes_new (d + pos, consumed));
          break;
        case GST_AV1_OBU_FRAME_HEADER:
          if (gst_av1_parser_parse_frame_header_obu (w->av1, &obu,
                  &fh) != GST_AV1_PARSER_OK)
            return;
          hdr = &fh;
          break;
        case GST_AV1_OBU_FRAME:
          if (gst_av1_parser_parse_frame_obu (w->av1, &obu,
                  &frame) != GST_AV1_PARSER_OK)
            return;
          hdr = &frame.frame_header;
          break;
        default:
          break;
      }
    }
    pos += consumed;
  }
  if (!hdr)
    return;
  if (!hdr->show_existing_frame || hdr->frame_type == GST_AV1_KEY_FRAME)
    gst_av1_parser_reference_frame_update (w->av1, hdr);
  if (!hdr->show_existing_frame && hdr->frame_type == GST_AV1_KEY_FRAME
      && hdr->show_frame) {
    unit->key = GST_AVHW_DEC_KEY_SHOWN_KEY;
    unit->cut = TRUE;
  }
}

void
gst_avhw_dec_watch_scan (GstAvhwDecWatch * w, const guint8 * data,
    gsize size, GstAvhwDecUnit * unit)
{
  memset (unit, 0, sizeof (*unit));
  if (!data || size == 0)
    return;
  if (w->h264)
    h264_scan (w, data, size, unit);
  else if (w->h265)
    h265_scan (w, data, size, unit);
  else if (w->vp9)
    vp9_scan (w, data, size, unit);
  else if (w->av1)
    av1_scan (w, data, size, unit);
}

/* Every parameter set kept, in order, as units of the stream's format
 * (owned by @w). */
static GBytes *
param_sets (GstAvhwDecWatch * w)
{
  GByteArray *a;
  guint i;

  if (!w->joined) {
    a = g_byte_array_new ();
    for (i = 0; i < w->param_sets->len; i++) {
      gsize n;
      const guint8 *d = g_bytes_get_data (g_ptr_array_index (w->param_sets,
              i), &n);

      g_byte_array_append (a, d, n);
    }
    w->joined = g_byte_array_free_to_bytes (a);
  }
  return w->joined;
}

AVPacket *
gst_avhw_dec_watch_packet (GstAvhwDecWatch * w, const guint8 * data,
    gsize size, gboolean with_param_sets)
{
  AVPacket *pkt = av_packet_alloc ();
  const guint8 *ps = NULL;
  gsize ps_size = 0, at;

  if (!pkt)
    return NULL;
  if (with_param_sets)
    ps = g_bytes_get_data (param_sets (w), &ps_size);
  at = ps_size && w->insert_at <= size ? w->insert_at : 0;
  if (av_new_packet (pkt, ps_size + size) < 0) {
    av_packet_free (&pkt);
    return NULL;
  }
  memcpy (pkt->data, data, at);
  if (ps_size)
    memcpy (pkt->data + at, ps, ps_size);
  memcpy (pkt->data + at + ps_size, data + at, size - at);
  return pkt;
}
