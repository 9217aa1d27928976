/* gst-avhw tests: the vaapi backend and its interop with GStreamer's va
 * elements (gst.va.display.handle).
 *
 * Run twice (tests/check/meson.build):
 * - elements/interop-vaapi: what holds on every machine. Without a VA-API
 *   device: zero devices with a reason, `device=vaapi` fails saying it, bad
 *   handles and contexts are refused cleanly. With one: it is described.
 * - elements/interop-vaapi-hw (AVHW_TEST_HW=1): needs a VA-API device, else
 *   exits 77 saying so: bit-exact upload/download, the device answering
 *   gst.va.display.handle with its own VADisplay, and va elements and avhw
 *   elements sharing one VADisplay in both directions.
 *
 * The test does not link gstreamer-va-1.0 (interop-common.c): GstVaDisplay
 * is read through its "va-display" property and contexts are borrowed from
 * GStreamer's own va elements.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/hwcontext_vaapi.h>
#include "interop-common.c"

#define VA_CONTEXT_TYPE "gst.va.display.handle"
#define CAPS "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"

static GstAvhwBackend *
vaapi_backend (void)
{
  GstAvhwBackend *b = gst_avhw_backend_find ("vaapi", NULL);

  fail_unless (b != NULL, "the vaapi backend is not listed; backends: %s",
      gst_avhw_backend_list_names ());
  return b;
}

/* Also used outside tests, where check's macros cannot run. */
static guint
n_va_devices (gchar ** reason)
{
  GstAvhwBackend *b = gst_avhw_backend_find ("vaapi", NULL);
  guint n;

  if (!b) {
    gchar *names = gst_avhw_backend_list_names ();

    *reason = g_strdup_printf ("the vaapi backend is not listed; backends: "
        "%s", names);
    g_free (names);
    return 0;
  }
  n = gst_avhw_backend_get_n_devices (b, reason);
  gst_object_unref (b);
  return n;
}

static VADisplay
va_display_of (GstAvhwDevice * device)
{
  return ((AVVAAPIDeviceContext *) interop_device_ctx (device)->hwctx)->display;
}

/* The VADisplay a gst.va.display.handle context holds, through the
 * GstVaDisplay's own property. */
static gpointer
va_display_in_context (GstContext * context)
{
  gpointer dpy = NULL;

  g_object_get (interop_context_object (context, "gst-display"),
      "va-display", &dpy, NULL);
  return dpy;
}

static gchar *
reference_hash (void)
{
  return interop_run_and_hash ("videotestsrc num-buffers=5 pattern=smpte ! "
      CAPS " ! appsink name=sink sync=false", NULL, NULL);
}

/* --- every machine --- */

GST_START_TEST (test_declared)
{
  GstAvhwBackend *b = vaapi_backend ();

  fail_unless_equals_int (gst_avhw_backend_get_hw_device_type (b),
      AV_HWDEVICE_TYPE_VAAPI);
  fail_unless_equals_int (gst_avhw_backend_get_hw_pix_fmt (b),
      AV_PIX_FMT_VAAPI);
  fail_unless_equals_string (gst_avhw_backend_get_caps_feature (b),
      "memory:AVHWVAAPI");
  fail_unless_equals_string (gst_avhw_backend_get_foreign_context_type (b),
      VA_CONTEXT_TYPE);
  gst_object_unref (b);
}

GST_END_TEST;

/* Without a device: a reason, and every way of asking for vaapi fails
 * saying it. With devices: each is a render node. */
GST_START_TEST (test_devices_or_reason)
{
  GstAvhwBackend *b = vaapi_backend ();
  gchar *reason = NULL;
  guint n = gst_avhw_backend_get_n_devices (b, &reason), i;

  if (n == 0) {
    GError *err = NULL;
    GstAvhwDevice *dev;

    GST_INFO ("no VA-API device: %s", reason);
    fail_unless (reason != NULL && strstr (reason, "render node") != NULL,
        "unclear reason: %s", reason);
    dev = gst_avhw_device_open ("vaapi", NULL, &err);
    fail_unless (dev == NULL);
    fail_unless (g_error_matches (err, GST_AVHW_ERROR,
            GST_AVHW_ERROR_NO_DEVICE), "%s", err ? err->message : "");
    fail_unless (strstr (err->message, "vaapi") && strstr (err->message,
            reason), "error does not say why: %s", err->message);
    g_clear_error (&err);
    dev = gst_avhw_device_open ("vaapi:1", NULL, &err);
    fail_unless (dev == NULL && err != NULL);
    g_clear_error (&err);
  }
  for (i = 0; i < n; i++) {
    gchar *desc = gst_avhw_backend_get_device_description (b, i);

    fail_unless (g_str_has_prefix (desc, "/dev/dri/renderD"), "%s", desc);
    g_free (desc);
  }
  g_free (reason);
  gst_object_unref (b);
}

GST_END_TEST;

/* A pipeline asking for vaapi where there is none fails with the reason. */
GST_START_TEST (test_pipeline_fails_clearly)
{
  GstElement *p;
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL, *reason = NULL;

  if (n_va_devices (&reason) > 0) {
    GST_INFO ("a VA-API device is present: the failure path is not taken");
    return;
  }
  p = gst_parse_launch ("videotestsrc num-buffers=1 ! avhwupload "
      "device=vaapi ! fakesink", NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, &dbg);
  GST_INFO ("error: %s (%s)", err->message, dbg);
  fail_unless (strstr (err->message, "vaapi") != NULL, "%s", err->message);
  /* the reason in the message itself, where a user reads it (issue 28) */
  fail_unless (strstr (err->message, reason), "the message lacks the "
      "reason (%s): %s", reason, err->message);
  g_error_free (err);
  g_free (dbg);
  g_free (reason);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_wrap_refuses_bad_handles)
{
  GError *err = NULL;
  GstAvhwDevice *dev = gst_avhw_device_wrap ("vaapi", NULL, &err);
  guint64 not_a_display[8] = { 0 };

  fail_unless (dev == NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR,
          GST_AVHW_ERROR_INVALID_ARGUMENT), "%s", err->message);
  fail_unless (strstr (err->message, "VADisplay") != NULL, "%s", err->message);
  g_clear_error (&err);
  /* vaDisplayIsValid() rejects what is not a VADisplay. */
  dev = gst_avhw_device_wrap ("vaapi", not_a_display, &err);
  fail_unless (dev == NULL && err != NULL);
  g_clear_error (&err);
}

GST_END_TEST;

/* A gst.va.display.handle context without a display is refused, and a
 * pipeline given one goes on as if it had none. */
GST_START_TEST (test_empty_foreign_context_refused)
{
  GstContext *ctx = gst_context_new (VA_CONTEXT_TYPE, TRUE);
  GError *err = NULL;
  GstAvhwDevice *dev = gst_avhw_device_open_foreign (ctx, "vaapi", &err);
  GstElement *p;
  GstMessage *msg;

  fail_unless (dev == NULL);
  fail_unless (err != NULL);
  GST_INFO ("refused: %s", err->message);
  g_clear_error (&err);

  p = gst_parse_launch ("videotestsrc num-buffers=1 ! avhwupload "
      "device=vulkan ! avhwdownload ! fakesink", NULL);
  gst_element_set_context (p, ctx);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  /* vulkan is there on CI (lavapipe): EOS; where it is not, the error is
   * about vulkan, not about the context. */
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (strstr (err->message, "vulkan") != NULL, "%s", err->message);
    g_clear_error (&err);
  }
  gst_message_unref (msg);
  interop_stop (p);
  gst_context_unref (ctx);
  gst_avhw_cache_clear ();
}

GST_END_TEST;

/* --- with a VA-API device --- */

GST_START_TEST (test_hw_round_trip)
{
  gchar *ref = reference_hash ();
  gchar *out = interop_run_and_hash ("videotestsrc num-buffers=5 "
      "pattern=smpte ! " CAPS " ! avhwupload device=vaapi ! avhwdownload ! "
      CAPS " ! appsink name=sink sync=false", NULL, NULL);

  fail_unless_equals_string (out, ref);
  g_free (ref);
  g_free (out);
}

GST_END_TEST;

/* The device answers gst.va.display.handle with a GstVaDisplay on its own
 * VADisplay, and that context maps back to the same device context. */
GST_START_TEST (test_hw_answers_with_own_display)
{
  GstElement *p = interop_start_paused ("videotestsrc num-buffers=1 ! " CAPS
      " ! avhwupload name=up device=vaapi ! fakesink name=sink", NULL);
  GstAvhwDevice *dev = interop_active_device (p, "up"), *back;
  GstContext *ctx = interop_query_upstream_of (p, "sink", VA_CONTEXT_TYPE);
  GError *err = NULL;

  fail_unless (ctx != NULL, "avhwupload does not answer " VA_CONTEXT_TYPE);
  fail_unless (va_display_in_context (ctx) == va_display_of (dev));
  back = gst_avhw_device_open_foreign (ctx, "vaapi", &err);
  fail_unless (back != NULL, "%s", err ? err->message : "");
  fail_unless (interop_device_ctx (back) == interop_device_ctx (dev),
      "our own GstVaDisplay did not map back to our device context");
  gst_object_unref (back);
  gst_context_unref (ctx);
  gst_object_unref (dev);
  interop_stop (p);
}

GST_END_TEST;

static gboolean
have_vapostproc (void)
{
  GstElementFactory *f = gst_element_factory_find ("vapostproc");

  if (!f) {
    g_print ("NOTE: no vapostproc (GStreamer's va plugin found no VPP "
        "support): the va element half is not run\n");
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
}

/* va elements first: a GstVaDisplay of GStreamer's own, given to a
 * pipeline as a context, is the VADisplay avhw elements then use. */
GST_START_TEST (test_hw_uses_gst_display)
{
  GstElement *helper, *p;
  GstContext *ctx[2] = { NULL, NULL };
  GstAvhwDevice *dev;
  gchar *ref, *out;

  if (!have_vapostproc ())
    return;
  helper = interop_start_paused ("videotestsrc num-buffers=1 ! vapostproc ! "
      "fakesink name=sink", NULL);
  ctx[0] = interop_query_upstream_of (helper, "sink", VA_CONTEXT_TYPE);
  fail_unless (ctx[0] != NULL, "vapostproc does not answer " VA_CONTEXT_TYPE);

  ref = reference_hash ();
  out = interop_run_and_hash ("videotestsrc num-buffers=5 pattern=smpte ! "
      CAPS " ! avhwupload name=up device=vaapi ! avhwdownload ! " CAPS
      " ! appsink name=sink sync=false", ctx, &p);
  fail_unless_equals_string (out, ref);
  dev = interop_active_device (p, "up");
  fail_unless (va_display_of (dev) == va_display_in_context (ctx[0]),
      "avhwupload is not on GStreamer's VADisplay");
  gst_object_unref (dev);
  interop_stop (p);
  gst_context_unref (ctx[0]);
  interop_stop (helper);
  g_free (ref);
  g_free (out);
}

GST_END_TEST;

/* avhw elements first (they reach READY before the upstream va element):
 * vapostproc asks downstream and gets the avhw device's VADisplay. */
GST_START_TEST (test_hw_va_element_uses_ours)
{
  GstElement *p;
  GstContext *ctx;
  GstAvhwDevice *dev;
  gchar *out;

  if (!have_vapostproc ())
    return;
  out = interop_run_and_hash ("videotestsrc num-buffers=5 ! vapostproc ! "
      CAPS " ! avhwupload name=up device=vaapi ! avhwdownload ! " CAPS
      " ! appsink name=sink sync=false", NULL, &p);
  dev = interop_active_device (p, "up");
  ctx = interop_query_upstream_of (p, "up", VA_CONTEXT_TYPE);
  fail_unless (ctx != NULL, "vapostproc does not answer " VA_CONTEXT_TYPE);
  fail_unless (va_display_in_context (ctx) == va_display_of (dev),
      "vapostproc is not on the avhw device's VADisplay");
  gst_context_unref (ctx);
  gst_object_unref (dev);
  interop_stop (p);
  g_free (out);
}

GST_END_TEST;

static Suite *
interop_vaapi_suite (void)
{
  Suite *s = suite_create ("avhw-interop-vaapi");
  TCase *tc = tcase_create ("general");
  gchar *reason = NULL;

  suite_add_tcase (s, tc);
  if (g_getenv ("AVHW_TEST_HW")) {
    if (n_va_devices (&reason) == 0) {
      g_print ("SKIP: no VA-API device (%s): the VA hardware half (bit-exact "
          "upload/download, gst.va.display.handle shared with GStreamer's va "
          "elements) cannot run on this machine; it is untested here\n",
          reason);
      exit (77);
    }
    tcase_add_test (tc, test_hw_round_trip);
    tcase_add_test (tc, test_hw_answers_with_own_display);
    tcase_add_test (tc, test_hw_uses_gst_display);
    tcase_add_test (tc, test_hw_va_element_uses_ours);
    return s;
  }
  tcase_add_test (tc, test_declared);
  tcase_add_test (tc, test_devices_or_reason);
  tcase_add_test (tc, test_pipeline_fails_clearly);
  tcase_add_test (tc, test_wrap_refuses_bad_handles);
  tcase_add_test (tc, test_empty_foreign_context_refused);
  return s;
}

GST_CHECK_MAIN (interop_vaapi);
