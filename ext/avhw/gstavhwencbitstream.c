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
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/base/gstbytewriter.h>
#include "gstavhwencbitstream.h"

#define H264_NAL_SPS 7
#define H264_NAL_PPS 8
#define H265_NAL_VPS 32
#define H265_NAL_SPS 33
#define H265_NAL_PPS 34
#define AV1_OBU_SEQUENCE_HEADER 1

typedef struct
{
  const guint8 *data;
  gsize size;
} Nal;

/* ---------------------------------------------------------------- NALs */

gboolean
gst_avhw_enc_is_annexb (const guint8 * data, gsize size)
{
  return (size >= 3 && data[0] == 0 && data[1] == 0 && data[2] == 1)
      || (size >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0
      && data[3] == 1);
}

/* Position of the next 00 00 01 at or after @from, or @size. */
static gsize
find_start_code (const guint8 * data, gsize size, gsize from)
{
  gsize i;

  for (i = from; i + 2 < size; i++)
    if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1)
      return i;
  return size;
}

/* Splits Annex B @data into its NAL units (without start codes and without
 * the zero bytes that precede the next start code). */
static GArray *
split_annexb (const guint8 * data, gsize size)
{
  GArray *nals = g_array_new (FALSE, FALSE, sizeof (Nal));
  gsize pos = find_start_code (data, size, 0);

  while (pos < size) {
    gsize start = pos + 3, end = find_start_code (data, size, start);
    Nal nal;

    nal.data = data + start;
    nal.size = end - start;
    while (nal.size > 0 && nal.data[nal.size - 1] == 0)
      nal.size--;
    if (nal.size > 0)
      g_array_append_val (nals, nal);
    pos = end;
  }
  return nals;
}

static guint
nal_type (enum AVCodecID codec_id, const Nal * nal)
{
  if (codec_id == AV_CODEC_ID_HEVC)
    return (nal->data[0] >> 1) & 0x3f;
  return nal->data[0] & 0x1f;
}

/* The first NAL of @type in an avcC or hvcC record. */
static gboolean
find_nal_in_record (enum AVCodecID codec_id, const guint8 * data, gsize size,
    guint type, Nal * out)
{
  gsize pos;
  guint a, n_arrays, n, i;

  if (codec_id == AV_CODEC_ID_H264) {
    /* 6 bytes of header, then the SPS list and the PPS list, each with a
     * count byte (the SPS count shares its byte with 3 reserved bits) */
    n_arrays = 2;
    pos = 5;
  } else {
    if (size < 23)
      return FALSE;
    n_arrays = data[22];
    pos = 23;
  }
  for (a = 0; a < n_arrays; a++) {
    if (codec_id == AV_CODEC_ID_H264) {
      if (pos >= size)
        return FALSE;
      n = data[pos] & (a == 0 ? 0x1f : 0xff);
      pos += 1;
    } else {
      if (pos + 3 > size)
        return FALSE;
      n = GST_READ_UINT16_BE (data + pos + 1);
      pos += 3;
    }
    for (i = 0; i < n; i++) {
      Nal nal;

      if (pos + 2 > size)
        return FALSE;
      nal.size = GST_READ_UINT16_BE (data + pos);
      nal.data = data + pos + 2;
      pos += 2 + nal.size;
      if (pos > size)
        return FALSE;
      if (nal.size > 0 && nal_type (codec_id, &nal) == type) {
        *out = nal;
        return TRUE;
      }
    }
  }
  return FALSE;
}

/* The first NAL of @type in Annex B @data, or in an avcC/hvcC record. */
static gboolean
find_nal (enum AVCodecID codec_id, const guint8 * data, gsize size,
    guint type, Nal * out)
{
  GArray *nals;
  gboolean found = FALSE;
  guint i;

  if (!gst_avhw_enc_is_annexb (data, size))
    return find_nal_in_record (codec_id, data, size, type, out);
  nals = split_annexb (data, size);
  for (i = 0; i < nals->len && !found; i++) {
    Nal *nal = &g_array_index (nals, Nal, i);
    if (nal_type (codec_id, nal) == type) {
      *out = *nal;
      found = TRUE;
    }
  }
  g_array_unref (nals);
  return found;
}

/* ---------------------------------------------------------------- bits */

typedef struct
{
  guint8 *data;
  gsize size;
  gsize bit;
  gboolean overrun;
} Bits;

/* The RBSP of @nal after its @header_size header bytes: emulation
 * prevention bytes (00 00 03) removed. */
static void
bits_init (Bits * b, const Nal * nal, guint header_size)
{
  gsize i, n = 0, zeros = 0;

  b->data = g_malloc (nal->size + 1);
  for (i = header_size; i < nal->size; i++) {
    if (zeros >= 2 && nal->data[i] == 3) {
      zeros = 0;
      continue;
    }
    zeros = nal->data[i] == 0 ? zeros + 1 : 0;
    b->data[n++] = nal->data[i];
  }
  b->size = n;
  b->bit = 0;
  b->overrun = FALSE;
}

/* Bytes with no emulation prevention (AV1). */
static void
bits_init_raw (Bits * b, const guint8 * data, gsize size)
{
  b->data = g_memdup2 (data, size);
  b->size = size;
  b->bit = 0;
  b->overrun = FALSE;
}

static guint32
bits_read (Bits * b, guint n)
{
  guint32 v = 0;

  while (n--) {
    if (b->bit >= b->size * 8) {
      b->overrun = TRUE;
      return 0;
    }
    v = (v << 1) | ((b->data[b->bit / 8] >> (7 - b->bit % 8)) & 1);
    b->bit++;
  }
  return v;
}

static guint32
bits_read_ue (Bits * b)
{
  guint zeros = 0;

  while (!b->overrun && bits_read (b, 1) == 0 && zeros < 32)
    zeros++;
  if (zeros >= 32) {
    b->overrun = TRUE;
    return 0;
  }
  return ((1u << zeros) - 1) + bits_read (b, zeros);
}

static void
bits_clear (Bits * b)
{
  g_free (b->data);
}

/* ---------------------------------------------------------------- SPS */

typedef struct
{
  guint profile_idc;
  guint constraints;            /* H.264: constraint_set flags byte */
  guint level_idc;
  guint tier;                   /* H.265 */
  guint8 ptl[12];               /* H.265: general profile_tier_level */
  guint max_sub_layers;         /* H.265 */
  gboolean temporal_id_nested;  /* H.265 */
  guint chroma_format_idc;
  guint bit_depth_luma;
  guint bit_depth_chroma;
} SpsInfo;

static gboolean
parse_h264_sps (const Nal * nal, SpsInfo * info)
{
  Bits b;
  guint p;

  if (nal->size < 4)
    return FALSE;
  bits_init (&b, nal, 1);
  info->profile_idc = p = bits_read (&b, 8);
  info->constraints = bits_read (&b, 8);
  info->level_idc = bits_read (&b, 8);
  bits_read_ue (&b);            /* seq_parameter_set_id */
  info->chroma_format_idc = 1;
  info->bit_depth_luma = info->bit_depth_chroma = 8;
  if (p == 100 || p == 110 || p == 122 || p == 244 || p == 44 || p == 83
      || p == 86 || p == 118 || p == 128 || p == 138 || p == 139 || p == 134
      || p == 135) {
    info->chroma_format_idc = bits_read_ue (&b);
    if (info->chroma_format_idc == 3)
      bits_read (&b, 1);
    info->bit_depth_luma = bits_read_ue (&b) + 8;
    info->bit_depth_chroma = bits_read_ue (&b) + 8;
  }
  bits_clear (&b);
  return !b.overrun;
}

static gboolean
parse_h265_sps (const Nal * nal, SpsInfo * info)
{
  gboolean profile_present[8], level_present[8];
  Bits b;
  guint i, sub;

  if (nal->size < 15)
    return FALSE;
  bits_init (&b, nal, 2);
  bits_read (&b, 4);            /* sps_video_parameter_set_id */
  sub = bits_read (&b, 3);
  info->max_sub_layers = sub + 1;
  info->temporal_id_nested = bits_read (&b, 1);
  for (i = 0; i < 12; i++)
    info->ptl[i] = bits_read (&b, 8);
  info->tier = (info->ptl[0] >> 5) & 1;
  info->profile_idc = info->ptl[0] & 0x1f;
  info->level_idc = info->ptl[11];
  for (i = 0; i < sub; i++) {
    profile_present[i] = bits_read (&b, 1);
    level_present[i] = bits_read (&b, 1);
  }
  if (sub > 0)
    for (i = sub; i < 8; i++)
      bits_read (&b, 2);
  for (i = 0; i < sub; i++) {
    if (profile_present[i]) {
      bits_read (&b, 32);
      bits_read (&b, 32);
      bits_read (&b, 24);
    }
    if (level_present[i])
      bits_read (&b, 8);
  }
  bits_read_ue (&b);            /* sps_seq_parameter_set_id */
  info->chroma_format_idc = bits_read_ue (&b);
  if (info->chroma_format_idc == 3)
    bits_read (&b, 1);
  bits_read_ue (&b);            /* pic_width_in_luma_samples */
  bits_read_ue (&b);            /* pic_height_in_luma_samples */
  if (bits_read (&b, 1)) {
    for (i = 0; i < 4; i++)
      bits_read_ue (&b);
  }
  info->bit_depth_luma = bits_read_ue (&b) + 8;
  info->bit_depth_chroma = bits_read_ue (&b) + 8;
  bits_clear (&b);
  return !b.overrun;
}

static gboolean
get_sps_info (enum AVCodecID codec_id, const guint8 * data, gsize size,
    SpsInfo * info)
{
  Nal sps;

  memset (info, 0, sizeof (*info));
  if (codec_id == AV_CODEC_ID_H264)
    return find_nal (codec_id, data, size, H264_NAL_SPS, &sps)
        && parse_h264_sps (&sps, info);
  if (codec_id == AV_CODEC_ID_HEVC)
    return find_nal (codec_id, data, size, H265_NAL_SPS, &sps)
        && parse_h265_sps (&sps, info);
  return FALSE;
}

/* ---------------------------------------------------------------- records */

static void
put_nals (GstByteWriter * bw, GArray * nals, enum AVCodecID codec_id,
    guint type)
{
  guint i;

  for (i = 0; i < nals->len; i++) {
    Nal *nal = &g_array_index (nals, Nal, i);
    if (nal_type (codec_id, nal) != type)
      continue;
    gst_byte_writer_put_uint16_be (bw, nal->size);
    gst_byte_writer_put_data (bw, nal->data, nal->size);
  }
}

static guint
count_nals (GArray * nals, enum AVCodecID codec_id, guint type)
{
  guint i, n = 0;

  for (i = 0; i < nals->len; i++)
    n += nal_type (codec_id, &g_array_index (nals, Nal, i)) == type;
  return n;
}

static GstBuffer *
make_avcc (GArray * nals, const SpsInfo * sps)
{
  GstByteWriter bw;
  guint p = sps->profile_idc;

  gst_byte_writer_init (&bw);
  gst_byte_writer_put_uint8 (&bw, 1);
  gst_byte_writer_put_uint8 (&bw, sps->profile_idc);
  gst_byte_writer_put_uint8 (&bw, sps->constraints);
  gst_byte_writer_put_uint8 (&bw, sps->level_idc);
  gst_byte_writer_put_uint8 (&bw, 0xfc | 3);    /* 4-byte lengths */
  gst_byte_writer_put_uint8 (&bw, 0xe0 |
      count_nals (nals, AV_CODEC_ID_H264, H264_NAL_SPS));
  put_nals (&bw, nals, AV_CODEC_ID_H264, H264_NAL_SPS);
  gst_byte_writer_put_uint8 (&bw,
      count_nals (nals, AV_CODEC_ID_H264, H264_NAL_PPS));
  put_nals (&bw, nals, AV_CODEC_ID_H264, H264_NAL_PPS);
  /* ISO/IEC 14496-15 from its 6th edition, FFmpeg's ff_isom_write_avcc
   * and h264parse: every profile but Baseline, Main and Extended. (The 5th
   * edition's list, 100, 110, 122 and 144, left out High 4:4:4 Predictive,
   * 244: 144 is the High 4:4:4 profile withdrawn from H.264.) */
  if (p != 66 && p != 77 && p != 88) {
    gst_byte_writer_put_uint8 (&bw, 0xfc | sps->chroma_format_idc);
    gst_byte_writer_put_uint8 (&bw, 0xf8 | (sps->bit_depth_luma - 8));
    gst_byte_writer_put_uint8 (&bw, 0xf8 | (sps->bit_depth_chroma - 8));
    gst_byte_writer_put_uint8 (&bw, 0);
  }
  return gst_byte_writer_reset_and_get_buffer (&bw);
}

static GstBuffer *
make_hvcc (GArray * nals, const SpsInfo * sps)
{
  static const guint types[] = { H265_NAL_VPS, H265_NAL_SPS, H265_NAL_PPS };
  GstByteWriter bw;
  guint i, n_arrays = 0;

  gst_byte_writer_init (&bw);
  gst_byte_writer_put_uint8 (&bw, 1);
  gst_byte_writer_put_data (&bw, sps->ptl, 12);
  gst_byte_writer_put_uint16_be (&bw, 0xf000);  /* min_spatial_segmentation */
  gst_byte_writer_put_uint8 (&bw, 0xfc);        /* parallelismType unknown */
  gst_byte_writer_put_uint8 (&bw, 0xfc | sps->chroma_format_idc);
  gst_byte_writer_put_uint8 (&bw, 0xf8 | (sps->bit_depth_luma - 8));
  gst_byte_writer_put_uint8 (&bw, 0xf8 | (sps->bit_depth_chroma - 8));
  gst_byte_writer_put_uint16_be (&bw, 0);       /* avgFrameRate */
  gst_byte_writer_put_uint8 (&bw, (sps->max_sub_layers << 3) |
      (sps->temporal_id_nested << 2) | 3);
  for (i = 0; i < G_N_ELEMENTS (types); i++)
    n_arrays += count_nals (nals, AV_CODEC_ID_HEVC, types[i]) > 0;
  gst_byte_writer_put_uint8 (&bw, n_arrays);
  for (i = 0; i < G_N_ELEMENTS (types); i++) {
    guint n = count_nals (nals, AV_CODEC_ID_HEVC, types[i]);
    if (n == 0)
      continue;
    gst_byte_writer_put_uint8 (&bw, 0x80 | types[i]);   /* complete array */
    gst_byte_writer_put_uint16_be (&bw, n);
    put_nals (&bw, nals, AV_CODEC_ID_HEVC, types[i]);
  }
  return gst_byte_writer_reset_and_get_buffer (&bw);
}

/* ---------------------------------------------------------------- AV1 */

/* leb128 at @data; 0 bytes read when it runs past @size. */
static guint
read_leb128 (const guint8 * data, gsize size, guint64 * value)
{
  guint i;

  *value = 0;
  for (i = 0; i < 8 && i < size; i++) {
    *value |= (guint64) (data[i] & 0x7f) << (7 * i);
    if (!(data[i] & 0x80))
      return i + 1;
  }
  return 0;
}

/* The first sequence header OBU of the OBUs at @data: its header bytes
 * (@hdr_size of them) and its payload. */
static gboolean
find_sequence_header (const guint8 * data, gsize size, const guint8 ** obu,
    guint * hdr_size, const guint8 ** payload, gsize * payload_size)
{
  gsize pos = 0;

  while (pos < size) {
    guint8 h = data[pos];
    guint n = 1 + ((h >> 2) & 1);
    guint64 len = size - pos - MIN (n, size - pos);
    guint l = 0;

    if (pos + n > size)
      return FALSE;
    if (h & 0x02) {
      l = read_leb128 (data + pos + n, size - pos - n, &len);
      if (l == 0)
        return FALSE;
    }
    if (len > size - pos - n - l)
      return FALSE;
    if (((h >> 3) & 0xf) == AV1_OBU_SEQUENCE_HEADER) {
      *obu = data + pos;
      *hdr_size = n;
      *payload = data + pos + n + l;
      *payload_size = len;
      return TRUE;
    }
    pos += n + l + len;
  }
  return FALSE;
}

/* Bytes 1 and 2 of av1C from a sequence header OBU's payload (AV1
 * specification 5.5). */
static gboolean
parse_av1_sequence_header (const guint8 * data, gsize size, guint8 out[2])
{
  Bits b;
  guint profile, level, tier = 0, i, n_ops, w_bits, h_bits;
  guint buffer_delay_len = 0, hbd, twelve = 0, mono = 0, sx = 1, sy = 1;
  guint pos = 0, primaries = 2, transfer = 2, matrix = 2;
  gboolean reduced, model = FALSE, display_delay, order_hint, ok;

  bits_init_raw (&b, data, size);
  profile = bits_read (&b, 3);
  bits_read (&b, 1);            /* still_picture */
  reduced = bits_read (&b, 1);
  if (reduced) {
    level = bits_read (&b, 5);
  } else {
    if (bits_read (&b, 1)) {    /* timing_info_present_flag */
      bits_read (&b, 32);
      bits_read (&b, 32);
      if (bits_read (&b, 1)) {  /* equal_picture_interval: uvlc */
        guint zeros = 0;
        while (!b.overrun && !bits_read (&b, 1) && zeros < 32)
          zeros++;
        bits_read (&b, zeros);
      }
      model = bits_read (&b, 1);
      if (model) {
        buffer_delay_len = bits_read (&b, 5) + 1;
        bits_read (&b, 32);
        bits_read (&b, 10);     /* two lengths of 5 bits */
      }
    }
    display_delay = bits_read (&b, 1);
    n_ops = bits_read (&b, 5) + 1;
    level = 0;
    for (i = 0; i < n_ops; i++) {
      guint lv, t = 0;

      bits_read (&b, 12);       /* operating_point_idc */
      lv = bits_read (&b, 5);
      if (lv > 7)
        t = bits_read (&b, 1);
      if (i == 0) {
        level = lv;
        tier = t;
      }
      if (model && bits_read (&b, 1)) {
        bits_read (&b, buffer_delay_len);
        bits_read (&b, buffer_delay_len);
        bits_read (&b, 1);
      }
      if (display_delay && bits_read (&b, 1))
        bits_read (&b, 4);
    }
  }
  w_bits = bits_read (&b, 4) + 1;
  h_bits = bits_read (&b, 4) + 1;
  bits_read (&b, w_bits);
  bits_read (&b, h_bits);
  if (!reduced && bits_read (&b, 1))    /* frame_id_numbers_present */
    bits_read (&b, 7);
  bits_read (&b, 3);            /* 128x128, filter intra, intra edge */
  if (!reduced) {
    bits_read (&b, 4);          /* interintra, masked, warped, dual filter */
    order_hint = bits_read (&b, 1);
    if (order_hint)
      bits_read (&b, 2);        /* jnt_comp, ref_frame_mvs */
    if (bits_read (&b, 1) || bits_read (&b, 1)) {       /* screen content */
      if (!bits_read (&b, 1))   /* seq_choose_integer_mv */
        bits_read (&b, 1);
    }
    if (order_hint)
      bits_read (&b, 3);
  }
  bits_read (&b, 3);            /* superres, cdef, restoration */
  hbd = bits_read (&b, 1);
  if (profile == 2 && hbd)
    twelve = bits_read (&b, 1);
  if (profile != 1)
    mono = bits_read (&b, 1);
  if (bits_read (&b, 1)) {      /* color_description_present_flag */
    primaries = bits_read (&b, 8);
    transfer = bits_read (&b, 8);
    matrix = bits_read (&b, 8);
  }
  if (mono) {
    bits_read (&b, 1);
  } else if (primaries == 1 && transfer == 13 && matrix == 0) {
    sx = sy = 0;                /* sRGB: 4:4:4 */
  } else {
    bits_read (&b, 1);          /* color_range */
    if (profile == 1) {
      sx = sy = 0;
    } else if (profile == 2) {
      sy = 0;
      if (twelve) {
        sx = bits_read (&b, 1);
        sy = sx ? bits_read (&b, 1) : 0;
      }
    }
    if (sx && sy)
      pos = bits_read (&b, 2);
  }
  ok = !b.overrun;
  bits_clear (&b);
  out[0] = (profile << 5) | (level & 0x1f);
  out[1] = (tier << 7) | (hbd << 6) | (twelve << 5) | (mono << 4) |
      (sx << 3) | (sy << 2) | pos;
  return ok;
}

/* av1C (AV1 Codec ISO Media File Format Binding 2.3) with the sequence
 * header OBU of the OBUs at @data (a temporal unit, or an encoder's
 * extradata), or @data as it is when it is an av1C already. */
static GstBuffer *
make_av1c (const guint8 * data, gsize size)
{
  const guint8 *obu, *payload;
  guint hdr_size;
  gsize payload_size;
  guint8 head[4] = { 0x81, 0, 0, 0 }, obu_head, leb[8];
  guint n = 0;
  guint64 v;
  GstByteWriter bw;

  if (size >= 4 && data[0] == 0x81)
    return gst_buffer_new_memdup (data, size);
  if (!find_sequence_header (data, size, &obu, &hdr_size, &payload,
          &payload_size) || !parse_av1_sequence_header (payload, payload_size,
          head + 1))
    return NULL;
  /* the OBU again, with its size field (configOBUs need it) */
  obu_head = obu[0] | 0x02;
  v = payload_size;
  do {
    leb[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
    v >>= 7;
  } while (v);
  gst_byte_writer_init (&bw);
  gst_byte_writer_put_data (&bw, head, 4);
  gst_byte_writer_put_uint8 (&bw, obu_head);
  if (hdr_size > 1)
    gst_byte_writer_put_data (&bw, obu + 1, hdr_size - 1);
  gst_byte_writer_put_data (&bw, leb, n);
  gst_byte_writer_put_data (&bw, payload, payload_size);
  return gst_byte_writer_reset_and_get_buffer (&bw);
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
  GstBuffer *out = NULL;
  SpsInfo sps;
  GArray *nals;
  guint pps = codec_id == AV_CODEC_ID_HEVC ? H265_NAL_PPS : H264_NAL_PPS;

  if (!data || size == 0)
    return NULL;
  if (codec_id == AV_CODEC_ID_AV1)
    return make_av1c (data, size);
  if (!gst_avhw_enc_is_annexb (data, size))
    return data[0] == 1 ? gst_buffer_new_memdup (data, size) : NULL;
  if (!get_sps_info (codec_id, data, size, &sps))
    return NULL;
  nals = split_annexb (data, size);
  if (count_nals (nals, codec_id, pps) > 0)
    out = codec_id == AV_CODEC_ID_HEVC ? make_hvcc (nals, &sps) :
        make_avcc (nals, &sps);
  g_array_unref (nals);
  return out;
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
  GArray *nals = split_annexb (data, size);
  GstByteWriter bw;
  guint i;

  gst_byte_writer_init_with_size (&bw, size + 4 * nals->len, FALSE);
  for (i = 0; i < nals->len; i++) {
    Nal *nal = &g_array_index (nals, Nal, i);
    gst_byte_writer_put_uint32_be (&bw, nal->size);
    gst_byte_writer_put_data (&bw, nal->data, nal->size);
  }
  g_array_unref (nals);
  return gst_byte_writer_reset_and_get_buffer (&bw);
}

/* ---------------------------------------------------------------- caps */

static const gchar *
h264_profile (const SpsInfo * s)
{
  gboolean c1 = s->constraints & 0x40, c3 = s->constraints & 0x10;
  gboolean c4 = s->constraints & 0x08, c5 = s->constraints & 0x04;

  switch (s->profile_idc) {
    case 66:
      return c1 ? "constrained-baseline" : "baseline";
    case 77:
      return "main";
    case 88:
      return "extended";
    case 100:
      return c4 && c5 ? "constrained-high" : c4 ? "progressive-high" : "high";
    case 110:
      return c3 ? "high-10-intra" : "high-10";
    case 122:
      return c3 ? "high-4:2:2-intra" : "high-4:2:2";
    case 244:
      return c3 ? "high-4:4:4-intra" : "high-4:4:4";
    case 44:
      return "cavlc-4:4:4-intra";
    default:
      return NULL;
  }
}

static const gchar *
h265_profile (const SpsInfo * s)
{
  guint depth = MAX (s->bit_depth_luma, s->bit_depth_chroma);

  switch (s->profile_idc) {
    case 1:
      return "main";
    case 2:
      return "main-10";
    case 3:
      return "main-still-picture";
    case 4:
      if (s->chroma_format_idc == 0)
        return depth <= 8 ? "monochrome" : depth <= 12 ? "monochrome-12" :
            "monochrome-16";
      if (s->chroma_format_idc == 1)
        return depth <= 12 ? "main-12" : NULL;
      if (s->chroma_format_idc == 2)
        return depth <= 10 ? "main-422-10" : depth <= 12 ? "main-422-12" : NULL;
      return depth <= 8 ? "main-444" : depth <= 10 ? "main-444-10" :
          depth <= 12 ? "main-444-12" : NULL;
    default:
      return NULL;
  }
}

static gchar *
level_string (guint level_idc, guint div)
{
  guint major = level_idc / div, minor = (level_idc % div) / (div / 10);

  return minor ? g_strdup_printf ("%u.%u", major, minor) :
      g_strdup_printf ("%u", major);
}

/**
 * gst_avhw_enc_caps_set_profile_level:
 * @caps: H.264 or H.265 caps to complete
 * @data: Annex B data holding an SPS, or a configuration record
 *
 * Sets `profile`, `level` (and `tier` for H.265) from the first SPS in @data.
 *
 * Returns: whether an SPS was found
 */
gboolean
gst_avhw_enc_caps_set_profile_level (GstCaps * caps, enum AVCodecID codec_id,
    const guint8 * data, gsize size)
{
  const gchar *profile;
  gchar *level;
  SpsInfo s;

  if (!data || size == 0 || !get_sps_info (codec_id, data, size, &s))
    return FALSE;
  if (codec_id == AV_CODEC_ID_H264) {
    profile = h264_profile (&s);
    if (s.level_idc == 9 || (s.level_idc == 11 && (s.constraints & 0x10)
            && (s.profile_idc == 66 || s.profile_idc == 77
                || s.profile_idc == 88)))
      level = g_strdup ("1b");
    else
      level = level_string (s.level_idc, 10);
  } else {
    profile = h265_profile (&s);
    level = level_string (s.level_idc, 30);
    gst_caps_set_simple (caps, "tier", G_TYPE_STRING, s.tier ? "high" :
        "main", NULL);
  }
  if (profile)
    gst_caps_set_simple (caps, "profile", G_TYPE_STRING, profile, NULL);
  if (s.level_idc > 0)
    gst_caps_set_simple (caps, "level", G_TYPE_STRING, level, NULL);
  g_free (level);
  return TRUE;
}
