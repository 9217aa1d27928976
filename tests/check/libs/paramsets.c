/* gst-avhw tests: a stream's parameter sets from its codec data, as NAL
 * units of the stream (gst/avhw/codecs/gstavhwdecparamsets.c)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Against FFmpeg's own MP4 output (encbitstream-vectors.h): the parameter
 * sets of an avcC or hvcC record, length-prefixed, are the first NAL units
 * of FFmpeg's first MP4 sample of the same stream (SPS and PPS; VPS, SPS
 * and PPS), byte for byte; other codec data gives none. A kept decoder's
 * first packet gets the codec data as side data and those NAL units
 * before its own.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include "gstavhwdecparamsets.h"
#include "encbitstream-vectors.h"

/* @record's parameter sets are @n_units NAL units at the start of
 * @sample, and nothing more */
static void
assert_prefix (enum AVCodecID id, const guint8 * record, gsize record_size,
    const guint8 * sample, gsize sample_size, guint n_units)
{
  GBytes *b = gst_avhw_dec_param_sets_inband (record, record_size, id);
  const guint8 *d;
  gsize n, at = 0;
  guint units = 0;

  fail_unless (b != NULL);
  d = g_bytes_get_data (b, &n);
  fail_unless (n <= sample_size && memcmp (d, sample, n) == 0,
      "not the sample's first %" G_GSIZE_FORMAT " bytes", n);
  while (at + 4 <= n) {
    at += 4 + ((d[at] << 24) | (d[at + 1] << 16) | (d[at + 2] << 8) |
        d[at + 3]);
    units++;
  }
  fail_unless_equals_int ((gint) at, (gint) n);
  fail_unless_equals_int (units, n_units);
  g_bytes_unref (b);
}

GST_START_TEST (test_avcc)
{
  assert_prefix (AV_CODEC_ID_H264, h264_baseline_record,
      sizeof (h264_baseline_record), h264_baseline_sample,
      sizeof (h264_baseline_sample), 2);
}

GST_END_TEST;

GST_START_TEST (test_hvcc)
{
  assert_prefix (AV_CODEC_ID_HEVC, h265_main_record,
      sizeof (h265_main_record), h265_main_sample, sizeof (h265_main_sample),
      3);
}

GST_END_TEST;

/* lengthSizeMinusOne 1: two-byte lengths, as the record says */
GST_START_TEST (test_two_byte_lengths)
{
  guint8 rec[sizeof (h264_baseline_record)];
  GBytes *b;
  const guint8 *d;
  gsize n;

  memcpy (rec, h264_baseline_record, sizeof (rec));
  rec[4] = 0xfd;
  b = gst_avhw_dec_param_sets_inband (rec, sizeof (rec), AV_CODEC_ID_H264);
  fail_unless (b != NULL);
  d = g_bytes_get_data (b, &n);
  /* SPS 0x16 bytes, PPS 5, each behind two bytes */
  fail_unless_equals_int ((gint) n, 2 + 0x16 + 2 + 5);
  fail_unless (d[0] == 0x00 && d[1] == 0x16 && d[2] == 0x67);
  fail_unless (d[2 + 0x16] == 0x00 && d[3 + 0x16] == 0x05);
  g_bytes_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_not_a_record)
{
  static const guint8 annexb[] = { 0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x0a };

  /* Annex B codec data, a cut record, another codec: none */
  fail_unless (gst_avhw_dec_param_sets_inband (annexb, sizeof (annexb),
          AV_CODEC_ID_H264) == NULL);
  fail_unless (gst_avhw_dec_param_sets_inband (h264_baseline_record, 20,
          AV_CODEC_ID_H264) == NULL);
  fail_unless (gst_avhw_dec_param_sets_inband (h265_main_record, 30,
          AV_CODEC_ID_HEVC) == NULL);
  fail_unless (gst_avhw_dec_param_sets_inband (h264_baseline_record,
          sizeof (h264_baseline_record), AV_CODEC_ID_AV1) == NULL);
  fail_unless (gst_avhw_dec_param_sets_inband (NULL, 0,
          AV_CODEC_ID_H264) == NULL);
}

GST_END_TEST;

/* a kept decoder's first packet: the codec data as side data, its
 * parameter sets before the packet's own data; Annex B codec data only as
 * side data */
GST_START_TEST (test_give)
{
  static const guint8 slice[] = { 0, 0, 0, 3, 0x65, 0x88, 0x84 };
  static const guint8 annexb[] = { 0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x0a };
  AVPacket *pkt = av_packet_alloc ();
  const guint8 *side;
  size_t side_size;
  gsize n;

  fail_unless (av_new_packet (pkt, sizeof (slice)) == 0);
  memcpy (pkt->data, slice, sizeof (slice));
  n = gst_avhw_dec_param_sets_give (pkt, h264_baseline_record,
      sizeof (h264_baseline_record), AV_CODEC_ID_H264);
  /* SPS and PPS behind four-byte lengths */
  fail_unless_equals_int ((gint) n, 4 + 0x16 + 4 + 5);
  fail_unless_equals_int (pkt->size, (gint) (n + sizeof (slice)));
  fail_unless (memcmp (pkt->data, h264_baseline_sample, n) == 0);
  fail_unless (memcmp (pkt->data + n, slice, sizeof (slice)) == 0);
  side = av_packet_get_side_data (pkt, AV_PKT_DATA_NEW_EXTRADATA, &side_size);
  fail_unless (side != NULL);
  fail_unless_equals_int ((gint) side_size, sizeof (h264_baseline_record));
  fail_unless (memcmp (side, h264_baseline_record, side_size) == 0);
  av_packet_free (&pkt);

  pkt = av_packet_alloc ();
  fail_unless (av_new_packet (pkt, sizeof (slice)) == 0);
  memcpy (pkt->data, slice, sizeof (slice));
  fail_unless_equals_int ((gint) gst_avhw_dec_param_sets_give (pkt, annexb,
          sizeof (annexb), AV_CODEC_ID_H264), 0);
  fail_unless_equals_int (pkt->size, sizeof (slice));
  fail_unless (memcmp (pkt->data, slice, sizeof (slice)) == 0);
  fail_unless (av_packet_get_side_data (pkt, AV_PKT_DATA_NEW_EXTRADATA,
          NULL) != NULL);
  av_packet_free (&pkt);
}

GST_END_TEST;

static Suite *
paramsets_suite (void)
{
  Suite *s = suite_create ("paramsets");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_avcc);
  tcase_add_test (tc, test_hvcc);
  tcase_add_test (tc, test_two_byte_lengths);
  tcase_add_test (tc, test_not_a_record);
  tcase_add_test (tc, test_give);
  return s;
}

GST_CHECK_MAIN (paramsets);
