/* gst-avhw tests: avhwdec
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include "../avhw-test-utils.h"

#include "decode-common.c"

static const gchar *
first_device_of (const gchar * backend)
{
  GstAvhwBackend *b = gst_avhw_backend_find (backend, NULL);
  guint n = b ? gst_avhw_backend_get_n_devices (b, NULL) : 0;

  gst_clear_object (&b);
  return n > 0 ? backend : NULL;
}

/* Every clip decodes bit-exactly as FFmpeg's software decoder (avdec_*)
 * does, on every backend present, through device memory and download. */
static void
check_bit_exact (const gchar * path, const gchar * parse)
{
  const gchar *backends[] = { "vulkan", "opencl", "cuda" };
  DecodeResult ref, got;
  gchar *desc;
  guint i, ran = 0;

  desc = g_strdup_printf ("filesrc location=%s ! %s ! avdec_h264", path, parse);
  decode (desc, &ref);
  fail_unless (ref.error == NULL, "%s", ref.error);
  fail_unless (ref.frames > 0);
  g_free (desc);

  for (i = 0; i < G_N_ELEMENTS (backends); i++) {
    if (!first_device_of (backends[i]))
      continue;
    desc = g_strdup_printf ("filesrc location=%s ! %s ! avhwdec device=%s ! "
        "avhwdownload", path, parse, backends[i]);
    decode (desc, &got);
    fail_unless (got.error == NULL, "%s: %s", desc, got.error);
    fail_unless_equals_int (got.frames, ref.frames);
    fail_unless_equals_string (g_checksum_get_string (got.md5),
        g_checksum_get_string (ref.md5));
    fail_unless (got.pts_monotonic, "%s: timestamps not increasing", desc);
    g_print ("%s: %u frames bit-exact on %s\n", path, got.frames, backends[i]);
    result_clear (&got);
    g_free (desc);
    ran++;
  }
  fail_unless (ran > 0);
  result_clear (&ref);
}

GST_START_TEST (test_bit_exact_8bit_bframes)
{
  gchar *p = make_clip ("bframes.h264",
      "video/x-raw,format=I420,width=320,height=240",
      "bframes=3 b-adapt=false key-int-max=12 speed-preset=ultrafast", 40);

  check_bit_exact (p, "h264parse");
  g_free (p);
}

GST_END_TEST;

/* 4:2:0 cannot have odd sizes: 174x98 (not a multiple of 16) in 4:2:0,
 * 175x97 in 4:4:4. */
GST_START_TEST (test_bit_exact_odd_size)
{
  gchar *p = make_clip ("odd420.h264",
      "video/x-raw,format=I420,width=174,height=98",
      "bframes=1 speed-preset=ultrafast", 20);

  check_bit_exact (p, "h264parse");
  g_free (p);
  p = make_clip ("odd444.h264", "video/x-raw,format=Y444,width=175,height=97",
      "bframes=1 speed-preset=ultrafast", 20);
  check_bit_exact (p, "h264parse");
  g_free (p);
}

GST_END_TEST;

GST_START_TEST (test_bit_exact_10bit)
{
  gchar *p = make_clip ("high10.h264",
      "video/x-raw,format=I420_10LE,width=128,height=96",
      "speed-preset=ultrafast", 12);

  check_bit_exact (p, "h264parse");
  g_free (p);
}

GST_END_TEST;

GST_START_TEST (test_bit_exact_interlaced)
{
  gchar *p = make_clip ("interlaced.h264",
      "video/x-raw,format=I420,width=320,height=240,"
      "interlace-mode=interleaved",
      "interlaced=true speed-preset=ultrafast", 16);

  check_bit_exact (p, "h264parse");
  g_free (p);
}

GST_END_TEST;

/* Two byte streams of different sizes, one after the other: the output
 * caps change in the middle and every frame comes out. */
GST_START_TEST (test_resolution_change)
{
  gchar *a =
      make_clip ("a.h264", "video/x-raw,format=I420,width=320,height=240",
      "speed-preset=ultrafast", 10);
  gchar *b =
      make_clip ("b.h264", "video/x-raw,format=I420,width=176,height=144",
      "speed-preset=ultrafast", 10);
  gchar *cat = g_build_filename (tmpdir, "ab.h264", NULL);
  gchar *da, *db, *both, *desc;
  gsize la, lb;
  DecodeResult r;

  fail_unless (g_file_get_contents (a, &da, &la, NULL));
  fail_unless (g_file_get_contents (b, &db, &lb, NULL));
  both = g_malloc (la + lb);
  /* small then large */
  memcpy (both, db, lb);
  memcpy (both + lb, da, la);
  fail_unless (g_file_set_contents (cat, both, la + lb, NULL));
  check_bit_exact (cat, "h264parse");
  /* large then small */
  memcpy (both, da, la);
  memcpy (both + la, db, lb);
  fail_unless (g_file_set_contents (cat, both, la + lb, NULL));
  check_bit_exact (cat, "h264parse");

  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec ! "
      "avhwdownload", cat);
  decode (desc, &r);
  fail_unless (r.error == NULL, "%s", r.error);
  fail_unless_equals_int (r.frames, 20);
  fail_unless (r.caps_changes >= 2, "caps changed %u times", r.caps_changes);
  result_clear (&r);
  g_free (desc);
  g_free (da);
  g_free (db);
  g_free (both);
  g_free (cat);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* Downstream that takes device memory gets the decoder's frames as
 * AVHWMemory; one that does not gets system memory. */
GST_START_TEST (test_device_memory_output)
{
  gchar *p = make_clip ("dm.h264", "video/x-raw,format=I420,width=64,height=48",
      "speed-preset=ultrafast", 5);
  GstAvhwDevice *dev = gst_avhw_device_open ("auto", NULL, NULL);
  const gchar *feature = gst_avhw_backend_get_caps_feature
      (gst_avhw_device_get_backend (dev));
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec ! "
      "video/x-raw(%s)", p, feature);
  DecodeResult r;

  decode (desc, &r);
  fail_unless (r.error == NULL, "%s", r.error);
  fail_unless_equals_int (r.frames, 5);
  fail_unless (r.device_memory);
  result_clear (&r);
  g_free (desc);

  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec ! "
      "video/x-raw", p);
  decode (desc, &r);
  fail_unless (r.error == NULL, "%s", r.error);
  fail_unless_equals_int (r.frames, 5);
  fail_if (r.device_memory);
  result_clear (&r);
  g_free (desc);
  g_free (p);
  gst_object_unref (dev);
}

GST_END_TEST;

/* The decoder and a download element share the device through the context
 * flow, and a second pipeline reuses it through the cache. */
/* Pulls @n frames of "@desc ! appsink" and stops the pipeline there: the
 * decoder ends mid-stream, with pictures still inside it. */
static void
decode_interrupted (const gchar * desc, guint n)
{
  /* one buffer in the sink: the decoder blocks there, mid-stream */
  gchar *full = g_strdup_printf ("%s ! appsink name=sink sync=false "
      "max-buffers=1", desc);
  GstElement *p = gst_parse_launch (full, NULL), *sink;
  guint i;

  fail_unless (p != NULL, "%s", full);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < n; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);

    fail_unless (s != NULL, "%s: frame %u did not come", full, i);
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (full);
}

/* An opened decoder outlives its pipeline in the device's decoder cache and
 * the next stream that matches takes it: after a stream stopped in the
 * middle, with B-frames waiting in the decoder, the next decode gives
 * exactly the frames of a fresh decoder, none of the old stream. Reuse off
 * keeps nothing. A device that decodes H.264 in hardware through FFmpeg's
 * h264 hwaccel (NVDEC) keeps it too, its streams ended by a join (see
 * gstavhwdecjoin.c), and the output is exact all the same. */
GST_START_TEST (test_decoder_reuse)
{
  gchar *p = make_clip ("reuse.h264",
      "video/x-raw,format=I420,width=320,height=240",
      "bframes=3 b-adapt=false key-int-max=8 speed-preset=ultrafast", 30);
  gchar *ref_desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avdec_h264", p);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec ! avhwdownload", p);
  DecodeResult ref, got;
  guint64 hits0, hits1, misses0, misses1;
  guint kept, i;
  GstAvhwDevice *dev = gst_avhw_device_open (NULL, NULL, NULL);
  gboolean hw_h264;

  fail_unless (dev != NULL);
  hw_h264 = gst_avhw_backend_device_decodes (gst_avhw_device_get_backend (dev),
      gst_avhw_device_get_index (dev), AV_CODEC_ID_H264, NULL);
  gst_object_unref (dev);
  decode (ref_desc, &ref);
  fail_unless (ref.error == NULL && ref.frames == 30);
  gst_avhw_cache_clear ();
  gst_avhw_cache_set_decoders_limit (GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT);
  gst_avhw_cache_get_decoder_stats (NULL, &hits0, &misses0);

  decode_interrupted (desc, 4);
  for (i = 0; i < 2; i++) {
    decode (desc, &got);
    fail_unless (got.error == NULL, "%s", got.error);
    fail_unless_equals_int (got.frames, ref.frames);
    fail_unless_equals_string (g_checksum_get_string (got.md5),
        g_checksum_get_string (ref.md5));
    result_clear (&got);
  }
  gst_avhw_cache_get_decoder_stats (&kept, &hits1, &misses1);
  /* the interrupted run opened the decoder; both later runs took it */
  fail_unless_equals_uint64 (misses1 - misses0, 1);
  fail_unless_equals_uint64 (hits1 - hits0, 2);
  g_print ("decoder reuse: H.264 %s on the auto device: %" G_GUINT64_FORMAT
      " hit(s)\n", hw_h264 ? "in hardware" : "in software", hits1 - hits0);

  fail_unless_equals_int (kept, 1);

  /* a lower limit frees what is past it at once */
  gst_avhw_cache_set_decoders_limit (0);
  gst_avhw_cache_get_decoder_stats (&kept, NULL, NULL);
  fail_unless_equals_int (kept, 0);
  gst_avhw_cache_set_decoders_limit (GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT);
  decode (desc, &got);
  result_clear (&got);

  /* cache_clear() frees what is kept; reuse off keeps nothing */
  gst_avhw_cache_clear ();
  gst_avhw_cache_get_decoder_stats (&kept, NULL, NULL);
  fail_unless_equals_int (kept, 0);
  gst_avhw_cache_set_reuse (FALSE);
  decode (desc, &got);
  fail_unless_equals_int (got.frames, ref.frames);
  result_clear (&got);
  decode (desc, &got);
  fail_unless_equals_int (got.frames, ref.frames);
  result_clear (&got);
  gst_avhw_cache_get_decoder_stats (&kept, &hits0, NULL);
  fail_unless_equals_uint64 (hits0, hits1);
  fail_unless_equals_int (kept, 0);
  gst_avhw_cache_set_reuse (TRUE);

  result_clear (&ref);
  g_free (ref_desc);
  g_free (desc);
  g_free (p);
}

GST_END_TEST;

GST_START_TEST (test_decoder_shares_device)
{
  gchar *p =
      make_clip ("share.h264", "video/x-raw,format=I420,width=64,height=48",
      "speed-preset=ultrafast", 3);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=dec ! avhwdownload name=down ! fakesink", p);
  guint64 opens0, opens1, ctx0 = 0;
  guint i;

  gst_avhw_cache_clear ();
  gst_avhw_cache_get_stats (NULL, NULL, &opens0, NULL);
  for (i = 0; i < 2; i++) {
    GstElement *pipe = gst_parse_launch (desc, NULL);
    GstElement *dec = gst_bin_get_by_name (GST_BIN (pipe), "dec");
    GstElement *down = gst_bin_get_by_name (GST_BIN (pipe), "down");
    GstAvhwDevice *d1 = NULL, *d2 = NULL;
    GstMessage *msg;

    gst_element_set_state (pipe, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    g_object_get (dec, "active-device", &d1, NULL);
    g_object_get (down, "active-device", &d2, NULL);
    fail_unless (d1 && d1 == d2);
    if (i == 0)
      ctx0 = gst_avhw_device_get_context_id (d1);
    fail_unless (gst_avhw_device_get_context_id (d1) == ctx0);
    gst_object_unref (d1);
    gst_object_unref (d2);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (dec);
    gst_object_unref (down);
    gst_object_unref (pipe);
  }
  gst_avhw_cache_get_stats (NULL, NULL, &opens1, NULL);
  fail_unless_equals_uint64 (opens1 - opens0, 1);
  g_free (desc);
  g_free (p);
}

GST_END_TEST;

/* Streams on a kept H.264 decoder end by a join, not a drain and flush
 * (GST_AVHW_DEC_JOIN=1 does it in software too; by default only hardware
 * decoders, whose flush re-creates them, join): every frame of each stream
 * comes out, bit-exact, and none of the join's own frames; after a
 * stream cut short, and after streams of another size. */
GST_START_TEST (test_decoder_join)
{
  gchar *p = make_clip ("join.h264",
      "video/x-raw,format=I420,width=320,height=240",
      "bframes=3 b-adapt=false key-int-max=12 speed-preset=ultrafast", 40);
  gchar *q = make_clip ("join-small.h264",
      "video/x-raw,format=I420,width=176,height=144",
      "bframes=2 key-int-max=8 speed-preset=ultrafast", 17);
  gchar *ref_desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avdec_h264", p);
  gchar *ref_small_desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avdec_h264", q);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=dec ! avhwdownload", p);
  gchar *small_desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=dec ! avhwdownload", q);
  const gchar *order[] = { desc, desc, small_desc, desc, small_desc };
  DecodeResult ref, ref_small, got;
  guint i, joins = 0;

  g_setenv ("GST_AVHW_DEC_JOIN", "1", TRUE);
  decode (ref_desc, &ref);
  decode (ref_small_desc, &ref_small);
  fail_unless (ref.frames == 40 && ref_small.frames == 17);
  gst_avhw_cache_clear ();

  decode_interrupted (desc, 5);
  for (i = 0; i < G_N_ELEMENTS (order); i++) {
    DecodeResult *want = order[i] == desc ? &ref : &ref_small;

    decode (order[i], &got);
    fail_unless (got.error == NULL, "%s", got.error);
    fail_unless_equals_int (got.frames, want->frames);
    fail_unless_equals_string (g_checksum_get_string (got.md5),
        g_checksum_get_string (want->md5));
    joins += got.joins;
    result_clear (&got);
  }
  /* every complete stream ended by a join */
  fail_unless_equals_int (joins, G_N_ELEMENTS (order));
  g_unsetenv ("GST_AVHW_DEC_JOIN");
  gst_avhw_cache_clear ();

  result_clear (&ref);
  result_clear (&ref_small);
  g_free (ref_desc);
  g_free (ref_small_desc);
  g_free (desc);
  g_free (small_desc);
  g_free (p);
  g_free (q);
}

GST_END_TEST;

/* A flushing seek in the middle: decoding resumes at a keyframe at or
 * before the target, timestamps after the target come out, EOS follows. */
GST_START_TEST (test_seek)
{
  gchar *p = make_clip ("seek.mkv",
      "video/x-raw,format=I420,width=160,height=120," "framerate=25/1",
      "key-int-max=10 bframes=2 speed-preset=ultrafast", 75);
  const guint target = 2;
  guint after = run_seeks (p, "", &target, 1, 0);

  /* 1 s left after 2 s, at 25 fps, from the keyframe at 2.0 s */
  fail_unless (after >= 25 && after <= 35, "%u frames after seek", after);
  g_free (p);
}

GST_END_TEST;

/* Corrupt, truncated and garbage input: the pipeline ends (EOS or an error
 * naming the problem) within the time limit, never crashes or hangs. */
GST_START_TEST (test_bad_streams)
{
  gchar *p =
      make_clip ("bad.h264", "video/x-raw,format=I420,width=320,height=240",
      "key-int-max=10 speed-preset=ultrafast", 30);
  gchar *data, *path, *desc;
  gsize len, i;
  GRand *rand = g_rand_new_with_seed (7);
  DecodeResult r;
  const gchar *kinds[] = { "corrupt", "truncated", "garbage" };
  guint k;

  fail_unless (g_file_get_contents (p, &data, &len, NULL));
  for (k = 0; k < G_N_ELEMENTS (kinds); k++) {
    gchar *copy = g_memdup2 (data, len);
    gsize n = len;

    if (k == 0)
      for (i = len / 3; i < len / 3 + 400 && i < len; i++)
        copy[i] = g_rand_int (rand) & 0xff;
    else if (k == 1)
      n = len / 2 + 37;
    else
      for (i = 0; i < len; i++)
        copy[i] = g_rand_int (rand) & 0xff;
    path = g_strdup_printf ("%s/%s.h264", tmpdir, kinds[k]);
    fail_unless (g_file_set_contents (path, copy, n, NULL));
    desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec ! "
        "avhwdownload", path);
    decode (desc, &r);
    g_print ("%s: %u frames, %s\n", kinds[k], r.frames,
        r.error ? r.error : "EOS");
    if (k < 2)
      fail_unless (r.frames > 0 || r.error != NULL);
    result_clear (&r);
    g_free (desc);
    g_free (path);
    g_free (copy);
  }
  g_rand_free (rand);
  g_free (data);
  g_free (p);
}

GST_END_TEST;

/* Caps avhwdec does not decode are refused. */
GST_START_TEST (test_wrong_caps)
{
  GstHarness *h = gst_harness_new ("avhwdec");

  gst_harness_set_src_caps_str (h, "video/x-h264, stream-format=byte-stream, "
      "alignment=nal");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              16, NULL)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);

  h = gst_harness_new ("avhwdec");
  gst_harness_set_src_caps_str (h, "video/x-theora");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              16, NULL)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Downstream refusing the decoded format is an error, even when the frames
 * only come out at EOS, never a silent end of stream. */
GST_START_TEST (test_downstream_refuses_format)
{
  gchar *p =
      make_clip ("refuse.h264", "video/x-raw,format=I420,width=64,height=48",
      "speed-preset=ultrafast", 3);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec "
      "! avhwdownload ! video/x-raw,format=RGBA", p);
  DecodeResult r;

  decode (desc, &r);
  fail_unless (r.error != NULL, "a refused format ended without an error");
  fail_unless_equals_int (r.frames, 0);
  result_clear (&r);
  g_free (desc);
  g_free (p);
}

GST_END_TEST;

/* Whether the auto device decodes H.264 in hardware; when not, @reason
 * says why (the backend's own answer: no video decode queue on lavapipe,
 * no FFmpeg hwaccel for the device type with FFmpeg 5.1). */
static gboolean
auto_decodes_h264 (GstAvhwDevice * dev, gchar ** reason)
{
  gboolean hw = gst_avhw_backend_device_decodes (gst_avhw_device_get_backend
      (dev), gst_avhw_device_get_index (dev), AV_CODEC_ID_H264, reason);

  fail_unless (hw || (*reason && **reason), "a no comes with its reason");
  return hw;
}

static void
expect_error (const gchar * props, const gchar * needle)
{
  gchar *p =
      make_clip ("err.h264", "video/x-raw,format=I420,width=64,height=48",
      "speed-preset=ultrafast", 3);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec %s ! avhwdownload", p, props);
  DecodeResult r;

  decode (desc, &r);
  fail_unless (r.error != NULL, "%s did not fail", props);
  fail_unless (strstr (r.error, needle) != NULL, "\"%s\" not in: %s", needle,
      r.error);
  g_print ("%s -> %s\n", props, r.error);
  result_clear (&r);
  g_free (desc);
  g_free (p);
}

GST_START_TEST (test_clear_errors)
{
  GstAvhwDevice *dev = gst_avhw_device_open ("auto", NULL, NULL);
  gchar *nofb = g_strdup_printf ("device=%s fallback=false",
      gst_avhw_device_get_name (dev));
  gchar *reason = NULL;

  expect_error ("device=nosuch", "unknown avhw backend \"nosuch\"");
  expect_error ("decoder=nosuchdec", "FFmpeg has no such decoder");
  expect_error ("decoder=hevc", "decodes hevc, the stream is h264");
  /* the refusal names the device and says why it has no decoder */
  if (!auto_decodes_h264 (dev, &reason)) {
    expect_error (nofb, gst_avhw_device_get_name (dev));
    expect_error (nofb, reason);
  }
  g_free (reason);
  g_free (nofb);
  gst_object_unref (dev);
}

GST_END_TEST;

/* Refused caps come back with every buffer (a parser re-sends them): the
 * error is posted once, not once per buffer. */
GST_START_TEST (test_refused_caps_one_error)
{
  GstAvhwDevice *dev = gst_avhw_device_open ("auto", NULL, NULL);
  gchar *reason = NULL;
  gchar *desc = g_strdup_printf ("avhwdec device=%s fallback=false",
      gst_avhw_device_get_name (dev));
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  guint i, errors = 0;

  if (auto_decodes_h264 (dev, &reason)) {
    g_print ("%s decodes h264 in hardware: nothing refused here\n",
        gst_avhw_device_get_name (dev));
    goto out;
  }
  h = gst_harness_new_parse (desc);
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-h264,stream-format=byte-stream,"
      "alignment=au,width=64,height=48,framerate=30/1");
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_wrapped
            (g_memdup2 ("\0\0\0\1\x65\x88", 6), 6)), GST_FLOW_NOT_NEGOTIATED);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    errors++;
    gst_message_unref (msg);
  }
  fail_unless_equals_int (errors, 1);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
out:
  g_free (reason);
  g_free (desc);
  gst_object_unref (dev);
}

GST_END_TEST;

/* fallback=true decodes in software with a warning when the device has no
 * hardware decoder for the stream. */
GST_START_TEST (test_fallback_warns)
{
  GstAvhwDevice *dev = gst_avhw_device_open ("auto", NULL, NULL);
  gchar *p, *desc, *reason = NULL;
  DecodeResult r;

  if (auto_decodes_h264 (dev, &reason)) {
    g_print ("%s decodes h264 in hardware: fallback not exercised here\n",
        gst_avhw_device_get_name (dev));
  } else {
    p = make_clip ("fb.h264", "video/x-raw,format=I420,width=64,height=48",
        "speed-preset=ultrafast", 3);
    desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec "
        "name=dec ! avhwdownload", p);
    decode (desc, &r);
    fail_unless (r.error == NULL, "%s", r.error);
    fail_unless (r.warned, "no warning about software decoding");
    fail_unless_equals_int (r.frames, 3);
    /* the properties say so too (issue 28) */
    fail_unless_equals_string (r.decoder, "h264");
    fail_unless (!r.hardware);
    result_clear (&r);
    g_free (desc);
    g_free (p);
  }
  g_free (reason);
  gst_object_unref (dev);
}

GST_END_TEST;

/* Runs @desc (its decoder named "d") to EOS; the latency avhwdec reports. */
static GstClockTime
decoder_latency (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err), *d;
  GstClockTime min = GST_CLOCK_TIME_NONE, max;
  GstMessage *msg;

  fail_unless (p != NULL, "%s", err ? err->message : "");
  d = gst_bin_get_by_name (GST_BIN (p), "d");
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s", desc);
  gst_message_unref (msg);
  gst_video_decoder_get_latency (GST_VIDEO_DECODER (d), &min, &max);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (d);
  gst_object_unref (p);
  return min;
}

/* threads: explicit counts add (count - 1) frames of latency (frame
 * threads); automatic keeps frame threads out of live pipelines. The clips
 * have no B-frames, so any latency is the threads'. */
GST_START_TEST (test_threads_latency)
{
  const GstClockTime frame = GST_SECOND / 30;
  gchar *clip = make_clip ("nob.h264", "video/x-raw,width=176,height=144,"
      "framerate=30/1", "bframes=0", 15);
  gchar *desc;
  GstClockTime lat;

  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec name=d "
      "threads=3 ! fakesink", clip);
  lat = decoder_latency (desc);
  fail_unless_equals_uint64 (lat, 2 * frame);
  g_free (desc);

  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec name=d "
      "threads=1 ! fakesink", clip);
  fail_unless_equals_uint64 (decoder_latency (desc), 0);
  g_free (desc);

  /* automatic, not live: frame threads (where there is more than one CPU
   * for software decoding; two threads for hardware) */
  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec name=d "
      "! fakesink", clip);
  lat = decoder_latency (desc);
  if (g_get_num_processors () > 1)
    fail_unless (lat >= frame, "latency %" GST_TIME_FORMAT,
        GST_TIME_ARGS (lat));
  g_free (desc);

  /* automatic, live upstream: no frame threads, no latency added */
  fail_unless_equals_uint64 (decoder_latency ("videotestsrc is-live=true "
          "num-buffers=10 ! video/x-raw,width=176,height=144,framerate=30/1 ! "
          "x264enc tune=zerolatency ! h264parse ! avhwdec name=d ! "
          "fakesink"), 0);
  g_free (clip);
}

GST_END_TEST;

static Suite *
avhwdec_suite (void)
{
  Suite *s = suite_create ("avhwdec");
  TCase *tc = tcase_create ("general");
  GstElementFactory *x264 = gst_element_factory_find ("x264enc");
  GstElementFactory *avdec = gst_element_factory_find ("avdec_h264");

  avhw_test_require_device ("auto");
  if (!x264 || !avdec) {
    g_print ("SKIP: needs x264enc (gst-plugins-ugly) and avdec_h264 "
        "(gst-libav) to make and check clips\n");
    exit (77);
  }
  gst_object_unref (x264);
  gst_object_unref (avdec);
  tmpdir = g_dir_make_tmp ("avhwdec-XXXXXX", NULL);
  atexit (remove_tmpdir);

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bit_exact_8bit_bframes);
  tcase_add_test (tc, test_bit_exact_odd_size);
  tcase_add_test (tc, test_bit_exact_10bit);
  tcase_add_test (tc, test_bit_exact_interlaced);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_device_memory_output);
  tcase_add_test (tc, test_decoder_shares_device);
  tcase_add_test (tc, test_decoder_reuse);
  tcase_add_test (tc, test_decoder_join);
  tcase_add_test (tc, test_seek);
  tcase_add_test (tc, test_bad_streams);
  tcase_add_test (tc, test_wrong_caps);
  tcase_add_test (tc, test_downstream_refuses_format);
  tcase_add_test (tc, test_clear_errors);
  tcase_add_test (tc, test_refused_caps_one_error);
  tcase_add_test (tc, test_fallback_warns);
  tcase_add_test (tc, test_threads_latency);
  return s;
}

GST_CHECK_MAIN (avhwdec);
