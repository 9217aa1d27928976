/* gst-avhw tests: nothing leaks after pipelines end, with the cache still
 * holding its devices and after it is cleared
 *
 * Decodes, uploads/downloads, scales (avhwconvertscale, where the backend
 * names a scale filter) and encodes (avhwenc from device memory, libx264
 * where no hardware encoder opens, with B-frames) a few frames through
 * every backend present, three times, clears the cache, then asks the
 * leaks tracer (run with
 * GST_TRACERS=leaks; meson does) what is still alive: a buffer, memory,
 * device, pool or any other GstObject fails the test. tests/check/valgrind-leaks.sh runs
 * the same program under valgrind for leaks below GStreamer's objects
 * (AVFrames, FFmpeg contexts).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <gst/gst.h>
#include <gst/avhw/gstavhw.h>

static gboolean
run (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstMessage *msg;
  gboolean ok;

  if (!p) {
    g_printerr ("%s: %s\n", desc, err->message);
    return FALSE;
  }
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok)
    g_printerr ("%s: %s\n", desc, msg ? "error" : "timeout");
  gst_clear_message (&msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  return ok;
}

/* Asks the leaks tracer (GST_TRACERS=leaks) which objects are alive. */
static gboolean
no_live_objects (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  gboolean checked = FALSE, ok = TRUE;

  for (l = tracers; l; l = l->next) {
    GstStructure *info = NULL;
    const GValue *list;
    guint i, n;

    if (!g_str_equal (G_OBJECT_TYPE_NAME (l->data), "GstLeaksTracer"))
      continue;
    g_signal_emit_by_name (l->data, "get-live-objects", &info);
    list = gst_structure_get_value (info, "live-objects-list");
    n = gst_value_list_get_size (list);
    for (i = 0; i < n; i++) {
      const GstStructure *o =
          gst_value_get_structure (gst_value_list_get_value (list, i));
      gchar *s = gst_structure_to_string (o);
      g_printerr ("alive: %s\n", s);
      g_free (s);
    }
    ok = n == 0;
    checked = TRUE;
    gst_structure_free (info);
  }
  g_list_free_full (tracers, gst_object_unref);
  if (!checked) {
    g_printerr ("the leaks tracer is not active: run with GST_TRACERS=leaks\n");
    return FALSE;
  }
  return ok;
}

/* Whether avhwenc knows fallback=libx264 (FFmpeg has the encoder). */
static gboolean
have_libx264 (void)
{
  GstElement *e = gst_element_factory_make ("avhwenc", NULL);
  gboolean ok;

  if (!e)
    return FALSE;
  g_object_set (e, "fallback", "libx264", NULL);
  ok = gst_element_set_state (e, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE;
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  return ok;
}

/* AVHW_LEAKS_SKIP: backends (comma-separated) to leave out. */
static gboolean
skip_backend (const gchar * name)
{
  gchar **skip = g_strsplit (g_getenv ("AVHW_LEAKS_SKIP") ?
      g_getenv ("AVHW_LEAKS_SKIP") : "", ",", -1);
  gboolean ret = g_strv_contains ((const gchar * const *) skip, name);

  g_strfreev (skip);
  return ret;
}

int
main (int argc, char **argv)
{
  GList *backends, *l;
  guint i, ran = 0;
  gboolean ok = TRUE, encode;

  gst_init (&argc, &argv);
  encode = have_libx264 ();
  if (!encode)
    g_print ("avhwenc left out: FFmpeg has no libx264\n");
  backends = gst_avhw_backend_list ();
  for (l = backends; l; l = l->next) {
    const gchar *name = gst_avhw_backend_get_name (l->data);
    gchar *dec, *updown, *scale, *enc;

    if (gst_avhw_backend_get_n_devices (l->data, NULL) == 0)
      continue;
    if (skip_backend (name)) {
      g_print ("%s: left out (AVHW_LEAKS_SKIP)\n", name);
      continue;
    }
    dec = g_strdup_printf ("videotestsrc num-buffers=8 ! "
        "video/x-raw,width=96,height=64 ! x264enc speed-preset=ultrafast "
        "bframes=2 ! h264parse ! avhwdec device=%s ! queue ! avhwdownload ! "
        "fakesink", name);
    updown = g_strdup_printf ("videotestsrc num-buffers=8 ! "
        "video/x-raw,format=I420,width=96,height=64 ! avhwupload device=%s ! "
        "avhwdownload ! fakesink", name);
    /* avhwconvertscale where the backend names a scale filter: a filter
     * graph and its output frames per pipeline */
    scale = gst_avhw_backend_get_scale_filter (l->data) ?
        g_strdup_printf ("videotestsrc num-buffers=8 ! "
        "video/x-raw,format=NV12,width=96,height=64 ! avhwupload device=%s ! "
        "avhwconvertscale ! video/x-raw(%s),width=48,height=32 ! "
        "avhwdownload ! fakesink", name,
        gst_avhw_backend_get_caps_feature (l->data)) : NULL;
    /* an encoder per pipeline, its device frames downloaded for libx264
     * (or taken as they are by the backend's hardware encoder) */
    enc = encode ? g_strdup_printf ("videotestsrc num-buffers=8 ! "
        "video/x-raw,format=I420,width=96,height=64 ! avhwupload device=%s ! "
        "avhwenc device=%s fallback=libx264 b-frames=2 ! fakesink", name,
        name) : NULL;
    for (i = 0; i < 3 && ok; i++)
      ok = run (dec) && run (updown) && (!scale || run (scale))
          && (!enc || run (enc));
    g_free (dec);
    g_free (updown);
    g_free (scale);
    g_free (enc);
    ran++;
  }
  g_list_free_full (backends, gst_object_unref);
  if (ran == 0) {
    g_print ("SKIP: no avhw device\n");
    return 77;
  }
  /* The cache still holds its devices here, as in an application that
   * never clears it: the leaks tracer (GstAvhwDevice flagged
   * MAY_BE_LEAKED while the cache holds it) must not report them. */
  gst_task_cleanup_all ();
  if (ok)
    ok = no_live_objects ();
  gst_avhw_cache_clear ();
  /* A streaming thread drops its GstTask just after the pipeline reached
   * NULL; wait for every task thread to end before asking what is alive
   * (GStreamer 1.26 on Debian 13 showed videotestsrc's task alive in 3 of
   * 40 runs without this). */
  gst_task_cleanup_all ();
  if (ok)
    ok = no_live_objects ();
  gst_deinit ();
  g_print ("%s: %u backend(s)\n", ok ? "PASS" : "FAIL", ran);
  return ok ? 0 : 1;
}
