/* gst-avhw tests: the device and frames context cache
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/avhw/gstavhw-impl.h>
#include "../avhw-test-utils.h"

static guint64
opens (void)
{
  guint64 n;

  gst_avhw_cache_get_stats (NULL, NULL, &n, NULL);
  return n;
}

static GstAvhwDevice *
open_auto (void)
{
  GError *err = NULL;
  GstAvhwDevice *dev = gst_avhw_device_open ("auto", NULL, &err);

  fail_unless (dev != NULL, "%s", err ? err->message : "");
  return dev;
}

GST_START_TEST (test_same_context_twice)
{
  guint64 before = opens ();
  GstAvhwDevice *a = open_auto (), *b = open_auto ();

  fail_unless (a == b);
  fail_unless_equals_uint64 (gst_avhw_device_get_context_id (a),
      gst_avhw_device_get_context_id (b));
  fail_unless (opens () - before <= 1);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_new_context_after_clear)
{
  GstAvhwDevice *a = open_auto (), *b;
  guint64 before = opens ();
  guint n_devices;
  GArray *fmts;
  AVBufferRef *frames;
  GError *err = NULL;

  gst_avhw_cache_clear ();
  gst_avhw_cache_get_stats (&n_devices, NULL, NULL, NULL);
  fail_unless_equals_int (n_devices, 0);
  b = open_auto ();
  fail_unless (a != b);
  fail_unless (gst_avhw_device_get_context_id (a) !=
      gst_avhw_device_get_context_id (b));
  fail_unless_equals_uint64 (opens () - before, 1);

  /* The device in use before the clear still works. */
  fmts = gst_avhw_device_get_sw_formats (a);
  fail_unless (fmts->len > 0);
  frames = gst_avhw_device_get_frames_ctx (a, g_array_index (fmts, gint, 0),
      64, 64, 0, &err);
  fail_unless (frames != NULL, "%s", err ? err->message : "");
  av_buffer_unref (&frames);
  g_array_unref (fmts);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_reuse_disabled_at_runtime)
{
  GstAvhwDevice *a, *b;
  guint n_devices;

  gst_avhw_cache_set_reuse (FALSE);
  fail_if (gst_avhw_cache_get_reuse ());
  a = open_auto ();
  b = open_auto ();
  fail_unless (gst_avhw_device_get_context_id (a) !=
      gst_avhw_device_get_context_id (b));
  gst_avhw_cache_get_stats (&n_devices, NULL, NULL, NULL);
  fail_unless_equals_int (n_devices, 0);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_avhw_cache_set_reuse (TRUE);
}

GST_END_TEST;

/* GST_AVHW_REUSE=0 in the environment (the cache-reuse-off test). */
GST_START_TEST (test_reuse_disabled_by_env)
{
  guint64 before = opens ();
  GstAvhwDevice *a, *b;

  fail_if (gst_avhw_cache_get_reuse ());
  a = open_auto ();
  b = open_auto ();
  fail_unless (a != b);
  fail_unless (gst_avhw_device_get_context_id (a) !=
      gst_avhw_device_get_context_id (b));
  fail_unless_equals_uint64 (opens () - before, 2);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

/* GST_AVHW_DEVICE_LANES in the environment (the cache-lanes tests): "2"
 * gives a busy device a second context, a third open shares one of the
 * two, and an idle first lane is taken again; a value that is not a number
 * leaves the choice to the backend (0), whose devices here (lavapipe, no
 * video decode queue) get one context. */
GST_START_TEST (test_lanes_by_env)
{
  guint64 before = opens ();
  GstAvhwDevice *a, *b, *c, *d;

  if (g_strcmp0 (g_getenv ("GST_AVHW_DEVICE_LANES"), "2") != 0) {
    fail_unless_equals_int (gst_avhw_cache_get_lanes (), 0);
    a = open_auto ();
    gst_avhw_device_acquire_session (a);
    b = open_auto ();
    fail_unless (a == b);
    gst_avhw_device_release_session (a);
    gst_object_unref (a);
    gst_object_unref (b);
    return;
  }
  fail_unless_equals_int (gst_avhw_cache_get_lanes (), 2);
  a = open_auto ();
  b = open_auto ();
  fail_unless (a == b, "an idle device got a second context");
  gst_object_unref (b);
  gst_avhw_device_acquire_session (a);
  b = open_auto ();
  fail_unless (a != b, "a busy device got no second context");
  fail_unless_equals_string (gst_avhw_device_get_name (a),
      gst_avhw_device_get_name (b));
  fail_unless (gst_avhw_device_get_context_id (a) !=
      gst_avhw_device_get_context_id (b));
  gst_avhw_device_acquire_session (b);
  /* both lanes busy: the one with the fewest sessions, ties to the first */
  c = open_auto ();
  fail_unless (c == a);
  gst_avhw_device_acquire_session (c);
  d = open_auto ();
  fail_unless (d == b);
  gst_object_unref (d);
  fail_unless_equals_uint64 (opens () - before, 2);
  /* sessions count per hardware device across its lanes */
  fail_unless_equals_int (gst_avhw_device_get_n_active (a), 3);
  gst_avhw_device_release_session (a);
  gst_avhw_device_release_session (c);
  gst_avhw_device_release_session (b);
  /* all idle: the first lane */
  d = open_auto ();
  fail_unless (d == a);
  gst_object_unref (d);
  gst_avhw_device_acquire_session (a);
  gst_avhw_cache_set_lanes (1);
  d = open_auto ();
  fail_unless (d == a, "lanes set back to 1 still spread");
  gst_object_unref (d);
  gst_avhw_cache_set_lanes (0);
  fail_unless_equals_int (gst_avhw_cache_get_lanes (), 0);
  gst_avhw_device_release_session (a);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (c);
}

GST_END_TEST;

#define N_THREADS 8
static GMutex gate_lock;
static GCond gate_cond;
static gboolean gate_open;

static gpointer
open_thread (gpointer data)
{
  g_mutex_lock (&gate_lock);
  while (!gate_open)
    g_cond_wait (&gate_cond, &gate_lock);
  g_mutex_unlock (&gate_lock);
  return gst_avhw_device_open ("auto", NULL, NULL);
}

GST_START_TEST (test_threads_open_once)
{
  GThread *threads[N_THREADS];
  GstAvhwDevice *devs[N_THREADS];
  guint64 before;
  guint i;

  gst_avhw_cache_clear ();
  before = opens ();
  gate_open = FALSE;
  for (i = 0; i < N_THREADS; i++)
    threads[i] = g_thread_new ("opener", open_thread, NULL);
  g_mutex_lock (&gate_lock);
  gate_open = TRUE;
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_lock);
  for (i = 0; i < N_THREADS; i++) {
    devs[i] = g_thread_join (threads[i]);
    fail_unless (devs[i] != NULL);
  }
  for (i = 1; i < N_THREADS; i++)
    fail_unless (devs[i] == devs[0]);
  fail_unless_equals_uint64 (opens () - before, 1);
  for (i = 0; i < N_THREADS; i++)
    gst_object_unref (devs[i]);
}

GST_END_TEST;

GST_START_TEST (test_frames_cache_lru)
{
  GstAvhwDevice *dev = open_auto ();
  GArray *fmts = gst_avhw_device_get_sw_formats (dev);
  gint fmt = g_array_index (fmts, gint, 0);
  AVBufferRef *a, *a2, *b, *c, *a3;
  guint n_frames;
  guint64 created, created2;

  gst_avhw_cache_clear ();
  gst_avhw_cache_set_frames_limit (2);
  a = gst_avhw_device_get_frames_ctx (dev, fmt, 64, 64, 0, NULL);
  a2 = gst_avhw_device_get_frames_ctx (dev, fmt, 64, 64, 0, NULL);
  fail_unless (a && a2);
  fail_unless (a->data == a2->data, "same key gave another frames context");
  b = gst_avhw_device_get_frames_ctx (dev, fmt, 128, 64, 0, NULL);
  fail_unless (b && b->data != a->data);
  c = gst_avhw_device_get_frames_ctx (dev, fmt, 64, 128, 0, NULL);
  fail_unless (c && c->data != a->data && c->data != b->data);
  gst_avhw_cache_get_stats (NULL, &n_frames, NULL, &created);
  fail_unless_equals_int (n_frames, 2);

  /* a was least recently used and is out; asking again makes a new one */
  a3 = gst_avhw_device_get_frames_ctx (dev, fmt, 64, 64, 0, NULL);
  gst_avhw_cache_get_stats (NULL, NULL, NULL, &created2);
  fail_unless_equals_uint64 (created2, created + 1);
  fail_unless (a3->data != a->data);

  gst_avhw_cache_clear ();
  gst_avhw_cache_get_stats (NULL, &n_frames, NULL, NULL);
  fail_unless_equals_int (n_frames, 0);
  gst_avhw_cache_set_frames_limit (GST_AVHW_FRAMES_CACHE_DEFAULT_LIMIT);

  av_buffer_unref (&a);
  av_buffer_unref (&a2);
  av_buffer_unref (&b);
  av_buffer_unref (&c);
  av_buffer_unref (&a3);
  g_array_unref (fmts);
  gst_object_unref (dev);
}

GST_END_TEST;

/* A software h264 decoder opened with @threads and @extradata (NULL:
 * none), and its key. */
static AVCodecContext *
open_h264 (gint threads, const gchar * extradata, GstAvhwDecoderKey * key)
{
  const AVCodec *codec = avcodec_find_decoder (AV_CODEC_ID_H264);
  AVCodecContext *ctx = avcodec_alloc_context3 (codec);

  fail_unless (ctx != NULL);
  ctx->thread_count = threads;
  if (extradata) {
    ctx->extradata_size = strlen (extradata);
    ctx->extradata = av_mallocz (ctx->extradata_size +
        AV_INPUT_BUFFER_PADDING_SIZE);
    memcpy (ctx->extradata, extradata, ctx->extradata_size);
  }
  gst_avhw_decoder_key_init (key, ctx, codec, FALSE);
  fail_unless (avcodec_open2 (ctx, codec, NULL) == 0);
  return ctx;
}

/* The decoder cache's typed key: a kept decoder goes to a key it fits
 * (the same decoder, threads and size; codec data that follows with the
 * first packet, on a device, or the same; a reorder depth and sequence
 * needs at least the key's), on the same device only, once; an equal key
 * first. */
GST_START_TEST (test_decoder_key)
{
  GstAvhwDevice *dev = open_auto ();
  GstAvhwDecoderKey k1, k1b, k2, k3, big, kept, other;
  AVCodecContext *a = open_h264 (1, "abc", &k1);
  AVCodecContext *b = open_h264 (1, "abc", &k1b);
  AVCodecContext *c = open_h264 (2, "abc", &k2);
  AVCodecContext *d = open_h264 (1, "abd", &k3);
  gchar *s1 = gst_avhw_decoder_key_to_string (&k1);
  gchar *s3 = gst_avhw_decoder_key_to_string (&k3);

  fail_unless (gst_avhw_decoder_key_equal (&k1, &k1b));
  fail_if (gst_avhw_decoder_key_equal (&k1, &k2));
  fail_if (gst_avhw_decoder_key_equal (&k1, &k3));
  fail_if (gst_avhw_decoder_key_fits (&k1, &k2));
  /* software: the codec data must be the same */
  fail_if (k1.extradata_follows);
  fail_if (gst_avhw_decoder_key_fits (&k1, &k3));
  /* FFmpeg's h264 on a device reads new codec data from the first
   * packet: the keys of such decoders (made here by hand) fit */
  other = k1;
  other.hw = other.extradata_follows = TRUE;
  kept = k3;
  kept.hw = kept.extradata_follows = TRUE;
  fail_unless (gst_avhw_decoder_key_fits (&kept, &other));
  /* sequence needs and reorder depth: a kept decoder takes less, not more */
  big = k1;
  big.dpb_refs = 3;
  big.dpb_reorder = 2;
  big.has_b_frames = 2;
  fail_unless (gst_avhw_decoder_key_fits (&big, &k1));
  fail_if (gst_avhw_decoder_key_fits (&k1, &big));
  big.dpb_refs = 0;
  big.has_b_frames = 0;
  fail_if (gst_avhw_decoder_key_fits (&k1, &big));
  /* another size: not at all */
  other = k1;
  other.width = 640;
  fail_if (gst_avhw_decoder_key_fits (&k1, &other));
  fail_if (gst_avhw_decoder_key_fits (&other, &k1));
  /* field coding one way and not the other: not at all */
  other = k1;
  other.field_coded = TRUE;
  fail_if (gst_avhw_decoder_key_fits (&k1, &other));
  fail_if (gst_avhw_decoder_key_fits (&other, &k1));
  fail_unless (gst_avhw_decoder_key_fits (&other, &other));
  fail_unless (g_str_has_prefix (s1, "h264|sw|threads=1/"), "%s", s1);
  fail_if (strstr (s1, "codec-data(follows)=") != NULL, "%s", s1);
  fail_if (g_str_equal (s1, s3));
  gst_avhw_cache_clear ();
  gst_avhw_device_give_decoder (dev, &k1, a);
  gst_avhw_device_give_decoder (dev, &k2, c);
  /* another decoder's key: a miss */
  other = k1;
  other.thread_count = 3;
  fail_unless (gst_avhw_device_take_decoder (dev, &other, NULL) == NULL);
  /* other codec data: a miss in software */
  fail_unless (gst_avhw_device_take_decoder (dev, &k3, NULL) == NULL);
  /* the equal key: the kept decoder, with its key, once */
  memset (&kept, 0, sizeof (kept));
  fail_unless (gst_avhw_device_take_decoder (dev, &k1b, &kept) == a);
  fail_unless (gst_avhw_decoder_key_equal (&kept, &k1));
  fail_unless (gst_avhw_device_take_decoder (dev, &k1b, NULL) == NULL);
  fail_unless (gst_avhw_device_take_decoder (dev, &k2, NULL) == c);
  /* a larger reorder depth fits; an equal key goes first, even when the
   * fitting one came later */
  big = k1;
  big.has_b_frames = 2;
  gst_avhw_device_give_decoder (dev, &k1, a);
  gst_avhw_device_give_decoder (dev, &big, d);
  fail_unless (gst_avhw_device_take_decoder (dev, &k1b, NULL) == a);
  fail_unless (gst_avhw_device_take_decoder (dev, &k1b, NULL) == d);
  avcodec_free_context (&a);
  avcodec_free_context (&b);
  avcodec_free_context (&c);
  avcodec_free_context (&d);
  g_free (s1);
  g_free (s3);
  gst_object_unref (dev);
}

GST_END_TEST;

/* A decoder that sets its hardware up again for each new sequence
 * (FFmpeg's hevc on a device): a kept one of other codec data is taken
 * only when the device has no room for another; one of the same codec
 * data is always. */
GST_START_TEST (test_decoder_sequence_reinit)
{
  GstAvhwDevice *dev = open_auto ();
  GstAvhwDecoderKey k1, k2, k3, k1b, hevc;
  AVCodecContext *a = open_h264 (1, "sps-1", &k1);
  AVCodecContext *b = open_h264 (1, "sps-2", &k2);
  AVCodecContext *c = open_h264 (1, "sps-3", &k3);
  AVCodecContext *d = open_h264 (1, "sps-1", &k1b);
  const AVCodec *hevc_dec = avcodec_find_decoder_by_name ("hevc");
  AVCodecContext *h;

  /* the key says so for hevc on a device only */
  fail_unless (hevc_dec != NULL);
  h = avcodec_alloc_context3 (hevc_dec);
  gst_avhw_decoder_key_init (&hevc, h, hevc_dec, TRUE);
  fail_unless (hevc.sequence_reinit && hevc.extradata_follows);
  gst_avhw_decoder_key_init (&hevc, h, hevc_dec, FALSE);
  fail_if (hevc.sequence_reinit);
  fail_if (k1.sequence_reinit);
  avcodec_free_context (&h);
  /* h264 contexts stand in, with keys made as hevc's on a device */
  k1.hw = k2.hw = k3.hw = k1b.hw = TRUE;
  k1.extradata_follows = k2.extradata_follows = k3.extradata_follows =
      k1b.extradata_follows = TRUE;
  k1.sequence_reinit = k2.sequence_reinit = k3.sequence_reinit =
      k1b.sequence_reinit = TRUE;
  fail_unless (gst_avhw_decoder_key_fits (&k1, &k2));
  gst_avhw_cache_clear ();
  gst_avhw_cache_set_decoders_limit (2);
  gst_avhw_device_give_decoder (dev, &k1, a);
  /* room for two: open another for sps-2, keep a for sps-1 */
  fail_unless (gst_avhw_device_take_decoder (dev, &k2, NULL) == NULL);
  gst_avhw_device_give_decoder (dev, &k2, b);
  /* full: the one given last is set up again for sps-3 */
  fail_unless (gst_avhw_device_take_decoder (dev, &k3, NULL) == b);
  gst_avhw_device_give_decoder (dev, &k3, b);
  /* the same codec data: its own decoder, whatever the room */
  fail_unless (gst_avhw_device_take_decoder (dev, &k1b, NULL) == a);
  gst_avhw_cache_set_decoders_limit (4);
  fail_unless (gst_avhw_device_take_decoder (dev, &k3, NULL) == b);
  /* without the flag, a fitting decoder goes whatever the room */
  k1.sequence_reinit = k2.sequence_reinit = FALSE;
  gst_avhw_device_give_decoder (dev, &k1, a);
  fail_unless (gst_avhw_device_take_decoder (dev, &k2, NULL) == a);
  gst_avhw_cache_set_decoders_limit (GST_AVHW_DECODERS_CACHE_AUTO);
  gst_avhw_cache_clear ();
  avcodec_free_context (&a);
  avcodec_free_context (&b);
  avcodec_free_context (&c);
  avcodec_free_context (&d);
  gst_object_unref (dev);
}

GST_END_TEST;

static Suite *
cache_suite (void)
{
  Suite *s = suite_create ("avhw-cache");
  TCase *tc = tcase_create ("general");

  avhw_test_require_device ("auto");
  suite_add_tcase (s, tc);
  if (g_getenv ("GST_AVHW_REUSE")) {
    tcase_add_test (tc, test_reuse_disabled_by_env);
    return s;
  }
  if (g_getenv ("GST_AVHW_DEVICE_LANES")) {
    tcase_add_test (tc, test_lanes_by_env);
    return s;
  }
  tcase_add_test (tc, test_same_context_twice);
  tcase_add_test (tc, test_new_context_after_clear);
  tcase_add_test (tc, test_reuse_disabled_at_runtime);
  tcase_add_test (tc, test_threads_open_once);
  tcase_add_test (tc, test_frames_cache_lru);
  tcase_add_test (tc, test_decoder_key);
  tcase_add_test (tc, test_decoder_sequence_reinit);
  return s;
}

GST_CHECK_MAIN (cache);
