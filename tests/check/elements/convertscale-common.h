/* gst-avhw tests: what the avhwconvertscale tests share: running a
 * pipeline to its end, and comparing frames (PSNR, geometry)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <math.h>
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

typedef struct
{
  GstCaps *caps;
  GPtrArray *buffers;
  gchar *error;                 /* text and debug of the first error */
  gchar *error_src;
  gboolean passthrough;         /* of the element named c, at the end */
} Result;

static inline void
result_clear (Result * r)
{
  gst_clear_caps (&r->caps);
  g_clear_pointer (&r->buffers, g_ptr_array_unref);
  g_clear_pointer (&r->error, g_free);
  g_clear_pointer (&r->error_src, g_free);
}

/* Runs @desc, which ends in `appsink name=s`, to EOS or its first error. */
static inline void
run (const gchar * desc, Result * r)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err), *c;
  GstAppSink *sink;
  GstSample *sample;
  GstMessage *msg;

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "?");
  memset (r, 0, sizeof (*r));
  r->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  sink = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (p), "s"));
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (sink, 30 * GST_SECOND))) {
    if (!r->caps)
      r->caps = gst_caps_ref (gst_sample_get_caps (sample));
    g_ptr_array_add (r->buffers, gst_buffer_ref (gst_sample_get_buffer
            (sample)));
    gst_sample_unref (sample);
  }
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: neither EOS nor error", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &e, &dbg);
    r->error = g_strdup_printf ("%s | %s", e->message, dbg ? dbg : "");
    r->error_src = gst_object_get_name (GST_MESSAGE_SRC (msg));
    g_clear_error (&e);
    g_free (dbg);
  }
  gst_message_unref (msg);
  c = gst_bin_get_by_name (GST_BIN (p), "c");
  if (c) {
    r->passthrough = gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (c));
    gst_object_unref (c);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
}

/* The lowest PSNR of the colour components of two frames of one layout,
 * each line unpacked to AYUV/ARGB (8 or 16 bits a component, chroma
 * repeated to full size); alpha and padding are not compared. */
static inline gdouble
psnr (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gboolean wide = GST_VIDEO_FORMAT_INFO_BITS (gst_video_format_get_info
      (finfo->unpack_format)) > 8;
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  gdouble max = wide ? 65535.0 : 255.0, se[4] = { 0 }, lowest = 100.0;
  gpointer la = g_malloc (w * 8), lb = g_malloc (w * 8);
  GstVideoFrame fa, fb;
  gint x, y, c;

  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  for (y = 0; y < h; y++) {
    finfo->unpack_func (finfo, GST_VIDEO_PACK_FLAG_NONE, la, fa.data,
        fa.info.stride, 0, y, w);
    finfo->unpack_func (finfo, GST_VIDEO_PACK_FLAG_NONE, lb, fb.data,
        fb.info.stride, 0, y, w);
    for (x = 0; x < w; x++)
      for (c = 1; c < 4; c++) {
        gdouble d = wide ? (gdouble) ((guint16 *) la)[x * 4 + c] -
            ((guint16 *) lb)[x * 4 + c] : (gdouble) ((guint8 *) la)[x * 4 +
            c] - ((guint8 *) lb)[x * 4 + c];
        se[c] += d * d;
      }
  }
  for (c = 1; c < 4; c++)
    if (se[c] > 0)
      lowest = MIN (lowest, 10.0 * log10 (max * max * w * h / se[c]));
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  g_free (la);
  g_free (lb);
  return lowest;
}

static inline gboolean
same_geometry (GstCaps * a, GstCaps * b)
{
  GstVideoInfo ia, ib;

  return gst_video_info_from_caps (&ia, a) && gst_video_info_from_caps (&ib,
      b) && GST_VIDEO_INFO_FORMAT (&ia) == GST_VIDEO_INFO_FORMAT (&ib)
      && GST_VIDEO_INFO_WIDTH (&ia) == GST_VIDEO_INFO_WIDTH (&ib)
      && GST_VIDEO_INFO_HEIGHT (&ia) == GST_VIDEO_INFO_HEIGHT (&ib)
      && GST_VIDEO_INFO_PAR_N (&ia) * GST_VIDEO_INFO_PAR_D (&ib) ==
      GST_VIDEO_INFO_PAR_N (&ib) * GST_VIDEO_INFO_PAR_D (&ia);
}

