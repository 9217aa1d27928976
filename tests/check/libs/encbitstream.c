/* gst-avhw tests: avhwenc's bitstream helpers (gstavhwencbitstream.c)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What avhwenc makes of an encoder's first access unit, held against
 * FFmpeg and GStreamer on real streams (encbitstream-vectors.h, written by
 * encbitstream-vectors.py: libx264 baseline to high444, libx265 main to
 * main444-8, libaom-av1 4:2:0 and 4:4:4):
 * - the avcC / hvcC / av1C record, byte for byte as FFmpeg's MP4 muxer
 *   writes it (so High 4:4:4 Predictive, profile 244, has the chroma
 *   format and bit depth fields that the 5th edition of ISO/IEC 14496-15
 *   left out);
 * - the caps' profile, level and tier, as h264parse, h265parse and
 *   av1parse set them (av1parse: the profile), from the access unit and
 *   from the record;
 * - length-prefixed NAL units, byte for byte as FFmpeg's MP4 sample;
 * - the same record from the parameter sets alone (an encoder's
 *   extradata); no record and no caps from what lacks a parameter set.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include "gstavhwencbitstream.h"
#include "encbitstream-vectors.h"

static void
assert_bytes (const gchar * what, GstBuffer * buf, const guint8 * want,
    gsize want_size)
{
  GstMapInfo map;
  gchar *got_hex, *want_hex;

  fail_unless (buf != NULL, "%s: nothing", what);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  if (map.size != want_size || memcmp (map.data, want, want_size) != 0) {
    GString *g = g_string_new (NULL), *w = g_string_new (NULL);
    gsize i;

    for (i = 0; i < map.size; i++)
      g_string_append_printf (g, "%02x", map.data[i]);
    for (i = 0; i < want_size; i++)
      g_string_append_printf (w, "%02x", want[i]);
    got_hex = g_string_free (g, FALSE);
    want_hex = g_string_free (w, FALSE);
    fail ("%s:\n got  %s\n want %s", what, got_hex, want_hex);
  }
  gst_buffer_unmap (buf, &map);
}

static const gchar *
caps_name (enum AVCodecID codec_id)
{
  return codec_id == AV_CODEC_ID_H264 ? "video/x-h264" :
      codec_id == AV_CODEC_ID_HEVC ? "video/x-h265" : "video/x-av1";
}

static void
assert_field (const gchar * what, const GstStructure * s, const gchar * field,
    const gchar * want)
{
  const gchar *got = gst_structure_get_string (s, field);

  fail_unless (g_strcmp0 (got, want) == 0, "%s: %s %s, the parser's %s",
      what, field, GST_STR_NULL (got), GST_STR_NULL (want));
}

/* gst_avhw_enc_caps_set_profile_level on @data against the parser's. */
static void
check_caps (const Vector * v, const gchar * from, const guint8 * data,
    gsize size)
{
  GstCaps *caps = gst_caps_new_empty_simple (caps_name (v->codec_id));
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gchar *what = g_strdup_printf ("%s, from its %s", v->name, from);

  fail_unless (gst_avhw_enc_caps_set_profile_level (caps, v->codec_id, data,
          size), "%s: no profile or level", what);
  assert_field (what, s, "profile", v->profile);
  assert_field (what, s, "level", v->level);
  assert_field (what, s, "tier", v->tier);
  g_free (what);
  gst_caps_unref (caps);
}

GST_START_TEST (records_as_ffmpeg_writes_them)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (vectors); i++) {
    const Vector *v = &vectors[i];
    GstBuffer *rec = gst_avhw_enc_make_codec_data (v->codec_id, v->au,
        v->au_size);
    gchar *what = g_strdup_printf ("%s record", v->name);

    assert_bytes (what, rec, v->record, v->record_size);
    gst_buffer_unref (rec);
    /* an encoder whose extradata is the record already */
    rec = gst_avhw_enc_make_codec_data (v->codec_id, v->record, v->record_size);
    assert_bytes (what, rec, v->record, v->record_size);
    gst_buffer_unref (rec);
    g_free (what);
  }
}

GST_END_TEST;

GST_START_TEST (caps_as_the_parsers_set_them)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (vectors); i++) {
    const Vector *v = &vectors[i];

    check_caps (v, "access unit", v->au, v->au_size);
    check_caps (v, "record", v->record, v->record_size);
  }
}

GST_END_TEST;

GST_START_TEST (length_prefixed_as_ffmpeg_writes_it)
{
  /* an access unit delimiter, an end of sequence NAL unit (1 byte) and
   * trailing zeros, with 3- and 4-byte start codes */
  static const guint8 annexb[] = {
    0x00, 0x00, 0x01, 0x09, 0xf0, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00,
  };
  static const guint8 prefixed[] = {
    0x00, 0x00, 0x00, 0x02, 0x09, 0xf0, 0x00, 0x00, 0x00, 0x01, 0x0a,
  };
  GstBuffer *buf;
  guint i, n = 0;

  for (i = 0; i < G_N_ELEMENTS (vectors); i++) {
    const Vector *v = &vectors[i];
    gchar *what;

    if (!v->sample)
      continue;
    what = g_strdup_printf ("%s sample", v->name);
    buf = gst_avhw_enc_annexb_to_length_prefixed (v->au, v->au_size);
    assert_bytes (what, buf, v->sample, v->sample_size);
    gst_buffer_unref (buf);
    g_free (what);
    n++;
  }
  fail_unless_equals_int (n, 2);
  buf = gst_avhw_enc_annexb_to_length_prefixed (annexb, sizeof (annexb));
  assert_bytes ("delimiter and end of sequence", buf, prefixed,
      sizeof (prefixed));
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* Annex B of the NAL units of @v's avcC/hvcC record whose type is in
 * @types (-1 ends it), each after a 4-byte start code. */
static GByteArray *
nals_from_record (const Vector * v, const gint * types)
{
  static const guint8 sc[] = { 0, 0, 0, 1 };
  GByteArray *out = g_byte_array_new ();
  const guint8 *r = v->record;
  gboolean hevc = v->codec_id == AV_CODEC_ID_HEVC;
  gsize pos = hevc ? 23 : 5;
  guint n_arrays = hevc ? r[22] : 2, a, i, n;

  for (a = 0; a < n_arrays; a++) {
    if (hevc) {
      n = GST_READ_UINT16_BE (r + pos + 1);
      pos += 3;
    } else {
      n = r[pos] & (a == 0 ? 0x1f : 0xff);
      pos += 1;
    }
    for (i = 0; i < n; i++) {
      guint len = GST_READ_UINT16_BE (r + pos);
      const guint8 *nal = r + pos + 2;
      gint type = hevc ? (nal[0] >> 1) & 0x3f : nal[0] & 0x1f;
      guint t;

      for (t = 0; types[t] >= 0; t++) {
        if (types[t] == type) {
          g_byte_array_append (out, sc, 4);
          g_byte_array_append (out, nal, len);
        }
      }
      pos += 2 + len;
    }
  }
  return out;
}

GST_START_TEST (parameter_sets_alone_or_missing)
{
  static const gint h264_sps[] = { 7, -1 }, h264_pps[] = { 8, -1 };
  static const gint h265_sps[] = { 32, 33, -1 }, h265_pps[] = { 34, -1 };
  /* a temporal delimiter OBU: no sequence header */
  static const guint8 td[] = { 0x12, 0x00 };
  /* a start code and bytes that are no SPS */
  static const guint8 junk[] = { 0x00, 0x00, 0x01, 0x67, 0xff };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (vectors); i++) {
    const Vector *v = &vectors[i];
    gboolean hevc = v->codec_id == AV_CODEC_ID_HEVC;
    GstCaps *caps;
    GstBuffer *rec;
    GByteArray *sps, *pps;

    if (v->codec_id == AV_CODEC_ID_AV1)
      continue;
    caps = gst_caps_new_empty_simple (caps_name (v->codec_id));
    sps = nals_from_record (v, hevc ? h265_sps : h264_sps);
    pps = nals_from_record (v, hevc ? h265_pps : h264_pps);
    fail_unless (sps->len > 0 && pps->len > 0);
    fail_unless (gst_avhw_enc_make_codec_data (v->codec_id, sps->data,
            sps->len) == NULL, "%s: a record without a PPS", v->name);
    fail_unless (gst_avhw_enc_make_codec_data (v->codec_id, pps->data,
            pps->len) == NULL, "%s: a record without an SPS", v->name);
    fail_if (gst_avhw_enc_caps_set_profile_level (caps, v->codec_id,
            pps->data, pps->len), "%s: caps without an SPS", v->name);
    fail_if (gst_structure_has_field (gst_caps_get_structure (caps, 0),
            "profile"));
    /* the SPS alone is enough for the caps */
    fail_unless (gst_avhw_enc_caps_set_profile_level (caps, v->codec_id,
            sps->data, sps->len), "%s: no caps from the SPS", v->name);
    assert_field (v->name, gst_caps_get_structure (caps, 0), "profile",
        v->profile);
    /* the parameter sets alone (an encoder's extradata): the same record */
    g_byte_array_append (sps, pps->data, pps->len);
    rec = gst_avhw_enc_make_codec_data (v->codec_id, sps->data, sps->len);
    assert_bytes (v->name, rec, v->record, v->record_size);
    gst_buffer_unref (rec);
    g_byte_array_unref (sps);
    g_byte_array_unref (pps);
    gst_caps_unref (caps);
  }
  fail_unless (gst_avhw_enc_make_codec_data (AV_CODEC_ID_AV1, td,
          sizeof (td)) == NULL);
  fail_unless (gst_avhw_enc_make_codec_data (AV_CODEC_ID_H264, junk,
          sizeof (junk)) == NULL);
  fail_unless (gst_avhw_enc_make_codec_data (AV_CODEC_ID_H264, NULL,
          0) == NULL);
}

GST_END_TEST;

GST_START_TEST (annexb_or_not)
{
  static const guint8 sc3[] = { 0, 0, 1, 0x67 }, sc4[] = { 0, 0, 0, 1, 0x67 };
  static const guint8 len[] = { 0, 0, 0, 0x10, 0x67 };

  fail_unless (gst_avhw_enc_is_annexb (sc3, sizeof (sc3)));
  fail_unless (gst_avhw_enc_is_annexb (sc4, sizeof (sc4)));
  fail_if (gst_avhw_enc_is_annexb (len, sizeof (len)));
  fail_if (gst_avhw_enc_is_annexb (sc3, 2));
}

GST_END_TEST;

static Suite *
encbitstream_suite (void)
{
  Suite *s = suite_create ("avhwencbitstream");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, records_as_ffmpeg_writes_them);
  tcase_add_test (tc, caps_as_the_parsers_set_them);
  tcase_add_test (tc, length_prefixed_as_ffmpeg_writes_it);
  tcase_add_test (tc, parameter_sets_alone_or_missing);
  tcase_add_test (tc, annexb_or_not);
  return s;
}

GST_CHECK_MAIN (encbitstream);
