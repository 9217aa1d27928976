/* gst-avhw tests: what an H.264 SPS decides for avhwdec (gstavhwdech264.c)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Sequence parameter sets written here bit by bit (no encoder writes SPSs
 * without VUI reorder information, the case that matters), shaped like
 * the conformance streams that failed on the H200's Vulkan decoder
 * (MR2_TANDBERG_E: 15 reference frames, pictures in decoding order;
 * FRExt4_Panasonic: field-coded) and like those that need the whole
 * reorder depth (Cisco_*_Bframe_9). They are found in byte-stream packets,
 * length-prefixed packets and avcC records; the reorder depth chosen for
 * a device's picture slots is checked against the arithmetic of
 * FFmpeg's h264_ps.c; damaged input finds nothing and does not crash.
 * x264's own SPS (VUI with bitstream_restriction) is checked too.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include "gstavhwdecwatch.h"

/* ------------------------------------------------ a tiny bit writer */

typedef struct
{
  GByteArray *bytes;
  guint8 cur;
  guint n;                      /* bits in cur */
} Bits;

static void
put_bit (Bits * b, guint bit)
{
  b->cur = (b->cur << 1) | (bit & 1);
  if (++b->n == 8) {
    g_byte_array_append (b->bytes, &b->cur, 1);
    b->cur = 0;
    b->n = 0;
  }
}

static void
put_u (Bits * b, guint n, guint32 v)
{
  while (n--)
    put_bit (b, (v >> n) & 1);
}

static void
put_ue (Bits * b, guint32 v)
{
  guint32 x = v + 1;
  guint len = 0;

  while ((x >> len) > 1)
    len++;
  put_u (b, len, 0);
  put_u (b, len + 1, x);
}

/* rbsp_trailing_bits, then emulation prevention into a NAL unit with
 * @header. */
static GByteArray *
finish_nal (Bits * b, guint8 header)
{
  GByteArray *nal = g_byte_array_new ();
  guint zeros = 0, i;

  put_bit (b, 1);
  while (b->n)
    put_bit (b, 0);
  g_byte_array_append (nal, &header, 1);
  for (i = 0; i < b->bytes->len; i++) {
    guint8 c = b->bytes->data[i], epb = 3;

    if (zeros >= 2 && c <= 3) {
      g_byte_array_append (nal, &epb, 1);
      zeros = 0;
    }
    g_byte_array_append (nal, &c, 1);
    zeros = c ? 0 : zeros + 1;
  }
  g_byte_array_unref (b->bytes);
  return nal;
}

typedef struct
{
  guint profile, level, refs, poc_type, width_mbs, height_units;
  gboolean frame_mbs_only;
  gint vui_reorder;             /* -1: no VUI */
} SpsDesc;

static GByteArray *
make_sps (const SpsDesc * d)
{
  Bits b = { g_byte_array_new (), 0, 0 };

  put_u (&b, 8, d->profile);
  put_u (&b, 8, 0);             /* constraint flags */
  put_u (&b, 8, d->level);
  put_ue (&b, 0);               /* seq_parameter_set_id */
  if (d->profile == 100) {
    put_ue (&b, 1);             /* chroma_format_idc 4:2:0 */
    put_ue (&b, 0);             /* bit_depth_luma_minus8 */
    put_ue (&b, 0);             /* bit_depth_chroma_minus8 */
    put_u (&b, 1, 0);           /* qpprime_y_zero_transform_bypass */
    put_u (&b, 1, 0);           /* seq_scaling_matrix_present */
  }
  put_ue (&b, 0);               /* log2_max_frame_num_minus4 */
  put_ue (&b, d->poc_type);
  if (d->poc_type == 0)
    put_ue (&b, 2);             /* log2_max_pic_order_cnt_lsb_minus4 */
  put_ue (&b, d->refs);
  put_u (&b, 1, 0);             /* gaps_in_frame_num_value_allowed */
  put_ue (&b, d->width_mbs - 1);
  put_ue (&b, d->height_units - 1);
  put_u (&b, 1, d->frame_mbs_only);
  if (!d->frame_mbs_only)
    put_u (&b, 1, 0);           /* mb_adaptive_frame_field */
  put_u (&b, 1, 1);             /* direct_8x8_inference */
  put_u (&b, 1, 0);             /* frame_cropping */
  put_u (&b, 1, d->vui_reorder >= 0);
  if (d->vui_reorder >= 0) {
    put_u (&b, 8, 0);           /* aspect ratio, overscan, video signal,
                                 * chroma loc, timing, NAL HRD, VCL HRD,
                                 * pic_struct: none */
    put_u (&b, 1, 1);           /* bitstream_restriction */
    put_u (&b, 1, 1);           /* motion_vectors_over_pic_boundaries */
    put_ue (&b, 2);             /* max_bytes_per_pic_denom */
    put_ue (&b, 1);             /* max_bits_per_mb_denom */
    put_ue (&b, 16);            /* log2_max_mv_length_horizontal */
    put_ue (&b, 16);            /* log2_max_mv_length_vertical */
    put_ue (&b, d->vui_reorder);
    put_ue (&b, d->refs + d->vui_reorder);      /* max_dec_frame_buffering */
  }
  return finish_nal (&b, 0x67);
}

static GByteArray *
make_pps (void)
{
  Bits b = { g_byte_array_new (), 0, 0 };

  put_ue (&b, 0);               /* pic_parameter_set_id */
  put_ue (&b, 0);               /* seq_parameter_set_id */
  put_u (&b, 2, 0);             /* entropy_coding_mode, bottom_field_pic_order */
  put_ue (&b, 0);               /* num_slice_groups_minus1 */
  put_ue (&b, 0);               /* num_ref_idx_l0_default_active_minus1 */
  put_ue (&b, 0);               /* num_ref_idx_l1_default_active_minus1 */
  put_u (&b, 3, 0);             /* weighted_pred, weighted_bipred_idc */
  put_ue (&b, 0);               /* pic_init_qp_minus26 (se 0) */
  put_ue (&b, 0);               /* pic_init_qs_minus26 */
  put_ue (&b, 0);               /* chroma_qp_index_offset */
  put_u (&b, 3, 4);             /* deblocking control on, the rest off */
  return finish_nal (&b, 0x68);
}

/* An IDR I slice header for make_sps()'s SPS with poc type 0 and
 * frame_mbs_only 0 (frame_num 4 bits, POC LSB 6 bits), a field or a
 * frame, and a few bytes of slice data. */
static GByteArray *
make_slice (gboolean field)
{
  Bits b = { g_byte_array_new (), 0, 0 };

  put_ue (&b, 0);               /* first_mb_in_slice */
  put_ue (&b, 7);               /* slice_type: I, all slices */
  put_ue (&b, 0);               /* pic_parameter_set_id */
  put_u (&b, 4, 0);             /* frame_num */
  put_u (&b, 1, field);         /* field_pic_flag */
  if (field)
    put_u (&b, 1, 0);           /* bottom_field_flag */
  put_ue (&b, 0);               /* idr_pic_id */
  put_u (&b, 6, 0);             /* pic_order_cnt_lsb */
  put_u (&b, 2, 0);             /* no_output_of_prior_pics, long_term_ref */
  put_ue (&b, 0);               /* slice_qp_delta (se 0) */
  put_ue (&b, 1);               /* disable_deblocking_filter_idc */
  put_u (&b, 24, 0xa5a5a5);     /* slice data */
  return finish_nal (&b, 0x65);
}

/* An avcC record: version, @profile, compatibility, @level, 4-byte
 * lengths, one SPS, one PPS. */
static GByteArray *
make_avcc (guint8 profile, guint8 level, GByteArray * sps, GByteArray * pps)
{
  GByteArray *rec = g_byte_array_new ();
  guint8 head[6] = { 1, profile, 0, level, 0xff, 0xe1 };
  guint8 len[2] = { sps->len >> 8, sps->len };
  guint8 n_pps = 1, plen[2] = { pps->len >> 8, pps->len };

  g_byte_array_append (rec, head, sizeof (head));
  g_byte_array_append (rec, len, 2);
  g_byte_array_append (rec, sps->data, sps->len);
  g_byte_array_append (rec, &n_pps, 1);
  g_byte_array_append (rec, plen, 2);
  g_byte_array_append (rec, pps->data, pps->len);
  return rec;
}

static void
append_start_code (GByteArray * out, GByteArray * nal)
{
  static const guint8 sc[] = { 0, 0, 0, 1 };

  g_byte_array_append (out, sc, 4);
  g_byte_array_append (out, nal->data, nal->len);
}

static void
append_length (GByteArray * out, GByteArray * nal)
{
  guint8 len[4] = { nal->len >> 24, nal->len >> 16, nal->len >> 8, nal->len };

  g_byte_array_append (out, len, 4);
  g_byte_array_append (out, nal->data, nal->len);
}

/* One byte-stream packet: an access unit delimiter, the SPS, a PPS. */
static GByteArray *
byte_stream (const SpsDesc * d)
{
  static const guint8 aud[] = { 0x09, 0xf0 };
  GByteArray *out = g_byte_array_new (), *a = g_byte_array_new ();
  GByteArray *sps = make_sps (d), *pps = make_pps ();

  g_byte_array_append (a, aud, sizeof (aud));
  append_start_code (out, a);
  append_start_code (out, sps);
  append_start_code (out, pps);
  g_byte_array_unref (a);
  g_byte_array_unref (sps);
  g_byte_array_unref (pps);
  return out;
}

/* ------------------------------------------------- the stream watcher */

/* A watcher (gstavhwdecwatch.c) for H.264 in an avcC record @config (NULL:
 * byte-stream; with @nal_length_size but no record, one without parameter
 * sets: avc3). */
static GstAvhwDecWatch *
watch_new (const guint8 * config, gsize size, guint nal_length_size)
{
  guint8 empty[7] = { 1, 66, 0, 30, 0xfc | (nal_length_size - 1), 0xe0, 0 };
  GstBuffer *codec_data = NULL;
  GstCaps *caps;
  GstAvhwDecWatch *w;

  if (!config && nal_length_size) {
    config = empty;
    size = sizeof (empty);
  }
  if (config)
    codec_data = gst_buffer_new_memdup (config, size);
  caps = gst_caps_new_simple ("video/x-h264", "stream-format", G_TYPE_STRING,
      config ? "avc" : "byte-stream", "alignment", G_TYPE_STRING, "au", NULL);
  w = gst_avhw_dec_watch_new (AV_CODEC_ID_H264, caps, codec_data);
  gst_caps_unref (caps);
  if (codec_data)
    gst_buffer_unref (codec_data);
  return w;
}

/* The first SPS of @data: an avcC record when @avc_config, else one
 * packet (byte-stream, or NAL units with @nal_length_size-byte lengths),
 * as the watcher reads it. */
static gboolean
seq_find (const guint8 * data, gsize size, gboolean avc_config,
    guint nal_length_size, GstAvhwDecH264Seq * seq)
{
  GstAvhwDecWatch *w;
  GstAvhwDecUnit unit;
  const GstAvhwDecH264Seq *found;

  if (avc_config && (!data || size == 0))
    return FALSE;
  w = avc_config ? watch_new (data, size, 0) :
      watch_new (NULL, 0, nal_length_size);
  if (!avc_config)
    gst_avhw_dec_watch_scan (w, data, size, &unit);
  found = gst_avhw_dec_watch_h264_seq (w);
  if (found)
    *seq = *found;
  gst_avhw_dec_watch_free (w);
  return found != NULL;
}

/* Whether the watcher reads @data's first slice as a field. */
static gboolean
field_in (GstAvhwDecWatch * w, const guint8 * data, gsize size)
{
  GstAvhwDecUnit unit;

  gst_avhw_dec_watch_scan (w, data, size, &unit);
  return unit.field;
}

/* Whether @config is a record giving a NAL length size for cut points. */
static gboolean
length_size_usable (const guint8 * config, gsize size)
{
  GstAvhwDecWatch *w = watch_new (config, size, 0);
  gchar *why = NULL;
  gboolean ok = gst_avhw_dec_watch_cuts (w, &why);

  g_free (why);
  gst_avhw_dec_watch_free (w);
  return ok;
}

static gboolean
find_in_byte_stream (const SpsDesc * d, GstAvhwDecH264Seq * seq)
{
  GByteArray *bs = byte_stream (d);
  gboolean found = seq_find (bs->data, bs->len, FALSE, 0,
      seq);

  g_byte_array_unref (bs);
  return found;
}

/* ------------------------------------------------------------ tests */

/* MR2_TANDBERG_E: Baseline, level 3.1, QCIF, 15 reference frames,
 * pic_order_cnt_type 2, no VUI. */
static const SpsDesc mr2 = { 66, 31, 15, 2, 11, 9, TRUE, -1 };

/* Cisco_Men_whisper_640x320_*_Bframe_9: Main, level 5.2, 640x320, 5
 * reference frames, B-frames, no VUI. */
static const SpsDesc cisco = { 77, 52, 5, 0, 40, 20, TRUE, -1 };

/* FRExt4_Panasonic: High, level 2.1, 352x288 coded as fields. */
static const SpsDesc frext4 = { 100, 21, 3, 0, 22, 9, FALSE, -1 };

GST_START_TEST (test_in_order_stream)
{
  GstAvhwDecH264Seq seq;

  fail_unless (find_in_byte_stream (&mr2, &seq));
  fail_unless_equals_int (seq.refs, 15);
  /* 18000 / 99 macroblocks, at most 15 */
  fail_unless_equals_int (seq.level_reorder, 15);
  fail_unless (seq.in_order);
  fail_if (seq.restricted);
  fail_if (seq.field_coded);
  /* 15 + 15 + 2 pictures: not in the H200's 17 Vulkan slots; shown in
   * decoding order, so no reorder depth at all */
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 17), 0);
  /* no slot count known, or enough slots: strict compliance stays */
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 0), -1);
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 32), -1);
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 31), 0);
}

GST_END_TEST;

GST_START_TEST (test_reordered_stream)
{
  GstAvhwDecH264Seq seq;

  fail_unless (find_in_byte_stream (&cisco, &seq));
  fail_unless_equals_int (seq.refs, 5);
  fail_unless_equals_int (seq.level_reorder, 15);       /* 184320 / 800 */
  fail_if (seq.in_order);
  fail_if (seq.field_coded);
  /* 17 slots: 2 busy, 5 references, 10 left to reorder */
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 17), 10);
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 22), -1);
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 21), 14);
  /* references alone fill the slots: no depth left */
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 7), 0);
}

GST_END_TEST;

GST_START_TEST (test_field_coded_stream)
{
  GstAvhwDecH264Seq seq;

  fail_unless (find_in_byte_stream (&frext4, &seq));
  fail_unless (seq.field_coded);
  fail_unless_equals_int (seq.refs, 3);
  /* 4752 / (22 x 9 x 2) macroblocks */
  fail_unless_equals_int (seq.level_reorder, 12);
}

GST_END_TEST;

/* Field pictures are told from MBAFF or progressive frames slice by slice,
 * with the parameter sets of the stream or of the avcC record. */
GST_START_TEST (test_field_pictures_watched)
{
  GByteArray *sps = make_sps (&frext4), *pps = make_pps ();
  GByteArray *frame = make_slice (FALSE), *field = make_slice (TRUE);
  GByteArray *first = g_byte_array_new (), *pkt = g_byte_array_new ();
  GByteArray *rec = make_avcc (100, 21, sps, pps);
  GstAvhwDecWatch *w = watch_new (NULL, 0, 0);

  /* byte-stream: parameter sets, then a frame; then a field; a frame */
  append_start_code (first, sps);
  append_start_code (first, pps);
  append_start_code (first, frame);
  fail_if (field_in (w, first->data, first->len));
  append_start_code (pkt, field);
  fail_unless (field_in (w, pkt->data, pkt->len));
  g_byte_array_set_size (pkt, 0);
  append_start_code (pkt, frame);
  fail_if (field_in (w, pkt->data, pkt->len));
  /* no slice, or damaged: not a field */
  fail_if (field_in (w, sps->data, 0));
  fail_if (field_in (w, pkt->data, 6));
  gst_avhw_dec_watch_free (w);

  /* avc: the record's parameter sets, 4-byte lengths */
  w = watch_new (rec->data, rec->len, 0);
  g_byte_array_set_size (pkt, 0);
  append_length (pkt, field);
  fail_unless (field_in (w, pkt->data, pkt->len));
  g_byte_array_set_size (pkt, 0);
  append_length (pkt, frame);
  fail_if (field_in (w, pkt->data, pkt->len));
  gst_avhw_dec_watch_free (w);

  /* without parameter sets, a slice cannot be read: not a field */
  w = watch_new (NULL, 0, 0);
  g_byte_array_set_size (pkt, 0);
  append_start_code (pkt, field);
  fail_if (field_in (w, pkt->data, pkt->len));
  gst_avhw_dec_watch_free (w);

  g_byte_array_unref (sps);
  g_byte_array_unref (pps);
  g_byte_array_unref (frame);
  g_byte_array_unref (field);
  g_byte_array_unref (first);
  g_byte_array_unref (pkt);
  g_byte_array_unref (rec);
}

GST_END_TEST;

GST_START_TEST (test_levels)
{
  /* a level FFmpeg's table lacks (1b as 9, 6.0) takes the largest depth;
   * 1080p at 4.1: 32768 / 8160 = 4 */
  SpsDesc d = { 77, 9, 1, 0, 11, 9, TRUE, -1 };
  GstAvhwDecH264Seq seq;

  fail_unless (find_in_byte_stream (&d, &seq));
  fail_unless_equals_int (seq.level_reorder, 15);
  d.level = 60;
  fail_unless (find_in_byte_stream (&d, &seq));
  fail_unless_equals_int (seq.level_reorder, 15);
  d.level = 41;
  d.width_mbs = 120;
  d.height_units = 68;
  fail_unless (find_in_byte_stream (&d, &seq));
  fail_unless_equals_int (seq.level_reorder, 4);
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 17), -1);
}

GST_END_TEST;

GST_START_TEST (test_vui_restriction)
{
  /* the stream says its depth: FFmpeg takes it in any mode, nothing to
   * choose even where the level's depth would not fit */
  SpsDesc d = mr2;
  GstAvhwDecH264Seq seq;

  d.vui_reorder = 0;
  fail_unless (find_in_byte_stream (&d, &seq));
  fail_unless (seq.restricted);
  fail_unless_equals_int (seq.refs, 15);
  fail_unless_equals_int (gst_avhw_dec_h264_reorder_for (&seq, 17), -1);
}

GST_END_TEST;

GST_START_TEST (test_avc_forms)
{
  GByteArray *sps = make_sps (&mr2), *pps = make_pps ();
  GByteArray *rec = make_avcc (66, 31, sps, pps), *pkt = g_byte_array_new ();
  GstAvhwDecH264Seq seq;

  fail_unless (length_size_usable (rec->data, rec->len));
  memset (&seq, 0, sizeof (seq));
  fail_unless (seq_find (rec->data, rec->len, TRUE, 0, &seq));
  fail_unless_equals_int (seq.refs, 15);
  fail_unless (seq.in_order);

  /* an avc3 packet: parameter sets in band, 4-byte lengths */
  append_length (pkt, pps);
  append_length (pkt, sps);
  memset (&seq, 0, sizeof (seq));
  fail_unless (seq_find (pkt->data, pkt->len, FALSE, 4, &seq));
  fail_unless_equals_int (seq.refs, 15);

  /* not a record */
  fail_if (length_size_usable (pkt->data, pkt->len));
  fail_if (seq_find (pkt->data, pkt->len, TRUE, 0, &seq));

  g_byte_array_unref (rec);
  g_byte_array_unref (pkt);
  g_byte_array_unref (sps);
  g_byte_array_unref (pps);
}

GST_END_TEST;

GST_START_TEST (test_damaged_input)
{
  GByteArray *bs = byte_stream (&cisco);
  static const guint8 slice_only[] = { 0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00 };
  GstAvhwDecH264Seq seq;
  guint cut;

  fail_if (seq_find (NULL, 0, FALSE, 0, &seq));
  fail_if (seq_find (slice_only, sizeof (slice_only), FALSE, 0, &seq));
  /* every truncation of the packet: found or not, never a crash */
  for (cut = 0; cut < bs->len; cut++)
    seq_find (bs->data, cut, FALSE, 0, &seq);
  /* lengths that run past the packet */
  fail_if (seq_find (bs->data, bs->len, FALSE, 4, &seq));
  /* noise */
  {
    GRand *r = g_rand_new_with_seed (7);
    guint8 buf[256];
    guint i, k;

    for (k = 0; k < 200; k++) {
      for (i = 0; i < sizeof (buf); i++)
        buf[i] = g_rand_int (r);
      seq_find (buf, sizeof (buf), k & 1, (k & 2) ? 4 : 0, &seq);
    }
    g_rand_free (r);
  }
  g_byte_array_unref (bs);
}

GST_END_TEST;

/* x264's SPS through a real encoder: VUI with bitstream_restriction, and
 * field coding where asked for. */
static gboolean
x264_first_sps (const gchar * options, const gchar * interlace,
    GstAvhwDecH264Seq * seq)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=I420,width=176,height=144,framerate=25/1,"
      "interlace-mode=%s ! x264enc %s ! "
      "video/x-h264,stream-format=byte-stream ! appsink name=sink sync=false",
      interlace, options);
  GstElement *p = gst_parse_launch (desc, NULL), *sink;
  GstSample *s;
  gboolean found = FALSE;
  GstAvhwDecWatch *w = watch_new (NULL, 0, 0);

  g_free (desc);
  fail_unless (p != NULL);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  g_signal_emit_by_name (sink, "pull-sample", &s);
  if (s) {
    GstMapInfo map;
    GstBuffer *buf = gst_sample_get_buffer (s);

    gst_buffer_map (buf, &map, GST_MAP_READ);
    found = seq_find (map.data, map.size, FALSE, 0, seq);
    /* x264 codes interlaced input as MBAFF frames, never as fields */
    fail_if (field_in (w, map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_avhw_dec_watch_free (w);
  gst_object_unref (sink);
  gst_object_unref (p);
  return found;
}

GST_START_TEST (test_x264_sps)
{
  GstAvhwDecH264Seq seq;
  GstElementFactory *f = gst_element_factory_find ("x264enc");

  fail_unless (f != NULL, "x264enc (gstreamer1.0-plugins-ugly) is needed");
  gst_object_unref (f);
  fail_unless (x264_first_sps ("speed-preset=ultrafast key-int-max=10 ref=3",
          "progressive", &seq));
  fail_unless (seq.restricted);
  fail_if (seq.field_coded);
  fail_unless_equals_int (seq.refs, 3);
  /* x264enc codes interlaced input as fields */
  fail_unless (x264_first_sps ("speed-preset=ultrafast", "interleaved", &seq));
  fail_unless (seq.field_coded);
}

GST_END_TEST;

static Suite *
avhwdec_h264_suite (void)
{
  Suite *s = suite_create ("avhwdec-h264");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_in_order_stream);
  tcase_add_test (tc, test_reordered_stream);
  tcase_add_test (tc, test_field_coded_stream);
  tcase_add_test (tc, test_field_pictures_watched);
  tcase_add_test (tc, test_levels);
  tcase_add_test (tc, test_vui_restriction);
  tcase_add_test (tc, test_avc_forms);
  tcase_add_test (tc, test_damaged_input);
  tcase_add_test (tc, test_x264_sps);
  return s;
}

GST_CHECK_MAIN (avhwdec_h264);
