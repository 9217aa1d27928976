/* gst-avhw tests: helpers shared by the interop-*.c tests, #included by
 * each of them (the test list builds one source file per test, so this is
 * never compiled alone).
 *
 * The interop tests link only what every test links: GStreamer's interop
 * libraries (gstreamer-vulkan/-va/-cuda) are not among them. Their objects
 * are borrowed from GStreamer's own elements through context queries and
 * read through GObject properties or their public structs.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include "../avhw-test-utils.h"

/* The @field object of a context, borrowed (the context holds it). */
G_GNUC_UNUSED static GObject *
interop_context_object (GstContext * context, const gchar * field)
{
  const GValue *v = gst_structure_get_value (gst_context_get_structure
      (context), field);

  fail_unless (v != NULL && G_VALUE_HOLDS_OBJECT (v), "no %s in %"
      GST_PTR_FORMAT, field, context);
  return g_value_get_object (v);
}

/* Asks the peer of @element's @pad_name for a context of @type; a new
 * reference or NULL when nobody answered. */
G_GNUC_UNUSED static GstContext *
interop_query_peer (GstElement * element, const gchar * pad_name,
    const gchar * type)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstQuery *q = gst_query_new_context (type);
  GstContext *ctx = NULL;

  if (gst_pad_peer_query (pad, q)) {
    gst_query_parse_context (q, &ctx);
    if (ctx)
      gst_context_ref (ctx);
  }
  gst_query_unref (q);
  gst_object_unref (pad);
  return ctx;
}

/* Asks the peer of the sink pad of @pipeline's element @name. */
G_GNUC_UNUSED static GstContext *
interop_query_upstream_of (GstElement * pipeline, const gchar * name,
    const gchar * type)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstContext *ctx;

  fail_unless (e != NULL, "no element %s", name);
  ctx = interop_query_peer (e, "sink", type);
  gst_object_unref (e);
  return ctx;
}

/* avhw_test_active_device(), which must be set */
G_GNUC_UNUSED static GstAvhwDevice *
interop_active_device (GstElement * pipeline, const gchar * name)
{
  GstAvhwDevice *d = avhw_test_active_device (pipeline, name);

  fail_unless (d != NULL, "%s has no active device", name);
  return d;
}

G_GNUC_UNUSED static AVHWDeviceContext *
interop_device_ctx (GstAvhwDevice * device)
{
  return (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (device)->data;
}

/* Brings @desc to PAUSED with @contexts (NULL-terminated, may be NULL) set
 * on the pipeline first, so GStreamer's elements there hold their
 * devices. */
G_GNUC_UNUSED static GstElement *
interop_start_paused (const gchar * desc, GstContext ** contexts)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "");
  for (; contexts && *contexts; contexts++)
    gst_element_set_context (p, *contexts);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE, "%s does not start", desc);
  fail_unless (gst_element_get_state (p, NULL, NULL, GST_CLOCK_TIME_NONE) !=
      GST_STATE_CHANGE_FAILURE, "%s does not preroll", desc);
  return p;
}

/* Called with each pipeline interop_stop() is about to take down (NULL when
 * nothing is to be done first); interop-vulkan drains its Vulkan devices. */
static void (*interop_before_stop) (GstElement * pipeline);

G_GNUC_UNUSED static void
interop_stop (GstElement * p)
{
  if (interop_before_stop)
    interop_before_stop (p);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

/* Runs @desc, which ends in an appsink named "sink", to EOS with
 * @contexts (NULL-terminated, may be NULL) set on the pipeline first.
 * Returns an MD5 of the visible bytes of every frame (strides left out),
 * and the pipeline, still PLAYING, in *@out when that is not NULL. */
typedef void (*InteropSetupFunc) (GstElement * pipeline, gpointer data);

/* interop_run_and_hash() calling @setup (nullable) on the pipeline before it
 * starts (to add pad probes). */
G_GNUC_UNUSED static gchar *
interop_run_and_hash_full (const gchar * desc, GstContext ** contexts,
    GstElement ** out, InteropSetupFunc setup, gpointer data)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err), *sink;
  GChecksum *sum = g_checksum_new (G_CHECKSUM_MD5);
  GstSample *sample;
  GstMessage *msg;
  gchar *digest;
  guint frames = 0;

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "");
  for (; contexts && *contexts; contexts++)
    gst_element_set_context (p, *contexts);
  if (setup)
    setup (p, data);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstVideoInfo info;
    GstVideoFrame frame;
    guint plane;

    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    fail_unless (gst_video_frame_map (&frame, &info,
            gst_sample_get_buffer (sample), GST_MAP_READ));
    for (plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&frame); plane++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS], row, rows, bytes;

      gst_video_format_info_component (info.finfo, plane, comp);
      /* A row of this plane: its first component's width times its pixel
       * stride. */
      bytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]);
      rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
      for (row = 0; row < rows; row++)
        g_checksum_update (sum, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
                plane) + row * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, plane),
            bytes);
    }
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
    frames++;
  }
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (p), GST_MESSAGE_ERROR);
  if (msg) {
    GError *e = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &e, &dbg);
    fail ("%s: %s (%s)", desc, e->message, dbg);
  }
  fail_unless (frames > 0, "%s: no frame", desc);
  GST_INFO ("%u frames from %s", frames, desc);
  digest = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  gst_object_unref (sink);
  if (out)
    *out = p;
  else
    interop_stop (p);
  return digest;
}

G_GNUC_UNUSED static gchar *
interop_run_and_hash (const gchar * desc, GstContext ** contexts,
    GstElement ** out)
{
  return interop_run_and_hash_full (desc, contexts, out, NULL, NULL);
}
