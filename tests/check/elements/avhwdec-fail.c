/* gst-avhw tests: avhwdec when its hardware decoder fails mid-stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs with GST_AVHW_DEC_FAIL_AT=faildec:25 (tests/check/meson.build): the
 * avhwdec named faildec gets AVERROR_EXTERNAL for input frame 25, as from
 * a failed submission of a hardware decoder (gstavhwdecfail.c), and its
 * decoders count as hardware ones (no other element's). On the H200 FFmpeg 7.1's Vulkan
 * decoder failed that way and then waited forever (run 47). Here:
 * fallback=true goes on in software from the last key frame, decoding
 * again what the failed decoder held: every frame out, once, bit-exact.
 * With GST_AVHW_DEC_REPLAY_MAX=3 (the avhwdec-fail-noreplay test) the GOP
 * is too long to keep, and software starts at the next key frame, the
 * frames between lost (dropped, not garbage). Each session does the same
 * with parallel=4 (the failing frame is in the second of three segments):
 * the same frames as parallel=1. fallback=false (a forced decoder) ends
 * in an error that names the failure, with one session or four; nothing
 * hangs. The other avhwdec of each test (not faildec) gives the
 * reference.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "decode-common.c"

#define I420_320 "video/x-raw,format=I420,width=320,height=240,framerate=25/1"
#define FAIL_AT 25
#define FRAMES 60
#define KEY_INT 10

static gchar *clip;

typedef struct
{
  const gchar *desc;
  gchar **sums;
} FrameSums;

/* decode_full()'s callback: the sample's MD5 at its frame index. */
static void
frame_sum (GstSample * s, gpointer data)
{
  FrameSums *fs = data;
  GChecksum *md5 = g_checksum_new (G_CHECKSUM_MD5);
  guint i = gst_util_uint64_scale_round (GST_BUFFER_PTS (gst_sample_get_buffer
          (s)), 25, GST_SECOND);

  hash_frame (md5, s);
  fail_unless (i < FRAMES && fs->sums[i] == NULL, "%s: frame %u again or "
      "out of range", fs->desc, i);
  fs->sums[i] = g_strdup (g_checksum_get_string (md5));
  g_checksum_free (md5);
}

/* The MD5 of each frame of "@desc ! appsink", by frame index (pts at 25
 * fps); NULL where none came. *@error: the error message, if any;
 * *@warned: whether a warning says something failed. */
static gchar **
frame_sums (const gchar * desc, gchar ** error, gboolean * warned)
{
  FrameSums fs = { desc, g_new0 (gchar *, FRAMES + 1) };
  DecodeResult r;

  decode_full (desc, &r, frame_sum, &fs);
  *error = g_steal_pointer (&r.error_message);
  *warned = strstr (r.warnings->str, "failed") != NULL;
  result_clear (&r);
  return fs.sums;
}

/* The clip, made by the first test (fail_unless() works inside tests
 * only): H.264, an IDR every KEY_INT frames, no B-frames. */
static void
need_clip (void)
{
  if (!clip)
    clip = make_clip ("fail.h264", I420_320, "key-int-max=10 bframes=0 "
        "speed-preset=ultrafast option-string=scenecut=0", FRAMES);
}

static gchar **
reference (void)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=refdec ! avhwdownload", clip);
  gchar *error;
  gboolean warned;
  gchar **ref = frame_sums (desc, &error, &warned);
  guint i;

  fail_unless (error == NULL, "%s", error);
  for (i = 0; i < FRAMES; i++)
    fail_unless (ref[i] != NULL, "reference: no frame %u", i);
  g_free (desc);
  return ref;
}

/* fallback=true, with @opts: a warning naming the failure and every
 * frame, each once and bit-exact; without the replay (GOP too long), the
 * frames from the failed one up to the next key frame are lost. */
static void
check_fallback (const gchar * opts)
{
  gchar **ref, *desc, *error, **got;
  gboolean warned;
  guint i, out = 0;
  gboolean replay = g_getenv ("GST_AVHW_DEC_REPLAY_MAX") == NULL;

  need_clip ();
  ref = reference ();
  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=faildec %s ! avhwdownload", clip, opts);
  got = frame_sums (desc, &error, &warned);

  fail_unless (error == NULL, "%s", error);
  fail_unless (warned, "no warning about the failed decoder");
  for (i = 0; i < FRAMES; i++) {
    if (got[i]) {
      fail_unless_equals_string (got[i], ref[i]);
      out++;
    }
    /* replayed from the last key frame: nothing is missing; without,
     * nothing from the next key frame on */
    if (replay || i >= (FAIL_AT / KEY_INT + 1) * KEY_INT)
      fail_unless (got[i] != NULL, "frame %u lost", i);
    /* no replay: the failed frame up to that key frame are lost (and
     * those the failed decoder held before it) */
    else if (i >= FAIL_AT)
      fail_unless (got[i] == NULL, "frame %u out before a key frame", i);
  }
  g_print ("%s: %u of %u frames out, bit-exact\n", desc, out, FRAMES);
  g_strfreev (ref);
  g_strfreev (got);
  g_free (desc);
}

GST_START_TEST (test_fallback_goes_on_in_software)
{
  check_fallback ("");
}

GST_END_TEST;

/* Four sessions: the one whose decoder fails goes on in software from its
 * segment's last key frame; the others stay on theirs. */
GST_START_TEST (test_parallel_fallback)
{
  check_fallback ("parallel=4");
}

GST_END_TEST;

/* No fallback (a decoder forced by name): an error that names the failed
 * decoder, and the pipeline stops. */
GST_START_TEST (test_forced_decoder_fails)
{
  gchar *desc, *error, **got;
  gboolean warned;

  need_clip ();
  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=faildec decoder=h264 ! avhwdownload", clip);
  got = frame_sums (desc, &error, &warned);

  fail_unless (error != NULL, "%s: no error", desc);
  fail_unless (strstr (error, "decoder of device") && strstr (error,
          "failed"), "%s", error);
  fail_unless (got[FRAMES - 1] == NULL, "decoding went on");
  g_print ("%s: %s\n", desc, error);
  g_strfreev (got);
  g_free (error);
  g_free (desc);
}

GST_END_TEST;

/* Parallel sessions, no fallback: the session whose decoder failed stops
 * calling it, the others finish their segments, and the error comes in
 * stream order. */
GST_START_TEST (test_parallel_forced_decoder_fails)
{
  gchar *desc, *error, **got, **ref;
  gboolean warned;
  guint i;

  need_clip ();
  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=faildec parallel=4 decoder=h264 ! avhwdownload", clip);
  got = frame_sums (desc, &error, &warned);
  ref = reference ();

  fail_unless (error != NULL && strstr (error, "failed"), "%s: %s", desc,
      error ? error : "no error");
  /* the segments before the failed one went out complete and exact */
  for (i = 0; i < (FAIL_AT / KEY_INT) * KEY_INT; i++)
    fail_unless (got[i] && g_str_equal (got[i], ref[i]), "frame %u", i);
  g_strfreev (got);
  g_strfreev (ref);
  g_free (error);
  g_free (desc);
}

GST_END_TEST;

static Suite *
avhwdec_fail_suite (void)
{
  Suite *s = suite_create ("avhwdec-fail");
  TCase *tc = tcase_create ("general");
  GstElementFactory *x264 = gst_element_factory_find ("x264enc");

  avhw_test_require_device ("auto");
  if (!x264) {
    g_print ("SKIP: needs x264enc (gst-plugins-ugly) to make clips\n");
    exit (77);
  }
  gst_object_unref (x264);
  if (!g_getenv ("GST_AVHW_DEC_FAIL_AT")) {
    g_printerr ("FAIL: run with GST_AVHW_DEC_FAIL_AT=faildec:%d\n", FAIL_AT);
    exit (1);
  }
  tmpdir = g_dir_make_tmp ("avhwdecfail-XXXXXX", NULL);
  atexit (remove_tmpdir);

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fallback_goes_on_in_software);
  tcase_add_test (tc, test_forced_decoder_fails);
  tcase_add_test (tc, test_parallel_fallback);
  tcase_add_test (tc, test_parallel_forced_decoder_fails);
  return s;
}

GST_CHECK_MAIN (avhwdec_fail);
