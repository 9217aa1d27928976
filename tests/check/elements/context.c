/* gst-avhw tests: one device along a pipeline and across pipelines
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "../avhw-test-utils.h"

#define PIPELINE "videotestsrc num-buffers=3 ! video/x-raw,format=I420," \
  "width=64,height=48 ! avhwupload name=up device=%s ! avhwdownload " \
  "name=down ! fakesink name=sink"

static GstElement *
make_pipeline (const gchar * device)
{
  gchar *desc = g_strdup_printf (PIPELINE, device);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL, "%s", err ? err->message : "");
  g_free (desc);
  return p;
}

/* Runs to EOS; returns the error message text or NULL. Leaves the pipeline
 * in PLAYING (or where it failed) so active devices can be read. */
static gchar *
run (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gchar *ret = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "pipeline neither ended nor failed in 30 s");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    ret = g_strdup_printf ("%s | %s", err->message, dbg ? dbg : "");
    g_clear_error (&err);
    g_free (dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  return ret;
}

static guint64
opens (void)
{
  guint64 n;
  gst_avhw_cache_get_stats (NULL, NULL, &n, NULL);
  return n;
}

/* Runs the pipeline with avhwupload device=@up_device: the uploader and
 * the downloader report one device, and one device was opened. */
static void
check_one_device (const gchar * up_device)
{
  GstElement *p = make_pipeline (up_device);
  GstAvhwDevice *up, *down;
  guint64 before;
  gchar *err;

  gst_avhw_cache_clear ();
  before = opens ();
  err = run (p);
  fail_unless (err == NULL, "%s", err);
  up = avhw_test_active_device (p, "up");
  down = avhw_test_active_device (p, "down");
  fail_unless (up != NULL && up == down, "down: %s, up: %s",
      down ? gst_avhw_device_get_name (down) : "none",
      up ? gst_avhw_device_get_name (up) : "none");
  fail_unless_equals_uint64 (opens () - before, 1);
  gst_object_unref (up);
  gst_object_unref (down);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_START_TEST (test_elements_share_one_device)
{
  check_one_device ("auto");
}

GST_END_TEST;

/* A backend with a device other than the one `auto` opens, or NULL. */
static gchar *
other_backend (void)
{
  GstAvhwDevice *best = gst_avhw_device_open ("auto", NULL, NULL);
  GstAvhwBackend *best_backend = gst_avhw_device_get_backend (best);
  GList *list = gst_avhw_backend_list (), *l;
  gchar *ret = NULL;

  for (l = list; l && !ret; l = l->next) {
    GstAvhwBackend *b = l->data;
    if (b != best_backend && gst_avhw_backend_get_n_devices (b, NULL) > 0)
      ret = g_strdup (gst_avhw_backend_get_name (b));
  }
  g_list_free_full (list, gst_object_unref);
  gst_object_unref (best);
  return ret;
}

/* avhwdownload device=auto goes to READY before its upstream: it must not
 * open the best device then, but use the device its frames come from. The
 * suite leaves this case out where one backend only has devices. */
GST_START_TEST (test_download_takes_upstream_device)
{
  gchar *other = other_backend ();

  fail_unless (other != NULL);
  check_one_device (other);
  g_free (other);
}

GST_END_TEST;

/* A device named on one element reaches its neighbours at device=auto,
 * upstream or downstream, through queue, tee and parsers, whichever of
 * them reaches READY first (issue 28: `avhwdec device=opencl ! avhwenc`
 * encoded on vulkan:0): every element of each pipeline reports the named
 * device. "a" names it; "b" and "c" are left at auto. */
GST_START_TEST (test_named_device_reaches_neighbours)
{
  const gchar *pipelines[] = {
    "avhwupload name=a device=%s ! avhwenc name=b ! fakesink",
    "avhwupload name=a device=%s ! queue ! avhwenc name=b ! fakesink",
    "avhwenc name=a device=%s ! h264parse ! avhwdec name=b ! "
        "avhwdownload name=c ! fakesink",
    "avhwupload name=a device=%s ! avhwconvertscale name=b ! "
        "avhwdownload name=c ! fakesink",
    "avhwupload name=b ! avhwconvertscale name=a device=%s ! "
        "avhwdownload name=c ! fakesink",
    "avhwupload name=b ! tee ! queue ! avhwenc name=a device=%s ! fakesink",
  };
  gchar *other = other_backend ();
  guint i;

  fail_unless (other != NULL, "needs two backends with devices (vulkan and "
      "opencl on a machine without a GPU)");
  for (i = 0; i < G_N_ELEMENTS (pipelines); i++) {
    gchar *tail = g_strdup_printf (pipelines[i], other);
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=I420,width=64,height=48 ! %s", tail);
    GstElement *p = gst_parse_launch (desc, NULL);
    const gchar *names[] = { "a", "b", "c" };
    GstAvhwDevice *named;
    gchar *err;
    guint j;

    fail_unless (p != NULL, "%s", desc);
    err = run (p);
    fail_unless (err == NULL, "%s: %s", desc, err);
    named = avhw_test_active_device (p, "a");
    fail_unless (named != NULL, "%s: a has no device", desc);
    fail_unless_equals_string (gst_avhw_backend_get_name
        (gst_avhw_device_get_backend (named)), other);
    for (j = 1; j < G_N_ELEMENTS (names); j++) {
      GstElement *e = gst_bin_get_by_name (GST_BIN (p), names[j]);
      GstAvhwDevice *dev;

      if (!e)
        continue;
      gst_object_unref (e);
      dev = avhw_test_active_device (p, names[j]);
      fail_unless (dev == named, "%s: %s on %s, a on %s", desc, names[j],
          dev ? gst_avhw_device_get_name (dev) : "none",
          gst_avhw_device_get_name (named));
      gst_clear_object (&dev);
    }
    g_print ("  %s: all on %s\n", tail, gst_avhw_device_get_name (named));
    gst_object_unref (named);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_free (desc);
    g_free (tail);
  }
  g_free (other);
}

GST_END_TEST;

/* Runs @pipeline to EOS (an error fails the test) and returns the texts of
 * the INFO messages it posted, a line each (run() drops them). */
static gchar *
run_for_infos (GstElement * pipeline, const gchar * desc)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GString *s = g_string_new (NULL);
  GstMessage *msg;
  gboolean done = FALSE;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done && (msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_INFO))) {
    GError *err = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_INFO) {
      gst_message_parse_info (msg, &err, NULL);
      g_string_append_printf (s, "%s\n", err->message);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      fail ("%s: %s", desc, err->message);
    } else {
      done = TRUE;
    }
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  fail_unless (done, "%s: no EOS in 30 s", desc);
  gst_object_unref (bus);
  return g_string_free (s, FALSE);
}

/* Elements that name different devices: frames cross through system
 * memory, and the element that copies says so, once, naming both
 * devices; on one device nothing is said. */
GST_START_TEST (test_copy_between_devices_is_said)
{
  gchar *other = other_backend ();
  GstAvhwDevice *best = gst_avhw_device_open ("auto", NULL, NULL);
  const gchar *tails[] = { "avhwupload device=%s ! avhwenc device=%s ! "
        "fakesink", "avhwupload device=%s ! avhwupload device=%s ! "
        "avhwdownload ! fakesink"
  };
  guint i;

  fail_unless (other != NULL && best != NULL);
  for (i = 0; i < G_N_ELEMENTS (tails); i++) {
    gchar *tail = g_strdup_printf (tails[i], other,
        gst_avhw_device_get_name (best));
    gchar *same = g_strdup_printf (tails[i], other, other);
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=I420,width=64,height=48 ! %s", tail);
    gchar *desc_same = g_strdup_printf ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=I420,width=64,height=48 ! %s", same);
    GstElement *p = gst_parse_launch (desc, NULL);
    gchar *infos, *other0 = g_strdup_printf ("%s:0", other);

    infos = run_for_infos (p, desc);
    g_print ("  %s: %s", tail, infos);
    fail_unless (strstr (infos, "copied through system memory") != NULL
        && strstr (infos, other0) != NULL
        && strstr (infos, gst_avhw_device_get_name (best)) != NULL,
        "%s: no message about the copy (%s)", desc, infos);
    g_free (infos);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);

    p = gst_parse_launch (desc_same, NULL);
    infos = run_for_infos (p, desc_same);
    fail_unless (strstr (infos, "copied through") == NULL, "%s: %s",
        desc_same, infos);
    g_free (infos);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_free (other0);
    g_free (desc);
    g_free (desc_same);
    g_free (tail);
    g_free (same);
  }
  gst_object_unref (best);
  g_free (other);
}

GST_END_TEST;

/* System memory passes through avhwdownload: no device is opened for it. */
GST_START_TEST (test_download_passthrough_opens_nothing)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=I420,width=64,height=48 ! avhwdownload name=down ! "
      "fakesink", NULL);
  guint64 before;
  gchar *err;
  GstAvhwDevice *down;

  fail_unless (p != NULL);
  gst_avhw_cache_clear ();
  before = opens ();
  err = run (p);
  fail_unless (err == NULL, "%s", err);
  down = avhw_test_active_device (p, "down");
  fail_unless (down == NULL, "opened %s", down ?
      gst_avhw_device_get_name (down) : "");
  fail_unless_equals_uint64 (opens () - before, 0);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

static GstBusSyncReply
need_context_handler (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  const gchar *type;
  GstAvhwDevice *device = user_data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT
      && gst_message_parse_context_type (msg, &type)
      && g_str_equal (type, GST_AVHW_DEVICE_CONTEXT_TYPE)) {
    GstContext *ctx = gst_avhw_context_new (device);
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), ctx);
    gst_context_unref (ctx);
  }
  return GST_BUS_PASS;
}

/* The application answers NEED_CONTEXT with its own device, which the cache
 * does not know: both elements must use it and nothing new is opened. */
GST_START_TEST (test_application_device_from_bus)
{
  GstAvhwDevice *app = gst_avhw_device_open_uncached ("auto", NULL, NULL);
  GstElement *p = make_pipeline ("auto");
  GstBus *bus = gst_element_get_bus (p);
  guint64 before;
  gchar *err;
  GstAvhwDevice *up, *down;

  fail_unless (app != NULL);
  gst_bus_set_sync_handler (bus, need_context_handler, app, NULL);
  before = opens ();
  err = run (p);
  fail_unless (err == NULL, "%s", err);
  up = avhw_test_active_device (p, "up");
  down = avhw_test_active_device (p, "down");
  fail_unless (up == app && down == app);
  fail_unless_equals_uint64 (opens (), before);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (up);
  gst_object_unref (down);
  gst_object_unref (bus);
  gst_object_unref (p);
  gst_object_unref (app);
}

GST_END_TEST;

/* The application sets the context on two pipelines up front. */
GST_START_TEST (test_application_device_on_pipelines)
{
  GstAvhwDevice *app = gst_avhw_device_open_uncached ("auto", NULL, NULL);
  GstContext *ctx = gst_avhw_context_new (app);
  guint i;

  for (i = 0; i < 2; i++) {
    GstElement *p = make_pipeline ("auto");
    GstAvhwDevice *up;
    gchar *err;

    gst_element_set_context (p, ctx);
    err = run (p);
    fail_unless (err == NULL, "%s", err);
    up = avhw_test_active_device (p, "up");
    fail_unless (up == app);
    gst_object_unref (up);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
  }
  gst_context_unref (ctx);
  gst_object_unref (app);
}

GST_END_TEST;

/* Pipelines built one after the other reuse the cached device. */
GST_START_TEST (test_sequential_pipelines_reuse)
{
  guint64 before, first = 0;
  guint i;

  gst_avhw_cache_clear ();
  before = opens ();
  for (i = 0; i < 3; i++) {
    GstElement *p = make_pipeline ("auto");
    GstAvhwDevice *up;
    gchar *err = run (p);

    fail_unless (err == NULL, "%s", err);
    up = avhw_test_active_device (p, "up");
    if (i == 0)
      first = gst_avhw_device_get_context_id (up);
    fail_unless (gst_avhw_device_get_context_id (up) == first);
    gst_object_unref (up);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
  }
  fail_unless_equals_uint64 (opens () - before, 1);
}

GST_END_TEST;

/* With reuse off, each pipeline opens its own device context. */
GST_START_TEST (test_sequential_pipelines_no_reuse)
{
  guint64 before = opens ();
  guint i;

  gst_avhw_cache_set_reuse (FALSE);
  for (i = 0; i < 2; i++) {
    GstElement *p = make_pipeline ("auto");
    gchar *err = run (p);

    fail_unless (err == NULL, "%s", err);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
  }
  fail_unless_equals_uint64 (opens () - before, 2);
  gst_avhw_cache_set_reuse (TRUE);
}

GST_END_TEST;

static void
expect_error (const gchar * device, const gchar * needle)
{
  GstElement *p = make_pipeline (device);
  gchar *err = run (p);

  fail_unless (err != NULL, "device=%s did not fail", device);
  fail_unless (strstr (err, needle) != NULL, "\"%s\" not in: %s", needle, err);
  fail_unless (strstr (err, device) != NULL, "device not named in: %s", err);
  g_print ("device=%s -> %s\n", device, err);
  g_free (err);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_START_TEST (test_bad_device_property)
{
  GstAvhwDevice *dev = gst_avhw_device_open ("auto", NULL, NULL);
  const gchar *name = gst_avhw_backend_get_name
      (gst_avhw_device_get_backend (dev));
  gchar *far = g_strdup_printf ("%s:77", name);
  gchar *bad = g_strdup_printf ("%s:x", name);

  expect_error ("nosuch", "unknown avhw backend");
  expect_error (far, "out of range");
  expect_error (bad, "invalid device index");
  g_free (far);
  g_free (bad);
  gst_object_unref (dev);
}

GST_END_TEST;

static Suite *
context_suite (void)
{
  Suite *s = suite_create ("avhw-context");
  TCase *tc = tcase_create ("general");
  gchar *other;

  avhw_test_require_device ("auto");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_elements_share_one_device);
  other = other_backend ();
  gst_avhw_cache_clear ();
  if (other)
    tcase_add_test (tc, test_download_takes_upstream_device);
  else
    g_print ("case left out: test_download_takes_upstream_device needs "
        "devices of two backends\n");
  g_free (other);
  tcase_add_test (tc, test_download_passthrough_opens_nothing);
  tcase_add_test (tc, test_named_device_reaches_neighbours);
  tcase_add_test (tc, test_copy_between_devices_is_said);
  tcase_add_test (tc, test_application_device_from_bus);
  tcase_add_test (tc, test_application_device_on_pipelines);
  tcase_add_test (tc, test_sequential_pipelines_reuse);
  tcase_add_test (tc, test_sequential_pipelines_no_reuse);
  tcase_add_test (tc, test_bad_device_property);
  return s;
}

GST_CHECK_MAIN (context);
