/* gst-avhw: avhwdec, where decoding can start without anything before it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reads the NAL unit types of each access unit (H.264 avc/avc3 or
 * byte-stream, H.265 hvc1/hev1 or byte-stream, alignment=au) and keeps
 * the parameter sets seen so far, so that a decoder that starts at a cut
 * knows what a decoder that saw everything before it knows. VP9: the
 * first frame header of each packet; it has no parameter sets. AV1
 * (obu-stream, alignment=tu): the first frame header of each temporal
 * unit; the sequence header is kept. H.264 IDRs are also told apart as
 * frames or fields (gstavhwdecjoin.c needs a frame), from the slice header
 * read with GStreamer's H.264 parser.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwdeccuts.h"
#include "gstavhwdech264.h"

/* Parameter sets kept (distinct NAL units, the oldest dropped first). */
#define MAX_PARAM_SETS 64

static const guint8 start_code[4] = { 0, 0, 0, 1 };

/* The SPS and PPS of avcC codec data, into the H.264 parser. */
static void
h264_read_config (GstAvhwDecCuts * c, GstBuffer * codec_data)
{
  GstMapInfo map;

  if (!gst_buffer_map (codec_data, &map, GST_MAP_READ))
    return;
  gst_avhw_dec_h264_read_config (c->h264, map.data, map.size);
  gst_buffer_unmap (codec_data, &map);
}

gboolean
gst_avhw_dec_cuts_init (GstAvhwDecCuts * c, enum AVCodecID codec,
    GstVideoCodecState * state, gchar ** why)
{
  GstStructure *s = gst_caps_get_structure (state->caps, 0);
  const gchar *format = gst_structure_get_string (s, "stream-format");
  const gchar *align = gst_structure_get_string (s, "alignment");
  GstMapInfo map;
  gsize at = codec == AV_CODEC_ID_H264 ? 4 : 21;

  memset (c, 0, sizeof (*c));
  c->codec = codec;
  c->param_sets = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  if (codec == AV_CODEC_ID_VP9)
    return TRUE;
  if (codec == AV_CODEC_ID_AV1) {
    if (g_strcmp0 (format, "obu-stream") == 0 && g_strcmp0 (align, "tu") == 0)
      return TRUE;
    *why = g_strdup_printf ("AV1 input is not stream-format=obu-stream, "
        "alignment=tu (%s, %s)", format ? format : "none given",
        align ? align : "none given");
    goto fail;
  }
  if (codec != AV_CODEC_ID_H264 && codec != AV_CODEC_ID_HEVC) {
    *why = g_strdup_printf ("no cut-point parser for %s (H.264, H.265, VP9 "
        "and AV1 only)", avcodec_get_name (codec));
    goto fail;
  }
  if (g_strcmp0 (align, "au") != 0) {
    *why = g_strdup_printf ("input is not alignment=au (%s)",
        align ? align : "none given");
    goto fail;
  }
  if (format && g_strcmp0 (format, "byte-stream") != 0) {
    if (!state->codec_data
        || !gst_buffer_map (state->codec_data, &map, GST_MAP_READ)) {
      *why = g_strdup_printf ("stream-format=%s without codec_data", format);
      goto fail;
    }
    if (map.size > at)
      c->nal_length_size = (map.data[at] & 3) + 1;
    gst_buffer_unmap (state->codec_data, &map);
    if (c->nal_length_size == 0 || c->nal_length_size == 3) {
      *why = g_strdup ("codec_data gives no usable NAL length size");
      goto fail;
    }
  }
  if (codec == AV_CODEC_ID_H264) {
    c->h264 = gst_h264_nal_parser_new ();
    if (state->codec_data && c->nal_length_size)
      h264_read_config (c, state->codec_data);
  }
  return TRUE;

fail:
  gst_avhw_dec_cuts_clear (c);
  return FALSE;
}

void
gst_avhw_dec_cuts_clear (GstAvhwDecCuts * c)
{
  g_clear_pointer (&c->param_sets, g_ptr_array_unref);
  g_clear_pointer (&c->joined, g_bytes_unref);
  g_clear_pointer (&c->h264, gst_h264_nal_parser_free);
}

/* The next NAL unit at or after *pos: its header at *nal, its payload
 * ending at *end. */
static gboolean
next_nal (const GstAvhwDecCuts * c, const guint8 * d, gsize size, gsize * pos,
    gsize * nal, gsize * end)
{
  gsize i, len = 0;

  if (c->nal_length_size) {
    if (*pos + c->nal_length_size > size)
      return FALSE;
    for (i = 0; i < c->nal_length_size; i++)
      len = (len << 8) | d[*pos + i];
    *nal = *pos + c->nal_length_size;
    if (len == 0 || len > size - *nal)
      return FALSE;
    *end = *pos = *nal + len;
    return TRUE;
  }
  for (i = *pos; i + 3 <= size; i++)
    if (d[i] == 0 && d[i + 1] == 0 && d[i + 2] == 1)
      break;
  if (i + 3 > size)
    return FALSE;
  *nal = i + 3;
  for (i = *nal; i + 3 <= size; i++)
    if (d[i] == 0 && d[i + 1] == 0 && d[i + 2] <= 1)
      break;
  *pos = i + 3 <= size ? i : size;
  *end = *pos;
  while (*end > *nal && d[*end - 1] == 0)
    (*end)--;
  return *end > *nal;
}

/* Keeps @b (taken): last in the list, once. */
static void
keep_unit (GstAvhwDecCuts * c, GBytes * b)
{
  guint i;

  for (i = 0; i < c->param_sets->len; i++) {
    if (g_bytes_equal (g_ptr_array_index (c->param_sets, i), b)) {
      if (i + 1 == c->param_sets->len) {
        g_bytes_unref (b);
        return;
      }
      g_ptr_array_remove_index (c->param_sets, i);
      break;
    }
  }
  g_ptr_array_add (c->param_sets, b);
  if (c->param_sets->len > MAX_PARAM_SETS)
    g_ptr_array_remove_index (c->param_sets, 0);
  g_clear_pointer (&c->joined, g_bytes_unref);
}

static void
keep_param_set (GstAvhwDecCuts * c, const guint8 * d, gsize nal, gsize end)
{
  gsize len = end - nal, prefix = c->nal_length_size ? c->nal_length_size : 4;
  guint8 *unit = g_malloc (prefix + len);
  guint i;

  if (c->nal_length_size) {
    for (i = 0; i < prefix; i++)
      unit[i] = (len >> (8 * (prefix - 1 - i))) & 0xff;
  } else {
    memcpy (unit, start_code, 4);
  }
  memcpy (unit + prefix, d + nal, len);
  keep_unit (c, g_bytes_new_take (unit, prefix + len));
}

/* A VP9 key frame that is shown: it refreshes every reference slot and
 * resets every probability context, so nothing after it reaches past it.
 * The packet's first frame (of a superframe) decides; its uncompressed
 * header starts frame_marker(2) profile_low(1) profile_high(1)
 * [reserved(1) in profile 3] show_existing_frame(1) frame_type(1)
 * show_frame(1). */
static gboolean
vp9_is_cut (const guint8 * d, gsize size)
{
  guint bits, pos = 4;

  if (size < 2)
    return FALSE;
  bits = (d[0] << 8) | d[1];
  if ((bits >> 14) != 2)
    return FALSE;
  if (((bits >> 12) & 3) == 3)  /* profile 3 (bits: low, high) */
    pos++;
  /* show_existing_frame 0, frame_type 0 (key), show_frame 1 */
  return ((bits >> (16 - pos - 3)) & 7) == 1;
}

/* The next OBU at *pos: its type, payload at *payload of *len bytes. */
static gboolean
next_obu (const guint8 * d, gsize size, gsize * pos, guint * type,
    gboolean * sized, gsize * payload, gsize * len)
{
  guint8 h;
  guint64 v = 0;
  guint i;

  if (*pos >= size)
    return FALSE;
  h = d[*pos];
  *type = (h >> 3) & 0xf;
  *sized = (h >> 1) & 1;
  *pos += 1 + ((h >> 2) & 1);
  if (*sized) {
    for (i = 0; i < 8 && *pos < size; i++) {
      v |= (guint64) (d[*pos] & 0x7f) << (7 * i);
      if (!(d[(*pos)++] & 0x80))
        break;
    }
  } else {
    v = *pos <= size ? size - *pos : 0;
  }
  if (*pos > size || v > size - *pos)
    return FALSE;
  *payload = *pos;
  *len = v;
  *pos += v;
  return TRUE;
}

/* An AV1 temporal unit whose first frame is a shown key frame: it
 * refreshes every reference slot. Its frame header starts
 * show_existing_frame(1) frame_type(2) show_frame(1), unless the sequence
 * header says reduced_still_picture_header (every frame a shown key
 * frame). Keeps the sequence header (OBU type 1). */
static gboolean
av1_scan (GstAvhwDecCuts * c, const guint8 * d, gsize size)
{
  gsize pos = 0, start = 0, payload, len;
  gboolean sized;
  guint type;

  while (next_obu (d, size, &pos, &type, &sized, &payload, &len)) {
    if (type == 1 && len > 0) {
      c->av1_reduced = (d[payload] >> 3) & 1;
      if (sized)
        keep_unit (c, g_bytes_new (d + start, pos - start));
    } else if (type == 3 || type == 6) {
      return c->av1_reduced || (len > 0 && (d[payload] >> 4) == 1);
    }
    start = pos;
  }
  return FALSE;
}

/* Where in an access unit the parameter sets go (AV1: after the temporal
 * delimiter). */
static gsize
cuts_insert_at (GstAvhwDecCuts * c, const guint8 * data, gsize size)
{
  gsize pos = 0, payload, len;
  gboolean sized;
  guint type;

  /* AV1: after the temporal delimiter, which opens a temporal unit */
  if (c->codec == AV_CODEC_ID_AV1 && next_obu (data, size, &pos, &type,
          &sized, &payload, &len) && type == 2)
    return pos;
  return 0;
}

/* The NAL unit whose header is at @nal, as GStreamer's H.264 parser
 * reads it: SPS and PPS are kept; an IDR slice tells frame from field.
 * Returns TRUE for an IDR slice of a frame. */
static gboolean
h264_read (GstAvhwDecCuts * c, const guint8 * d, gsize size, gsize nal)
{
  GstH264NalUnit unit;
  GstH264SliceHdr slice;
  GstH264ParserResult r;

  /* the start code (00 00 01) or the length just before @nal */
  r = c->nal_length_size ?
      gst_h264_parser_identify_nalu_avc (c->h264, d, nal - c->nal_length_size,
      size, c->nal_length_size, &unit) :
      gst_h264_parser_identify_nalu_unchecked (c->h264, d, nal - 3, size,
      &unit);
  if (r != GST_H264_PARSER_OK)
    return FALSE;
  if (unit.type == GST_H264_NAL_SPS || unit.type == GST_H264_NAL_PPS) {
    gst_h264_parser_parse_nal (c->h264, &unit);
    return FALSE;
  }
  return unit.type == GST_H264_NAL_SLICE_IDR
      && gst_h264_parser_parse_slice_hdr (c->h264, &unit, &slice, FALSE,
      FALSE) == GST_H264_PARSER_OK && !slice.field_pic_flag;
}

gboolean
gst_avhw_dec_cuts_scan (GstAvhwDecCuts * c, const guint8 * data, gsize size)
{
  gsize pos = 0, nal, end;
  gboolean cut = FALSE, frame = FALSE;
  guint type;

  if (c->codec == AV_CODEC_ID_VP9)
    return vp9_is_cut (data, size);
  if (c->codec == AV_CODEC_ID_AV1)
    return av1_scan (c, data, size);
  while (next_nal (c, data, size, &pos, &nal, &end)) {
    if (c->codec == AV_CODEC_ID_H264) {
      type = data[nal] & 0x1f;
      /* the access unit's first IDR slice says frame or field */
      if (type == 7 || type == 8)
        h264_read (c, data, size, nal);
      else if (type == 5 && !cut)
        frame = h264_read (c, data, size, nal);
      /* IDR; SPS, PPS, SPS extension, subset SPS */
      cut |= type == 5;
      if (type == 7 || type == 8 || type == 13 || type == 15)
        keep_param_set (c, data, nal, end);
    } else {
      type = (data[nal] >> 1) & 0x3f;
      /* BLA_W_LP .. IDR_N_LP; not CRA (21), whose RASL pictures need
       * what came before; VPS, SPS, PPS */
      cut |= type >= 16 && type <= 20;
      if (type >= 32 && type <= 34)
        keep_param_set (c, data, nal, end);
    }
  }
  if (cut && c->codec == AV_CODEC_ID_H264)
    c->cut_is_frame = frame;
  return cut;
}

/* Every parameter set kept, in order, as units of the stream's format
 * (owned by @c). */
static GBytes *
cuts_param_sets (GstAvhwDecCuts * c)
{
  GByteArray *a;
  guint i;

  if (!c->joined) {
    a = g_byte_array_new ();
    for (i = 0; i < c->param_sets->len; i++) {
      gsize n;
      const guint8 *d = g_bytes_get_data (g_ptr_array_index (c->param_sets,
              i), &n);

      g_byte_array_append (a, d, n);
    }
    c->joined = g_byte_array_free_to_bytes (a);
  }
  return c->joined;
}

AVPacket *
gst_avhw_dec_cuts_packet (GstAvhwDecCuts * c, const guint8 * data, gsize size,
    gboolean with_param_sets)
{
  AVPacket *pkt = av_packet_alloc ();
  const guint8 *ps = NULL;
  gsize ps_size = 0, at;

  if (!pkt)
    return NULL;
  if (with_param_sets)
    ps = g_bytes_get_data (cuts_param_sets (c), &ps_size);
  at = ps_size ? cuts_insert_at (c, data, size) : 0;
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
