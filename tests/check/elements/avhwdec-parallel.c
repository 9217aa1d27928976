/* gst-avhw tests: avhwdec parallel > 1 (GOP-parallel decoding)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every stream (H.264, H.265, VP9, AV1) decoded with parallel=4 gives the frames, hashes and
 * timestamps of parallel=1; the segments it was cut into and the sessions
 * that decoded it are read from avhwdec's stats property, so a build that
 * does not cut fails.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <glib/gstdio.h>
#include <gst/check/gstharness.h>
#include "decode-common.c"

/* the sessions of the last parallel=4 decode (its stats) */
static guint sessions;

/* Set: each decode of check_same() starts without kept decoders. A
 * hardware decoder kept from another stream may have a deeper reorder
 * buffer than a new one (gst_avhw_decoder_key_fits()), which changes what
 * FFmpeg makes of a damaged stream (one frame more or less; seen on the
 * H200, run 70), so damaged streams compare decoders opened alike. */
static gboolean fresh_decoders;

/* Decodes "@src ! avhwdec parallel=N @opts ! avhwdownload" with N = 1 and
 * 4; both give the same frames. Returns the segments parallel=4 cut. */
static gint
check_same (const gchar * src, const gchar * opts, guint * frames)
{
  DecodeResult one, four;
  gchar *desc;

  if (fresh_decoders)
    gst_avhw_cache_clear ();
  desc = g_strdup_printf ("%s ! avhwdec name=dec parallel=1 %s ! "
      "avhwdownload", src, opts);
  decode (desc, &one);
  g_free (desc);
  fail_unless (one.error == NULL, "%s", one.error);
  fail_unless (one.frames > 0);

  fail_unless_equals_int (one.sessions, 1);
  fail_unless_equals_int (one.segments, 0);
  if (fresh_decoders)
    gst_avhw_cache_clear ();
  desc = g_strdup_printf ("%s ! avhwdec name=dec parallel=4 %s ! "
      "avhwdownload", src, opts);
  decode (desc, &four);
  fail_unless (four.error == NULL, "%s: %s", desc, four.error);
  fail_unless_equals_int (four.frames, one.frames);
  fail_unless_equals_int (four.caps_changes, one.caps_changes);
  fail_unless_equals_string (g_checksum_get_string (four.md5),
      g_checksum_get_string (one.md5));
  fail_unless_equals_uint64 (four.last_pts, one.last_pts);
  fail_unless (four.pts_monotonic, "%s: timestamps not increasing", desc);
  g_print ("%s: %u frames bit-exact, %u sessions, %u segments\n", desc,
      four.frames, four.sessions, four.segments);
  g_free (desc);
  if (frames)
    *frames = four.frames;
  sessions = four.sessions;
  result_clear (&one);
  result_clear (&four);
  return four.segments;
}

static gint
check_file (const gchar * path, const gchar * parse, const gchar * opts)
{
  gchar *src = g_strdup_printf ("filesrc location=%s ! %s", path, parse);
  gint n = check_same (src, opts, NULL);

  g_free (src);
  return n;
}

#define I420_320 "video/x-raw,format=I420,width=320,height=240,framerate=25/1"

GST_START_TEST (test_h264_formats)
{
  gchar *bs = make_clip ("gop.h264", I420_320,
      "key-int-max=20 bframes=2 speed-preset=ultrafast", 130);
  gchar *mkv = make_clip ("gop.mkv", I420_320,
      "key-int-max=20 bframes=2 speed-preset=ultrafast", 130);

  /* byte-stream, parameter sets in-band; avc, from codec_data */
  fail_unless (check_file (bs, "h264parse", "") >= 6);
  fail_unless (check_file (mkv, "matroskademux ! h264parse", "") >= 6);
  /* one frame may wait: later sessions stop, nothing hangs or is lost */
  fail_unless (check_file (bs, "h264parse", "max-buffered=1") >= 6);
  g_free (bs);
  g_free (mkv);
}

GST_END_TEST;

/* Decodes @aus (access units) pushed straight into avhwdec, caps without
 * codec_data; returns the md5 of the output. */
static gchar *
harness_md5 (GPtrArray * aus, const gchar * parallel, guint * frames,
    guint * segments)
{
  GstStructure *stats = NULL;
  GstHarness *h = gst_harness_new ("avhwdec");
  GChecksum *md5 = g_checksum_new (G_CHECKSUM_MD5);
  GstBuffer *buf;
  GstMapInfo map;
  gchar *sum;
  guint i;

  gst_util_set_object_arg (G_OBJECT (h->element), "parallel", parallel);
  gst_harness_set_src_caps_str (h, "video/x-h264,stream-format=byte-stream,"
      "alignment=au,width=320,height=240,framerate=25/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  for (i = 0; i < aus->len; i++) {
    buf = gst_buffer_copy (g_ptr_array_index (aus, i));
    GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = i * 40 * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  *frames = 0;
  while ((buf = gst_harness_try_pull (h))) {
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_checksum_update (md5, map.data, map.size);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
    (*frames)++;
  }
  g_object_get (h->element, "stats", &stats, NULL);
  fail_unless (stats && gst_structure_get_uint (stats, "segments", segments));
  gst_structure_free (stats);
  gst_harness_teardown (h);
  sum = g_strdup (g_checksum_get_string (md5));
  g_checksum_free (md5);
  return sum;
}

/* Parameter sets only at the start, no codec_data: a session starting
 * later gets them. x264enc repeats them at every IDR; the copy keeps the
 * first SPS and PPS (in a byte stream a unit runs to the next 00 00 01;
 * an access unit starts at its delimiter, type 9). */
GST_START_TEST (test_h264_headers_once)
{
  gchar *p = make_clip ("rep.h264", I420_320,
      "key-int-max=20 bframes=0 aud=true speed-preset=ultrafast", 100);
  GPtrArray *aus = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GByteArray *au = NULL;
  guint8 *d;
  gsize len, i, unit = 0;
  guint dropped = 0, seen = 0, type, n1, n4, segs;
  gboolean slice = FALSE;
  gchar *one, *four;

  fail_unless (g_file_get_contents (p, (gchar **) & d, &len, NULL));
  for (i = 0; i <= len; i++) {
    if (i < len && !(i + 3 <= len && d[i] == 0 && d[i + 1] == 0
            && d[i + 2] == 1))
      continue;
    if (i > unit && unit + 3 < len && d[unit] == 0 && d[unit + 1] == 0
        && d[unit + 2] == 1) {
      type = d[unit + 3] & 0x1f;
      if (!au || (type == 9 && slice)) {
        if (au) {
          g_ptr_array_add (aus, gst_buffer_new_wrapped (au->data, au->len));
          g_byte_array_free (au, FALSE);
        }
        au = g_byte_array_new ();
        slice = FALSE;
      }
      slice |= type == 1 || type == 5;
      if ((type == 7 || type == 8) && (seen & (1 << type)))
        dropped++;
      else
        g_byte_array_append (au, d + unit, i - unit);
      if (type == 7 || type == 8)
        seen |= 1 << type;
    }
    unit = i;
    i += 2;
  }
  g_ptr_array_add (aus, gst_buffer_new_wrapped (au->data, au->len));
  g_byte_array_free (au, FALSE);
  fail_unless (dropped >= 8, "%u parameter sets dropped", dropped);
  fail_unless_equals_int (aus->len, 100);

  one = harness_md5 (aus, "1", &n1, &segs);
  fail_unless_equals_int (segs, 0);
  four = harness_md5 (aus, "4", &n4, &segs);
  g_print ("parameter sets once, no codec_data: %u frames, %u segments\n",
      n4, segs);
  fail_unless_equals_int (n1, 100);
  fail_unless_equals_int (n4, n1);
  fail_unless_equals_string (four, one);
  fail_unless (segs >= 5);
  g_ptr_array_unref (aus);
  g_free (one);
  g_free (four);
  g_free (d);
  g_free (p);
}

GST_END_TEST;

/* FALSE, saying so (@why), when one of the elements named after it
 * (NULL-terminated) is missing: the suite leaves that case out. */
static gboolean
have_elements (const gchar * why, ...)
{
  const gchar *name;
  gboolean ok = TRUE;
  va_list args;

  va_start (args, why);
  while ((name = va_arg (args, const gchar *)))
  {
    GstElementFactory *f = gst_element_factory_find (name);

    ok &= f != NULL;
    gst_clear_object (&f);
  }
  va_end (args);
  if (!ok)
    g_print ("case left out: needs %s\n", why);
  return ok;
}

GST_START_TEST (test_h265)
{
  gchar *p;

  p = make_clip_with ("gop.h265", I420_320, "x265enc speed-preset=ultrafast "
      "key-int-max=20 option-string=bframes=3:open-gop=0 ! h265parse", 130);
  fail_unless (check_file (p, "h265parse ! video/x-h265,stream-format=hvc1",
          "") >= 6);
  fail_unless (check_file (p, "h265parse ! "
          "video/x-h265,stream-format=byte-stream", "") >= 6);
  g_free (p);
}

GST_END_TEST;

/* VP9 cuts at shown key frames. */
GST_START_TEST (test_vp9)
{
  gchar *src;

  src = g_strdup_printf ("videotestsrc num-buffers=100 pattern=ball ! %s ! "
      "vp9enc deadline=1 keyframe-max-dist=20", I420_320);
  fail_unless (check_same (src, "", NULL) >= 5);
  g_free (src);
}

GST_END_TEST;

/* AV1 cuts at temporal units that start with a shown key frame. */
GST_START_TEST (test_av1)
{
  gchar *src;

  src = g_strdup_printf ("videotestsrc num-buffers=100 pattern=ball ! "
      "video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! "
      "av1enc cpu-used=8 keyframe-max-dist=20 ! av1parse");
  fail_unless (check_same (src, "", NULL) >= 3);
  g_free (src);
}

GST_END_TEST;

/* Resolution changes at a cut: caps change in order, every frame out. */
GST_START_TEST (test_resolution_change)
{
  const gchar *opts = "key-int-max=10 bframes=1 speed-preset=ultrafast";
  gchar *a = make_clip ("ra.h264", I420_320, opts, 40);
  gchar *b = make_clip ("rb.h264",
      "video/x-raw,format=I420,width=176,height=144,framerate=25/1", opts, 40);
  gchar *cat = g_build_filename (tmpdir, "rab.h264", NULL);
  gchar *da, *db, *all;
  gsize la, lb;

  fail_unless (g_file_get_contents (a, &da, &la, NULL));
  fail_unless (g_file_get_contents (b, &db, &lb, NULL));
  all = g_malloc (2 * la + lb);
  memcpy (all, da, la);
  memcpy (all + la, db, lb);
  memcpy (all + la + lb, da, la);
  fail_unless (g_file_set_contents (cat, all, 2 * la + lb, NULL));
  fail_unless (check_file (cat, "h264parse", "") >= 4);
  g_free (da);
  g_free (db);
  g_free (all);
  g_free (cat);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* Damage in one segment: parallel=4 gives what parallel=1 gives (errors
 * counted in order, concealed frames the same) or both end in an error;
 * garbage and truncation end without a hang. */
GST_START_TEST (test_corrupt)
{
  gchar *p = make_clip ("bad.h264", I420_320,
      "key-int-max=10 speed-preset=ultrafast", 60);
  gchar *data, *path, *desc;
  gsize len, i;
  GRand *rand = g_rand_new_with_seed (11);
  DecodeResult r;
  guint k;

  fail_unless (g_file_get_contents (p, &data, &len, NULL));
  for (i = len / 2; i < len / 2 + 300; i++)
    data[i] = g_rand_int (rand) & 0xff;
  path = g_strdup_printf ("%s/corrupt.h264", tmpdir);
  fail_unless (g_file_set_contents (path, data, len, NULL));
  fresh_decoders = TRUE;
  check_file (path, "h264parse", "max-errors=-1");
  fresh_decoders = FALSE;
  g_free (path);
  /* truncated, then garbage */
  for (k = 0; k < 2; k++) {
    if (k == 1)
      for (i = 0; i < len; i++)
        data[i] = g_rand_int (rand) & 0xff;
    path = g_strdup_printf ("%s/bad%u.h264", tmpdir, k);
    fail_unless (g_file_set_contents (path, data, k ? len : len / 2 + 37,
            NULL));
    desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec "
        "parallel=4 ! avhwdownload", path);
    decode (desc, &r);
    g_print ("%s: %u frames, %s\n", desc, r.frames, r.error ? r.error : "EOS");
    result_clear (&r);
    g_free (desc);
    g_free (path);
  }
  g_rand_free (rand);
  g_free (data);
  g_free (p);
}

GST_END_TEST;

/* A flushing seek while sessions are busy: decoding resumes from the key
 * frame before the target, in order, up to EOS. */
GST_START_TEST (test_seek)
{
  gchar *p = make_clip ("seek.mkv", I420_320,
      "key-int-max=10 bframes=2 speed-preset=ultrafast", 150);
  const guint targets[] = { 2, 4 };
  guint after = run_seeks (p, "parallel=4 max-buffered=8", targets, 2, 5);

  /* 2 s left after 4 s, at 25 fps */
  fail_unless (after >= 50 && after <= 60, "%u frames after seek", after);
  g_free (p);
}

GST_END_TEST;

/* Stopped in the middle, with sessions decoding and waiting: no hang. */
GST_START_TEST (test_stop_midway)
{
  gchar *p = make_clip ("stop.h264", I420_320,
      "key-int-max=10 speed-preset=ultrafast", 100);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec parallel=4 max-buffered=4 ! avhwdownload ! "
      "appsink name=sink sync=false max-buffers=1", p);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstSample *s;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  fail_unless (s != NULL);
  gst_sample_unref (s);
  g_usleep (100 * 1000);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (p);
}

GST_END_TEST;

/* No cut point but the first (one key frame): one segment on four
 * sessions, as parallel=1 (the debug log says why). */
GST_START_TEST (test_no_cuts)
{
  gchar *p = make_clip ("onegop.h264", I420_320,
      "key-int-max=1000 speed-preset=ultrafast", 60);

  fail_unless_equals_int (check_file (p, "h264parse", ""), 1);
  fail_unless_equals_int (sessions, 4);
  g_free (p);
}

GST_END_TEST;

/* The sessions of a stream are kept like one decoder: the next stream's
 * four sessions take the four kept decoders (the others open on their own
 * threads while the first decodes the first segment). */
GST_START_TEST (test_sessions_kept)
{
  gchar *p = make_clip ("kept.h264", I420_320,
      "key-int-max=20 bframes=0 speed-preset=ultrafast", 100);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=dec parallel=4 ! avhwdownload", p);
  guint64 hits0, hits1, hits2;
  DecodeResult run1, run2;

  gst_avhw_cache_clear ();
  gst_avhw_cache_get_decoder_stats (NULL, &hits0, NULL);
  decode (desc, &run1);
  gst_avhw_cache_get_decoder_stats (NULL, &hits1, NULL);
  decode (desc, &run2);
  gst_avhw_cache_get_decoder_stats (NULL, &hits2, NULL);
  g_print ("parallel=4 twice: %u and %u frames, decoder-cache hits %"
      G_GUINT64_FORMAT " then %" G_GUINT64_FORMAT "\n", run1.frames,
      run2.frames, hits1 - hits0, hits2 - hits1);
  fail_unless (run1.error == NULL && run2.error == NULL, "%s | %s",
      run1.error, run2.error);
  fail_unless_equals_int (run2.sessions, 4);
  fail_unless_equals_int (run2.frames, 100);
  fail_unless_equals_string (g_checksum_get_string (run2.md5),
      g_checksum_get_string (run1.md5));
  fail_unless_equals_uint64 (hits1 - hits0, 0);
  fail_unless_equals_uint64 (hits2 - hits1, 4);
  result_clear (&run1);
  result_clear (&run2);
  gst_avhw_cache_clear ();
  g_free (desc);
  g_free (p);
}

GST_END_TEST;

/* A codec without a cut-point parser (VP8): one session, as parallel=1
 * (the debug log says why). */
GST_START_TEST (test_no_cut_parser)
{
  gchar *src;

  src = g_strdup_printf ("videotestsrc num-buffers=30 ! %s ! vp8enc "
      "deadline=1 keyframe-max-dist=5", I420_320);
  fail_unless_equals_int (check_same (src, "", NULL), 0);
  fail_unless_equals_int (sessions, 1);
  g_free (src);
}

GST_END_TEST;

static Suite *
avhwdec_parallel_suite (void)
{
  Suite *s = suite_create ("avhwdec-parallel");
  TCase *tc = tcase_create ("general");
  GstElementFactory *x264 = gst_element_factory_find ("x264enc");
  GstElement *dec;

  avhw_test_require_device ("auto");
  if (!x264) {
    g_print ("SKIP: needs x264enc (gst-plugins-ugly) to make clips\n");
    exit (77);
  }
  gst_object_unref (x264);
  /* gst_parse_launch() would only warn about it */
  dec = gst_element_factory_make ("avhwdec", NULL);
  if (!dec || !g_object_class_find_property (G_OBJECT_GET_CLASS (dec),
          "parallel")) {
    g_printerr ("FAIL: avhwdec has no parallel property\n");
    exit (1);
  }
  gst_object_unref (dec);
  tmpdir = g_dir_make_tmp ("avhwdecpar-XXXXXX", NULL);
  atexit (remove_tmpdir);

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_h264_formats);
  tcase_add_test (tc, test_h264_headers_once);
  if (have_elements ("x265enc (gst-plugins-bad)", "x265enc", NULL))
    tcase_add_test (tc, test_h265);
  if (have_elements ("vp9enc (gst-plugins-good)", "vp9enc", NULL))
    tcase_add_test (tc, test_vp9);
  if (have_elements ("av1enc (gst-plugins-bad, libaom) and av1parse",
          "av1enc", "av1parse", NULL))
    tcase_add_test (tc, test_av1);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_corrupt);
  tcase_add_test (tc, test_seek);
  tcase_add_test (tc, test_stop_midway);
  tcase_add_test (tc, test_no_cuts);
  if (have_elements ("vp8enc (gst-plugins-good)", "vp8enc", NULL))
    tcase_add_test (tc, test_no_cut_parser);
  tcase_add_test (tc, test_sessions_kept);
  return s;
}

GST_CHECK_MAIN (avhwdec_parallel);
