/* share-device.c: one avhw device for every pipeline of an application
 * (docs/c-api.md). SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Build against an installed gst-avhw:
 *   cc share-device.c -o share-device \
 *       $(pkg-config --cflags --libs gstreamer-avhw-1.0)
 * Run:  ./share-device [DEVICE]      (default: auto)
 *
 * Opens the device once, hands it to three pipelines in a row through a
 * GstContext, checks that each pipeline's elements used that very device
 * and that nothing else was opened, then empties the cache. Exit 0 when
 * all of that held.
 */
#include <stdio.h>
#include <gst/gst.h>
#include <gst/avhw/gstavhw.h>

#define PIPELINE "videotestsrc num-buffers=30 ! video/x-raw,format=I420," \
  "width=320,height=240 ! avhwupload name=up ! avhwdownload ! fakesink"

/* Runs @pipeline to EOS; FALSE (and why) on an error. */
static gboolean
run (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean ok;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg && !ok) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("error: %s\n", err->message);
    g_clear_error (&err);
  }
  gst_clear_message (&msg);
  gst_object_unref (bus);
  return ok;
}

int
main (int argc, char **argv)
{
  const gchar *want = argc > 1 ? argv[1] : "auto";
  GError *err = NULL;
  GstAvhwDevice *device;
  GstContext *context;
  guint64 opens_before, opens_after;
  gboolean ok = TRUE;
  int i;

  gst_init (&argc, &argv);
  gst_avhw_init ();

  /* 1. Open the device once: the process-wide cache keeps it. */
  device = gst_avhw_device_open (want, NULL, &err);
  if (!device) {
    g_printerr ("cannot open %s: %s\n", want, err->message);
    g_clear_error (&err);
    return 1;
  }
  printf ("device %s\n", gst_avhw_device_get_name (device));
  gst_avhw_cache_get_stats (NULL, NULL, &opens_before, NULL);

  /* 2. A "gst.avhw.device" context carrying it, for every pipeline. */
  context = gst_avhw_context_new (device);

  for (i = 0; i < 3 && ok; i++) {
    GstElement *pipeline = gst_parse_launch (PIPELINE, &err);
    GstElement *up;
    GstAvhwDevice *used = NULL;

    if (!pipeline) {
      g_printerr ("%s\n", err->message);
      g_clear_error (&err);
      ok = FALSE;
      break;
    }
    gst_element_set_context (pipeline, context);
    ok = run (pipeline);
    /* 3. Each element says which device it used. */
    up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
    g_object_get (up, "active-device", &used, NULL);
    printf ("pipeline %d: %s on %s\n", i, ok ? "EOS" : "failed",
        used ? gst_avhw_device_get_name (used) : "no device");
    ok = ok && used == device;
    gst_clear_object (&used);
    gst_object_unref (up);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }

  /* 4. Nothing was opened again. */
  gst_avhw_cache_get_stats (NULL, NULL, &opens_after, NULL);
  printf ("devices opened by the pipelines: %" G_GUINT64_FORMAT "\n",
      opens_after - opens_before);
  ok = ok && opens_after == opens_before;

  /* 5. Let go: the context, our reference, then the cache's. */
  gst_context_unref (context);
  gst_object_unref (device);
  gst_avhw_cache_clear ();
  printf ("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
