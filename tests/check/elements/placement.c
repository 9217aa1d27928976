/* gst-avhw tests: several devices in one process: device=auto and
 * device=BACKEND go to the least busy device, pins hold, a device that
 * fails to open is skipped, caches are per device, counts return to 0
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../avhw-test-utils.h"

#define N_MULTI 4
#define BROKEN_INDEX 2

/* A backend with four devices on FFmpeg's vulkan device (lavapipe here:
 * each open makes a VkDevice of its own, so each index is a device context
 * of its own, as on a host with four GPUs). multi:2 fails to open. No
 * decoder or encoder candidates: avhwdec decodes in software, avhwenc
 * uses its fallback, both still on their device. Ranked above every real
 * backend so that `auto` means this one. */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwMultiBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwMultiBackendClass;
static GType gst_avhw_multi_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwMultiBackend, gst_avhw_multi_backend,
    GST_TYPE_AVHW_BACKEND);

static gint n_opens[N_MULTI];
static gint n_lane_opens;       /* opens asking for a lane above 0 */

static guint
multi_get_n_devices (GstAvhwBackend * b, gchar ** reason)
{
  return N_MULTI;
}

static AVBufferRef *
multi_open_device (GstAvhwBackend * b, guint index,
    const GstStructure * options, GError ** error)
{
  AVBufferRef *ref = NULL;
  int ret;

  g_assert (index < N_MULTI);
  g_atomic_int_inc (&n_opens[index]);
  if (gst_avhw_options_get_lane (options) > 0)
    g_atomic_int_inc (&n_lane_opens);
  if (index == BROKEN_INDEX) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "multi:%u is broken (test)", index);
    return NULL;
  }
  ret = av_hwdevice_ctx_create (&ref, AV_HWDEVICE_TYPE_VULKAN, "0", NULL, 0);
  if (ret < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "multi:%u: no vulkan device (%d)", index, ret);
    return NULL;
  }
  return ref;
}

static void
gst_avhw_multi_backend_class_init (GstAvhwMultiBackendClass * k)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (k);

  gst_avhw_backend_class_init_contract (k);
  b->name = "multi";
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = "memory:AVHWMulti";
  b->rank = GST_RANK_PRIMARY + 100;
  b->get_n_devices = multi_get_n_devices;
  b->open_device = multi_open_device;
  b->get_decoders = avhw_test_no_codecs;
  b->get_encoders = avhw_test_no_codecs;
  b->get_sw_formats = avhw_test_common_sw_formats;
}

static void
gst_avhw_multi_backend_init (GstAvhwMultiBackend * b)
{
}

/* Two devices, neither of which opens. */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwBrokenBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwBrokenBackendClass;
static GType gst_avhw_broken_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwBrokenBackend, gst_avhw_broken_backend,
    GST_TYPE_AVHW_BACKEND);

static guint
broken_get_n_devices (GstAvhwBackend * b, gchar ** reason)
{
  return 2;
}

static AVBufferRef *
broken_open_device (GstAvhwBackend * b, guint index,
    const GstStructure * options, GError ** error)
{
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
      "broken:%u is broken (test)", index);
  return NULL;
}

static void
gst_avhw_broken_backend_class_init (GstAvhwBrokenBackendClass * k)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (k);

  gst_avhw_backend_class_init_contract (k);
  b->name = "broken";
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = "memory:AVHWBroken";
  b->get_n_devices = broken_get_n_devices;
  b->open_device = broken_open_device;
  b->get_decoders = avhw_test_no_codecs;
  b->get_encoders = avhw_test_no_codecs;
}

static void
gst_avhw_broken_backend_init (GstAvhwBrokenBackend * b)
{
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_avhw_backend_register (plugin, gst_avhw_multi_backend_get_type ())
      && gst_avhw_backend_register (plugin,
      gst_avhw_broken_backend_get_type ());
}

/* ------------------------------------------------------------- helpers */

static gchar *clip;
static GstAvhwBackend *multi;

/* GST_WARNINGs of the device category, to see skipped devices. */
static GMutex warn_lock;
static GString *warnings;

static void
log_func (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (level != GST_LEVEL_WARNING
      || g_strcmp0 (gst_debug_category_get_name (category), "avhwdevice"))
    return;
  g_mutex_lock (&warn_lock);
  g_string_append_printf (warnings, "%s\n", gst_debug_message_get (message));
  g_mutex_unlock (&warn_lock);
}

static gchar *
take_warnings (void)
{
  gchar *s;

  g_mutex_lock (&warn_lock);
  s = g_strdup (warnings->str);
  g_string_truncate (warnings, 0);
  g_mutex_unlock (&warn_lock);
  return s;
}

static guint
n_active (guint index)
{
  return gst_avhw_backend_get_n_active (multi, index);
}

static void
assert_all_idle (void)
{
  guint i;

  for (i = 0; i < N_MULTI; i++)
    fail_unless_equals_int (n_active (i), 0);
}

/* Every test starts from an empty cache and no sessions. */
static void
setup (void)
{
  gst_avhw_cache_clear ();
  assert_all_idle ();
  g_free (take_warnings ());
}

static const gchar *
active_device_name (GstElement * e, gchar ** out)
{
  GstAvhwDevice *dev = NULL;

  g_object_get (e, "active-device", &dev, NULL);
  *out = dev ? g_strdup (gst_avhw_device_get_name (dev)) : NULL;
  gst_clear_object (&dev);
  return *out;
}

/* A decode pipeline on @device, brought to PLAYING and run to EOS; the
 * decoder stays a session on its device until the pipeline stops. */
static GstElement *
start_decoder (const gchar * device, gchar ** where)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=dec device=%s ! video/x-raw ! fakesink", clip, device);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *dec;
  GstMessage *msg;

  fail_unless (p != NULL);
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s did not start", desc);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "%s: no EOS", desc);
  gst_message_unref (msg);
  dec = gst_bin_get_by_name (GST_BIN (p), "dec");
  fail_unless (active_device_name (dec, where) != NULL);
  gst_object_unref (dec);
  g_free (desc);
  return p;
}

static void
stop (GstElement * p)
{
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (p);
}

/* --------------------------------------------------------------- tests */

/* The library alone: `multi` and `auto` open the least busy device, ties
 * to the lowest index; sessions counted with acquire/release. */
GST_START_TEST (test_api_least_busy)
{
  GstAvhwDevice *d0, *d1, *d3, *d;
  GError *err = NULL;

  setup ();
  d0 = gst_avhw_device_open ("multi", NULL, &err);
  fail_unless (d0 != NULL, "%s", err ? err->message : "");
  fail_unless_equals_string (gst_avhw_device_get_name (d0), "multi:0");
  d = gst_avhw_device_open ("auto", NULL, NULL);
  fail_unless (d == d0);
  gst_object_unref (d);

  gst_avhw_device_acquire_session (d0);
  fail_unless_equals_int (gst_avhw_device_get_n_active (d0), 1);
  fail_unless_equals_int (n_active (0), 1);
  d1 = gst_avhw_device_open ("multi", NULL, NULL);
  fail_unless_equals_string (gst_avhw_device_get_name (d1), "multi:1");
  gst_avhw_device_acquire_session (d1);

  /* multi:2 is broken: skipped, multi:3 is next */
  d3 = gst_avhw_device_open ("auto", NULL, NULL);
  fail_unless (d3 != NULL);
  fail_unless_equals_string (gst_avhw_device_get_name (d3), "multi:3");
  gst_avhw_device_acquire_session (d3);
  gst_avhw_device_acquire_session (d3);

  /* loads 1 1 - 2: multi:0 (lowest index of the least busy) */
  d = gst_avhw_device_open ("multi", NULL, NULL);
  fail_unless (d == d0);
  gst_object_unref (d);
  gst_avhw_device_acquire_session (d0);
  /* loads 2 1 - 2: multi:1 */
  d = gst_avhw_device_open ("multi", NULL, NULL);
  fail_unless (d == d1);
  gst_object_unref (d);

  /* uncached opens place the same way: a new context on multi:1 */
  d = gst_avhw_device_open_uncached ("multi", NULL, NULL);
  fail_unless_equals_string (gst_avhw_device_get_name (d), "multi:1");
  fail_unless (d != d1);
  /* ... and count on the same hardware device */
  gst_avhw_device_acquire_session (d);
  fail_unless_equals_int (gst_avhw_device_get_n_active (d1), 2);
  gst_avhw_device_release_session (d);
  gst_object_unref (d);

  gst_avhw_device_release_session (d0);
  gst_avhw_device_release_session (d0);
  gst_avhw_device_release_session (d1);
  gst_avhw_device_release_session (d3);
  gst_avhw_device_release_session (d3);
  assert_all_idle ();
  gst_object_unref (d0);
  gst_object_unref (d1);
  gst_object_unref (d3);
}

GST_END_TEST;

/* `multi:N` is that device whatever the loads; the broken one fails with
 * its own error and is not replaced. */
GST_START_TEST (test_api_pins)
{
  GstAvhwDevice *d0, *d;
  GError *err = NULL;
  gchar *w;

  setup ();
  d0 = gst_avhw_device_open ("multi:0", NULL, NULL);
  fail_unless_equals_string (gst_avhw_device_get_name (d0), "multi:0");
  gst_avhw_device_acquire_session (d0);
  gst_avhw_device_acquire_session (d0);
  d = gst_avhw_device_open ("multi:0", NULL, NULL);
  fail_unless (d == d0);
  gst_object_unref (d);
  d = gst_avhw_device_open ("multi:3", NULL, NULL);
  fail_unless_equals_string (gst_avhw_device_get_name (d), "multi:3");
  gst_object_unref (d);

  fail_if (gst_avhw_device_open ("multi:2", NULL, &err) != NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR,
          GST_AVHW_ERROR_OPEN_FAILED));
  fail_unless_equals_string (err->message, "multi:2 is broken (test)");
  g_clear_error (&err);
  w = take_warnings ();
  fail_unless_equals_string (w, "");    /* a pin is not skipped: it fails */
  g_free (w);

  fail_if (gst_avhw_device_open ("multi:4", NULL, &err) != NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE));
  fail_unless (strstr (err->message, "multi:0 to multi:3") != NULL, "%s",
      err->message);
  g_clear_error (&err);

  gst_avhw_device_release_session (d0);
  gst_avhw_device_release_session (d0);
  gst_object_unref (d0);
}

GST_END_TEST;

/* A device that fails to open is skipped with a warning naming it and its
 * reason; when none opens the error lists every device. */
GST_START_TEST (test_api_failed_device_skipped)
{
  GstAvhwDevice *d0, *d1, *d;
  GError *err = NULL;
  gint before = g_atomic_int_get (&n_opens[BROKEN_INDEX]);
  gchar *w;

  setup ();
  d0 = gst_avhw_device_open ("multi:0", NULL, NULL);
  d1 = gst_avhw_device_open ("multi:1", NULL, NULL);
  gst_avhw_device_acquire_session (d0);
  gst_avhw_device_acquire_session (d1);
  d = gst_avhw_device_open ("multi", NULL, &err);
  fail_unless (d != NULL, "%s", err ? err->message : "");
  fail_unless_equals_string (gst_avhw_device_get_name (d), "multi:3");
  fail_unless_equals_int (g_atomic_int_get (&n_opens[BROKEN_INDEX]),
      before + 1);
  w = take_warnings ();
  fail_unless (strstr (w, "multi:2 failed to open") != NULL, "warnings: %s", w);
  fail_unless (strstr (w, "multi:2 is broken (test)") != NULL, "%s", w);
  g_free (w);
  gst_object_unref (d);
  gst_avhw_device_release_session (d0);
  gst_avhw_device_release_session (d1);
  gst_object_unref (d0);
  gst_object_unref (d1);

  fail_if (gst_avhw_device_open ("broken", NULL, &err) != NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR,
          GST_AVHW_ERROR_OPEN_FAILED));
  fail_unless (strstr (err->message, "none of the 2 broken devices") != NULL,
      "%s", err->message);
  fail_unless (strstr (err->message, "broken:0 is broken (test)") != NULL
      && strstr (err->message, "broken:1 is broken (test)") != NULL, "%s",
      err->message);
  g_print ("%s\n", err->message);
  g_clear_error (&err);
  w = take_warnings ();
  fail_unless (strstr (w, "broken:0 failed to open") != NULL, "%s", w);
  g_free (w);
}

GST_END_TEST;

/* Clearing one device's entries leaves the others; the frames limit holds
 * per device. */
GST_START_TEST (test_cache_per_device)
{
  GstAvhwDevice *d0, *d1, *d;
  AVBufferRef *f;
  guint n_devices, n_frames, i;
  GError *err = NULL;

  setup ();
  gst_avhw_cache_set_frames_limit (2);
  d0 = gst_avhw_device_open ("multi:0", NULL, NULL);
  d1 = gst_avhw_device_open ("multi:1", NULL, NULL);
  fail_unless (d0 && d1);
  fail_unless (gst_avhw_device_get_context_id (d0) !=
      gst_avhw_device_get_context_id (d1));
  for (i = 0; i < 3; i++) {
    f = gst_avhw_device_get_frames_ctx (d0, AV_PIX_FMT_NV12, 64 + 16 * i, 64,
        0, &err);
    fail_unless (f != NULL, "%s", err ? err->message : "");
    av_buffer_unref (&f);
  }
  for (i = 0; i < 2; i++) {
    f = gst_avhw_device_get_frames_ctx (d1, AV_PIX_FMT_NV12, 64 + 16 * i, 64,
        0, &err);
    fail_unless (f != NULL, "%s", err ? err->message : "");
    av_buffer_unref (&f);
  }
  /* 2 on each: multi:0's third did not evict multi:1's */
  gst_avhw_cache_get_stats (&n_devices, &n_frames, NULL, NULL);
  fail_unless_equals_int (n_devices, 2);
  fail_unless_equals_int (n_frames, 4);

  gst_avhw_cache_clear_device (d0);
  gst_avhw_cache_get_stats (&n_devices, &n_frames, NULL, NULL);
  fail_unless_equals_int (n_devices, 1);
  fail_unless_equals_int (n_frames, 2);
  /* multi:1 is still cached, multi:0 opens anew */
  d = gst_avhw_device_open ("multi:1", NULL, NULL);
  fail_unless (d == d1);
  gst_object_unref (d);
  d = gst_avhw_device_open ("multi:0", NULL, NULL);
  fail_unless (d != d0);
  fail_unless_equals_string (gst_avhw_device_get_name (d), "multi:0");
  /* the old device is still valid for its user */
  f = gst_avhw_device_get_frames_ctx (d0, AV_PIX_FMT_NV12, 64, 64, 0, &err);
  fail_unless (f != NULL, "%s", err ? err->message : "");
  av_buffer_unref (&f);
  gst_object_unref (d);

  gst_avhw_cache_clear_device (d1);
  gst_avhw_cache_get_stats (&n_devices, &n_frames, NULL, NULL);
  fail_unless_equals_int (n_devices, 1);        /* the new multi:0 */
  /* the old multi:0's frames context above was cached again */
  fail_unless_equals_int (n_frames, 1);
  gst_avhw_cache_clear_device (d0);
  gst_avhw_cache_get_stats (&n_devices, &n_frames, NULL, NULL);
  fail_unless_equals_int (n_devices, 0);
  fail_unless_equals_int (n_frames, 0);

  gst_avhw_cache_set_frames_limit (GST_AVHW_FRAMES_CACHE_DEFAULT_LIMIT);
  gst_object_unref (d0);
  gst_object_unref (d1);
}

GST_END_TEST;

/* Six decode pipelines started one after another with device=multi (three
 * with auto): two on each device that opens, multi:2 skipped each time;
 * the sessions end when the pipelines stop. */
GST_START_TEST (test_pipelines_spread)
{
  const gchar *want[] = { "multi:0", "multi:1", "multi:3", "multi:0",
    "multi:1", "multi:3"
  };
  GstElement *p[G_N_ELEMENTS (want)];
  gchar *where, *w;
  guint i;

  setup ();
  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    p[i] = start_decoder (i % 2 ? "auto" : "multi", &where);
    fail_unless_equals_string (where, want[i]);
    g_free (where);
  }
  fail_unless_equals_int (n_active (0), 2);
  fail_unless_equals_int (n_active (1), 2);
  fail_unless_equals_int (n_active (2), 0);
  fail_unless_equals_int (n_active (3), 2);
  w = take_warnings ();
  fail_unless (strstr (w, "multi:2 failed to open") != NULL, "%s", w);
  g_free (w);

  /* PAUSED->READY ends the session; READY keeps the device */
  fail_unless_equals_int (gst_element_set_state (p[0], GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (n_active (0), 1);
  /* the next one goes to multi:0 again */
  {
    GstElement *q = start_decoder ("multi", &where);

    fail_unless_equals_string (where, "multi:0");
    g_free (where);
    fail_unless_equals_int (n_active (0), 2);
    stop (q);
  }
  for (i = 0; i < G_N_ELEMENTS (want); i++)
    stop (p[i]);
  assert_all_idle ();
}

GST_END_TEST;

/* A pinned element stays on its device while the others are busier. */
GST_START_TEST (test_pipeline_pin)
{
  GstElement *a, *b, *c;
  gchar *where;
  GError *err = NULL;
  GstMessage *msg;

  setup ();
  a = start_decoder ("multi:3", &where);
  fail_unless_equals_string (where, "multi:3");
  g_free (where);
  b = start_decoder ("multi:3", &where);
  fail_unless_equals_string (where, "multi:3");
  g_free (where);
  fail_unless_equals_int (n_active (3), 2);
  c = start_decoder ("multi", &where);
  fail_unless_equals_string (where, "multi:0");
  g_free (where);
  stop (c);
  stop (b);
  stop (a);

  /* the broken device pinned: the state change fails, naming it */
  a = gst_parse_launch ("videotestsrc num-buffers=1 ! avhwenc name=enc "
      "device=multi:2 fallback=libx264 ! fakesink", &err);
  fail_unless (a != NULL, "%s", err ? err->message : "");
  fail_unless_equals_int (gst_element_set_state (a, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (a), GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "multi:2") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  stop (a);
  assert_all_idle ();
}

GST_END_TEST;

/* A decoder and an encoder in one pipeline share one device: the second
 * gets the first's through the gst.avhw.device context, even when the
 * loads change between the two (here: five sessions are added on the first
 * one's device the moment it announces it). */
static GstBusSyncReply
load_chosen_device (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  GstAvhwDevice **loaded = user_data;
  GstContext *ctx;
  GstAvhwDevice *dev = NULL;
  guint i;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_HAVE_CONTEXT || *loaded)
    return GST_BUS_PASS;
  gst_message_parse_have_context (msg, &ctx);
  if (gst_avhw_context_get_device (ctx, &dev)) {
    for (i = 0; i < 5; i++)
      gst_avhw_device_acquire_session (dev);
    *loaded = dev;
  }
  gst_context_unref (ctx);
  return GST_BUS_PASS;
}

GST_START_TEST (test_pipeline_shares_one_device)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=dec device=multi ! video/x-raw ! queue ! "
      "avhwenc name=enc device=multi fallback=libx264 ! fakesink", clip);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *dec = gst_bin_get_by_name (GST_BIN (p), "dec");
  GstElement *enc = gst_bin_get_by_name (GST_BIN (p), "enc");
  GstAvhwDevice *loaded = NULL;
  gchar *wdec, *wenc;
  guint i;

  setup ();
  gst_bus_set_sync_handler (GST_ELEMENT_BUS (p), load_chosen_device, &loaded,
      NULL);
  avhw_test_play_to_eos (p);
  fail_unless (loaded != NULL);
  active_device_name (dec, &wdec);
  active_device_name (enc, &wenc);
  fail_unless_equals_string (wdec, gst_avhw_device_get_name (loaded));
  fail_unless_equals_string (wenc, wdec);
  /* five added, two elements */
  fail_unless_equals_int (gst_avhw_device_get_n_active (loaded), 7);
  stop (p);
  fail_unless_equals_int (gst_avhw_device_get_n_active (loaded), 5);
  for (i = 0; i < 5; i++)
    gst_avhw_device_release_session (loaded);
  assert_all_idle ();
  gst_object_unref (loaded);
  gst_object_unref (dec);
  gst_object_unref (enc);
  g_free (wdec);
  g_free (wenc);
  g_free (desc);
}

GST_END_TEST;

/* With two lanes a second pipeline on a busy device gets a context of
 * its own, a decoder and encoder of one pipeline stay on one, and with
 * every pipeline stopped the first context is taken again. */
GST_START_TEST (test_pipelines_take_lanes)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=dec device=multi:0 ! video/x-raw ! queue ! "
      "avhwenc name=enc device=multi:0 fallback=libx264 ! fakesink", clip);
  GstElement *p1, *p2, *p3, *p4;
  GstAvhwDevice *d1, *d2, *d3dec, *d3enc, *d4;
  gint opens0;
  gchar *w;

  setup ();
  gst_avhw_cache_set_lanes (2);
  opens0 = g_atomic_int_get (&n_opens[0]);
  p1 = start_decoder ("multi:0", &w);
  g_free (w);
  p2 = start_decoder ("multi:0", &w);
  g_free (w);
  d1 = avhw_test_active_device (p1, "dec");
  d2 = avhw_test_active_device (p2, "dec");
  fail_unless (d1 != NULL && d2 != NULL);
  fail_unless (d1 != d2, "two pipelines at once on one context");
  fail_unless_equals_string (gst_avhw_device_get_name (d2), "multi:0");
  fail_unless_equals_int (g_atomic_int_get (&n_opens[0]) - opens0, 2);
  fail_unless_equals_int (g_atomic_int_get (&n_lane_opens), 1);

  p3 = gst_parse_launch (desc, NULL);
  avhw_test_play_to_eos (p3);
  d3dec = avhw_test_active_device (p3, "dec");
  d3enc = avhw_test_active_device (p3, "enc");
  fail_unless (d3dec != NULL);
  fail_unless (d3dec == d3enc, "one pipeline spread over two lanes");
  fail_unless (d3dec == d1 || d3dec == d2);
  fail_unless_equals_int (g_atomic_int_get (&n_opens[0]) - opens0, 2);

  stop (p1);
  stop (p2);
  stop (p3);
  assert_all_idle ();
  p4 = start_decoder ("multi:0", &w);
  g_free (w);
  d4 = avhw_test_active_device (p4, "dec");
  fail_unless (d4 != NULL);
  fail_unless (d4 == d1, "an idle device did not get its first context");
  stop (p4);
  gst_avhw_cache_set_lanes (0);
  gst_object_unref (d1);
  gst_object_unref (d2);
  gst_object_unref (d3dec);
  gst_object_unref (d3enc);
  gst_object_unref (d4);
  g_free (desc);
}

GST_END_TEST;

static guint
two_lanes_on_multi0 (GstAvhwBackend * b, guint index)
{
  return index == 0 ? 2 : 1;
}

/* With no lanes asked for (0, the default), the backend's get_default_lanes
 * decides: here two on multi:0, one elsewhere. */
GST_START_TEST (test_backend_default_lanes)
{
  GstAvhwBackendClass *k = GST_AVHW_BACKEND_GET_CLASS (multi);
  GstAvhwDevice *d0, *d, *d1;
  gint lane_opens;

  setup ();
  fail_unless_equals_int (gst_avhw_cache_get_lanes (), 0);
  lane_opens = g_atomic_int_get (&n_lane_opens);
  k->get_default_lanes = two_lanes_on_multi0;
  d0 = gst_avhw_device_open ("multi:0", NULL, NULL);
  gst_avhw_device_acquire_session (d0);
  d = gst_avhw_device_open ("multi:0", NULL, NULL);
  fail_unless (d != NULL && d != d0, "the backend's two lanes not used");
  d1 = gst_avhw_device_open ("multi:1", NULL, NULL);
  gst_avhw_device_acquire_session (d1);
  gst_object_unref (d1);
  d1 = gst_avhw_device_open ("multi:1", NULL, NULL);
  fail_unless_equals_int (g_atomic_int_get (&n_lane_opens) - lane_opens, 1);
  k->get_default_lanes = NULL;
  gst_avhw_device_release_session (d0);
  gst_avhw_device_release_session (d1);
  assert_all_idle ();
  gst_object_unref (d);
  gst_object_unref (d0);
  gst_object_unref (d1);
}

GST_END_TEST;

/* lane 1 of multi:0 runs three sessions at full speed, as the vulkan
 * backend's lane 1 runs one per decode queue but one */
static guint
lane1_runs_three (GstAvhwBackend * b, guint index, guint lane)
{
  return lane == 1 ? 3 : 1;
}

/* The backend's get_lane_sessions: lane 0 takes the first session, lane 1
 * the next three, and only then do sessions share, each where it shares
 * least: the fifth and sixth go to lane 1 (5/3 and 6/3 against lane 0's
 * 2/1), the seventh to lane 0 (2/1 against 7/3). Lanes the application
 * chose ignore it. */
GST_START_TEST (test_backend_lane_sessions)
{
  GstAvhwBackendClass *k = GST_AVHW_BACKEND_GET_CLASS (multi);
  GstAvhwDevice *d[8];
  guint i;

  setup ();
  k->get_default_lanes = two_lanes_on_multi0;
  k->get_lane_sessions = lane1_runs_three;
  for (i = 0; i < 7; i++) {
    d[i] = gst_avhw_device_open ("multi:0", NULL, NULL);
    fail_unless (d[i] != NULL);
    gst_avhw_device_acquire_session (d[i]);
  }
  fail_unless (d[1] != d[0], "the second session did not open lane 1");
  fail_unless (d[2] == d[1] && d[3] == d[1], "lane 1 not filled to three");
  fail_unless (d[4] == d[1] && d[5] == d[1], "the fifth and sixth session "
      "not on lane 1, where they share less");
  fail_unless (d[6] == d[0], "the seventh session not on lane 0");
  /* two lanes the application chose: one session each, then in turn */
  gst_avhw_cache_set_lanes (2);
  d[7] = gst_avhw_device_open ("multi:0", NULL, NULL);
  fail_unless (d[7] == d[0], "chosen lanes placed by the backend's sessions: "
      "lane 0 has 2, lane 1 has 5");
  gst_avhw_cache_set_lanes (0);
  k->get_default_lanes = NULL;
  k->get_lane_sessions = NULL;
  for (i = 0; i < 7; i++)
    gst_avhw_device_release_session (d[i]);
  assert_all_idle ();
  for (i = 0; i < 8; i++)
    gst_object_unref (d[i]);
}

GST_END_TEST;

/* A device named on one element reaches the elements left at auto, up-
 * and downstream, whatever order they reach READY in: with four devices
 * and the least busy one otherwise chosen (multi:0), each `auto` element
 * must report the named device (issue 28, item 2). */
GST_START_TEST (test_named_device_reaches_auto_neighbours)
{
  static const struct
  {
    const gchar *desc;          /* %s: the clip */
    const gchar *names[3];      /* elements that must be on multi:3 */
  } cases[] = {
    {"filesrc location=%s ! h264parse ! avhwdec name=a device=multi:3 ! "
          "queue ! avhwenc name=b fallback=libx264 ! fakesink", {"a", "b"}},
    {"filesrc location=%s ! h264parse ! avhwdec name=a ! queue ! "
          "avhwenc name=b device=multi:3 fallback=libx264 ! fakesink",
        {"a", "b"}},
    {"videotestsrc num-buffers=2 ! video/x-raw,format=NV12 ! avhwupload "
          "name=a device=multi:3 ! tee name=t ! queue ! avhwdownload name=b ! "
          "fakesink t. ! queue ! avhwenc name=c fallback=libx264 ! fakesink",
        {"a", "b", "c"}},
    {"videotestsrc num-buffers=2 ! video/x-raw,format=NV12 ! "
          "avhwupload name=a ! tee ! queue ! avhwdownload name=b "
          "device=multi:3 ! fakesink", {"a", "b"}},
  };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf (cases[i].desc, clip);
    GError *err = NULL;
    GstElement *p = gst_parse_launch (desc, &err);
    GstMessage *msg;

    setup ();
    fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "");
    gst_element_set_state (p, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      fail ("%s: %s (%s)", desc, err->message, dbg);
    }
    fail_unless (msg != NULL, "%s did not end", desc);
    gst_message_unref (msg);
    for (j = 0; j < G_N_ELEMENTS (cases[i].names) && cases[i].names[j]; j++) {
      GstElement *e = gst_bin_get_by_name (GST_BIN (p), cases[i].names[j]);
      gchar *where;

      active_device_name (e, &where);
      fail_unless_equals_string (where, "multi:3");
      g_free (where);
      gst_object_unref (e);
    }
    stop (p);
    assert_all_idle ();
    g_free (desc);
  }
}

GST_END_TEST;

/* Encoders count too, and avhwupload/avhwdownload do not. */
GST_START_TEST (test_encoders_count_transfers_do_not)
{
  GstElement *p[3];
  GstAvhwDevice *up_dev = NULL;
  guint i;

  setup ();
  for (i = 0; i < 3; i++) {
    GstElement *enc;
    GstMessage *msg;
    gchar *where, *expect = g_strdup_printf ("multi:%u", i == 2 ? 3 : i);

    p[i] = gst_parse_launch ("videotestsrc num-buffers=5 ! "
        "video/x-raw,format=NV12,width=64,height=48 ! avhwenc name=enc "
        "device=multi fallback=libx264 ! fakesink", NULL);
    gst_element_set_state (p[i], GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p[i]),
        60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    enc = gst_bin_get_by_name (GST_BIN (p[i]), "enc");
    active_device_name (enc, &where);
    fail_unless_equals_string (where, expect);
    g_free (where);
    g_free (expect);
    gst_object_unref (enc);
  }
  fail_unless_equals_int (n_active (0) + n_active (1) + n_active (3), 3);
  for (i = 0; i < 3; i++)
    stop (p[i]);
  assert_all_idle ();

  /* an upload/download pipeline holds no session */
  {
    GstElement *q = gst_parse_launch ("videotestsrc num-buffers=5 ! "
        "video/x-raw,format=NV12,width=64,height=48 ! avhwupload name=up "
        "device=multi ! avhwdownload ! fakesink", NULL);
    GstElement *up = gst_bin_get_by_name (GST_BIN (q), "up");
    GstMessage *msg;

    gst_element_set_state (q, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (q), 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    g_object_get (up, "active-device", &up_dev, NULL);
    fail_unless (up_dev != NULL);
    assert_all_idle ();
    gst_object_unref (up_dev);
    gst_object_unref (up);
    stop (q);
  }
}

GST_END_TEST;

/* Before READY the property is NULL; after NULL too. */
GST_START_TEST (test_active_device_property)
{
  GstElement *dec = gst_element_factory_make ("avhwdec", NULL);
  GstAvhwDevice *dev = NULL;

  setup ();
  g_object_set (dec, "device", "multi", NULL);
  g_object_get (dec, "active-device", &dev, NULL);
  fail_unless (dev == NULL);
  fail_unless_equals_int (gst_element_set_state (dec, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  g_object_get (dec, "active-device", &dev, NULL);
  fail_unless (dev != NULL);
  fail_unless_equals_string (gst_avhw_device_get_name (dev), "multi:0");
  /* READY alone is not a session */
  fail_unless_equals_int (gst_avhw_device_get_n_active (dev), 0);
  gst_object_unref (dev);
  fail_unless_equals_int (gst_element_set_state (dec, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_object_get (dec, "active-device", &dev, NULL);
  fail_unless (dev == NULL);
  gst_object_unref (dec);
}

GST_END_TEST;

/* Single-device backends are as before: device=vulkan (opencl) is their
 * device 0 whatever its load, and an element pinned there still works. */
GST_START_TEST (test_single_device_backends_unchanged)
{
  const gchar *names[] = { "vulkan", "opencl" };
  guint i, ran = 0;

  setup ();
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstAvhwBackend *b = gst_avhw_backend_find (names[i], NULL);
    GstAvhwDevice *d, *again;
    gchar *expect;

    if (!b || gst_avhw_backend_get_n_devices (b, NULL) != 1) {
      g_print ("%s: not a single-device backend here, not checked\n", names[i]);
      gst_clear_object (&b);
      continue;
    }
    expect = g_strdup_printf ("%s:0", names[i]);
    d = gst_avhw_device_open (names[i], NULL, NULL);
    fail_unless (d != NULL);
    fail_unless_equals_string (gst_avhw_device_get_name (d), expect);
    gst_avhw_device_acquire_session (d);
    gst_avhw_device_acquire_session (d);
    again = gst_avhw_device_open (names[i], NULL, NULL);
    fail_unless (again == d);
    gst_object_unref (again);
    fail_unless_equals_int (gst_avhw_backend_get_n_active (b, 0), 2);
    gst_avhw_device_release_session (d);
    gst_avhw_device_release_session (d);
    fail_unless_equals_int (gst_avhw_backend_get_n_active (b, 0), 0);
    gst_object_unref (d);
    gst_object_unref (b);
    g_free (expect);
    ran++;
  }
  g_print ("%u single-device backend(s) checked\n", ran);
}

GST_END_TEST;

static Suite *
placement_suite (void)
{
  Suite *s = suite_create ("avhw-placement");
  TCase *tc = tcase_create ("general");
  GstElementFactory *x264 = gst_element_factory_find ("x264enc");
  gchar *tmp, *desc;
  GstElement *p;
  GstMessage *msg;

  /* The multi backend's devices are FFmpeg vulkan devices. */
  avhw_test_require_device ("vulkan");
  if (!x264) {
    g_print ("SKIP: needs x264enc (gst-plugins-ugly) to make a clip\n");
    exit (77);
  }
  gst_object_unref (x264);
  if (!gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR,
          "avhwmultitest", "test backends", plugin_init, VERSION, GST_LICENSE,
          GST_PACKAGE_NAME, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
      || !(multi = gst_avhw_backend_find ("multi", NULL))) {
    g_print ("could not register the test backends\n");
    exit (1);
  }

  warnings = g_string_new (NULL);
  gst_debug_set_threshold_for_name ("avhwdevice", GST_LEVEL_WARNING);
  gst_debug_add_log_function (log_func, NULL, NULL);

  tmp = g_dir_make_tmp ("avhw-placement-XXXXXX", NULL);
  clip = g_build_filename (tmp, "clip.h264", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=5 ! video/x-raw,width=64,"
      "height=48 ! x264enc speed-preset=ultrafast ! h264parse ! "
      "video/x-h264,stream-format=byte-stream ! filesink location=%s", clip);
  p = gst_parse_launch (desc, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    g_print ("could not make the clip\n");
    exit (1);
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_free (tmp);

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_api_least_busy);
  tcase_add_test (tc, test_api_pins);
  tcase_add_test (tc, test_api_failed_device_skipped);
  tcase_add_test (tc, test_cache_per_device);
  tcase_add_test (tc, test_pipelines_spread);
  tcase_add_test (tc, test_pipeline_pin);
  tcase_add_test (tc, test_pipeline_shares_one_device);
  tcase_add_test (tc, test_pipelines_take_lanes);
  tcase_add_test (tc, test_backend_default_lanes);
  tcase_add_test (tc, test_backend_lane_sessions);
  tcase_add_test (tc, test_named_device_reaches_auto_neighbours);
  tcase_add_test (tc, test_encoders_count_transfers_do_not);
  tcase_add_test (tc, test_active_device_property);
  tcase_add_test (tc, test_single_device_backends_unchanged);
  return s;
}

GST_CHECK_MAIN (placement);
