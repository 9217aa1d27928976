/* gst-avhw: GstVideoFormat <-> AVPixelFormat, in one place
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwformat.h"

/* Same memory layout on both sides. First match wins in each direction, so
 * the preferred GStreamer name of a layout comes first. */
static const struct
{
  GstVideoFormat gst;
  enum AVPixelFormat av;
} map[] = {
  {GST_VIDEO_FORMAT_NV12, AV_PIX_FMT_NV12},
  {GST_VIDEO_FORMAT_P010_10LE, AV_PIX_FMT_P010LE},
  {GST_VIDEO_FORMAT_P016_LE, AV_PIX_FMT_P016LE},
  {GST_VIDEO_FORMAT_I420, AV_PIX_FMT_YUV420P},
  {GST_VIDEO_FORMAT_I420, AV_PIX_FMT_YUVJ420P},
  {GST_VIDEO_FORMAT_Y42B, AV_PIX_FMT_YUV422P},
  {GST_VIDEO_FORMAT_Y42B, AV_PIX_FMT_YUVJ422P},
  {GST_VIDEO_FORMAT_Y444, AV_PIX_FMT_YUV444P},
  {GST_VIDEO_FORMAT_Y444, AV_PIX_FMT_YUVJ444P},
  /* Planar RGB: FFmpeg's one 8-bit planar RGB format, gbrp (planes G, B,
   * R), is not one FFmpeg 5.1's CUDA frames hold, and none has R first.
   * RGBP and BGRP frames are held as yuv444p, the layout they share (three
   * full-size 8-bit planes), with their planes in GStreamer's order: R, G,
   * B for RGBP and B, G, R for BGRP. Only the GStreamer name says what the
   * planes hold; a yuv444p frame is Y444 on the way back. */
  {GST_VIDEO_FORMAT_RGBP, AV_PIX_FMT_YUV444P},
  {GST_VIDEO_FORMAT_BGRP, AV_PIX_FMT_YUV444P},
  {GST_VIDEO_FORMAT_I420_10LE, AV_PIX_FMT_YUV420P10LE},
  {GST_VIDEO_FORMAT_I422_10LE, AV_PIX_FMT_YUV422P10LE},
  {GST_VIDEO_FORMAT_Y444_10LE, AV_PIX_FMT_YUV444P10LE},
  {GST_VIDEO_FORMAT_I420_12LE, AV_PIX_FMT_YUV420P12LE},
  {GST_VIDEO_FORMAT_Y444_16LE, AV_PIX_FMT_YUV444P16LE},
  {GST_VIDEO_FORMAT_NV16, AV_PIX_FMT_NV16},
  {GST_VIDEO_FORMAT_NV24, AV_PIX_FMT_NV24},
  {GST_VIDEO_FORMAT_YUY2, AV_PIX_FMT_YUYV422},
  {GST_VIDEO_FORMAT_UYVY, AV_PIX_FMT_UYVY422},
  {GST_VIDEO_FORMAT_GRAY8, AV_PIX_FMT_GRAY8},
  {GST_VIDEO_FORMAT_GRAY16_LE, AV_PIX_FMT_GRAY16LE},
  {GST_VIDEO_FORMAT_RGBA, AV_PIX_FMT_RGBA},
  {GST_VIDEO_FORMAT_BGRA, AV_PIX_FMT_BGRA},
  {GST_VIDEO_FORMAT_ARGB, AV_PIX_FMT_ARGB},
  {GST_VIDEO_FORMAT_ABGR, AV_PIX_FMT_ABGR},
  {GST_VIDEO_FORMAT_RGBx, AV_PIX_FMT_RGB0},
  {GST_VIDEO_FORMAT_BGRx, AV_PIX_FMT_BGR0},
  {GST_VIDEO_FORMAT_RGB, AV_PIX_FMT_RGB24},
  {GST_VIDEO_FORMAT_BGR, AV_PIX_FMT_BGR24},
};

/**
 * gst_avhw_format_to_av: (skip)
 * @format: a #GstVideoFormat
 *
 * Returns: the AVPixelFormat with the same memory layout, or AV_PIX_FMT_NONE
 */
enum AVPixelFormat
gst_avhw_format_to_av (GstVideoFormat format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (map); i++)
    if (map[i].gst == format)
      return map[i].av;
  return AV_PIX_FMT_NONE;
}

/**
 * gst_avhw_format_from_av: (skip)
 * @pix_fmt: an AVPixelFormat
 *
 * Returns: the #GstVideoFormat with the same memory layout, or
 *   %GST_VIDEO_FORMAT_UNKNOWN
 */
GstVideoFormat
gst_avhw_format_from_av (enum AVPixelFormat pix_fmt)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (map); i++)
    if (map[i].av == pix_fmt)
      return map[i].gst;
  return GST_VIDEO_FORMAT_UNKNOWN;
}

/**
 * gst_avhw_format_list_names:
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the
 *   GStreamer video formats that have an FFmpeg pixel format of the same
 *   memory layout, each once, in the map's order (pad templates list them)
 */
gchar **
gst_avhw_format_list_names (void)
{
  GPtrArray *out = g_ptr_array_new ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (map); i++) {
    const gchar *name = gst_video_format_to_string (map[i].gst);

    if (!g_ptr_array_find_with_equal_func (out, name, g_str_equal, NULL))
      g_ptr_array_add (out, g_strdup (name));
  }
  g_ptr_array_add (out, NULL);
  return (gchar **) g_ptr_array_free (out, FALSE);
}

/**
 * gst_avhw_format_template_caps:
 * @features: (array zero-terminated=1): caps features, one structure for
 *   each ("memory:AVHWCUDA", %GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY...), in
 *   order of preference
 * @formats: (nullable): a #GST_TYPE_LIST of format names; %NULL: every
 *   format gst_avhw_format_list_names() gives
 *
 * Returns: (transfer full): `video/x-raw` caps of any size and rate in
 *   those memories and formats, for pad templates
 */
GstCaps *
gst_avhw_format_template_caps (const gchar * const *features,
    const GValue * formats)
{
  GstCaps *caps = gst_caps_new_empty ();
  GValue all = G_VALUE_INIT;
  const gchar *const *f;

  if (!formats) {
    gchar **names = gst_avhw_format_list_names (), **n;

    g_value_init (&all, GST_TYPE_LIST);
    for (n = names; *n; n++) {
      GValue v = G_VALUE_INIT;

      g_value_init (&v, G_TYPE_STRING);
      g_value_set_string (&v, *n);
      gst_value_list_append_and_take_value (&all, &v);
    }
    g_strfreev (names);
    formats = &all;
  }
  for (f = features; f && *f; f++) {
    GstStructure *s = gst_structure_new ("video/x-raw",
        "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
        "height", GST_TYPE_INT_RANGE, 1, G_MAXINT,
        "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1, NULL);

    gst_structure_set_value (s, "format", formats);
    gst_caps_append_structure_full (caps, s, gst_caps_features_new (*f, NULL));
  }
  if (formats == &all)
    g_value_unset (&all);
  return caps;
}
