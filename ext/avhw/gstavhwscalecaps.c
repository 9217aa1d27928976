/* gst-avhw: avhwconvertscale's caps: what the device's converters make
 *
 * For device memory of one backend, transform_caps offers the caps
 * themselves first (passthrough), then any size in the formats the
 * device's converters (gst_avhw_backend_get_converters()) make from them
 * (or, asked from downstream, the formats they make them from), kept to
 * those the device's frames hold. A conversion no converter makes is
 * never offered; a backend without a usable converter offers passthrough
 * only.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavfilter/avfilter.h>

#include "gstavhwscalecaps.h"
#include "gstavhwscalegraph.h"

static const GstVideoFormat scale_formats[] = {
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBP, GST_VIDEO_FORMAT_BGRP,
};

/* Returns: (transfer full) (nullable): the backend whose device memory
 * structure @idx of @caps is in */
GstAvhwBackend *
gst_avhw_scale_backend_for_caps (GstCaps * caps, guint idx)
{
  GstCapsFeatures *f;
  GList *list, *l;
  GstAvhwBackend *ret = NULL;

  if (!caps || idx >= gst_caps_get_size (caps))
    return NULL;
  f = gst_caps_get_features (caps, idx);
  if (!f || gst_caps_features_is_any (f))
    return NULL;
  list = gst_avhw_backend_list ();
  for (l = list; l && !ret; l = l->next)
    if (gst_caps_features_contains (f,
            gst_avhw_backend_get_caps_feature (l->data)))
      ret = gst_object_ref (l->data);
  g_list_free_full (list, gst_object_unref);
  return ret;
}

/* Whether converter @c can run here: a filter converter's filter is in
 * this FFmpeg. */
gboolean
gst_avhw_scale_converter_usable (const GstAvhwConverterCaps * c)
{
  return c->n_in_formats > 0 && (!c->filter || avfilter_get_by_name
      (c->filter));
}

/* Whether converter @c makes @out frames from @in frames (and, with
 * @device, the device's frames hold @out). */
static gboolean
converter_converts (const GstAvhwConverterCaps * c, GstAvhwDevice * device,
    GstVideoFormat in, GstVideoFormat out)
{
  enum AVPixelFormat aout = gst_avhw_format_to_av (out);

  if (gst_avhw_format_to_av (in) == AV_PIX_FMT_NONE
      || aout == AV_PIX_FMT_NONE || !gst_avhw_scale_converter_usable (c)
      || !gst_avhw_converter_caps_takes (c, in)
      || !gst_avhw_converter_caps_makes (c, out))
    return FALSE;
  return !device || gst_avhw_device_holds_sw_format (device, aout);
}

/* Whether a converter of @backend (of @device, when given) makes @out
 * frames from @in frames. */
gboolean
gst_avhw_scale_converts (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstVideoFormat in, GstVideoFormat out)
{
  GPtrArray *list = gst_avhw_backend_get_converters (backend, device);
  guint i;

  for (i = 0; i < list->len; i++)
    if (converter_converts (g_ptr_array_index (list, i), device, in, out))
      return TRUE;
  return FALSE;
}

/* Returns: (transfer full): "cuda-convert, scale_cuda": the names of the
 * converters of @backend that can run here, each once */
gchar *
gst_avhw_scale_list_converters (GstAvhwBackend * backend,
    GstAvhwDevice * device)
{
  GPtrArray *list = gst_avhw_backend_get_converters (backend, device);
  GString *s = g_string_new (NULL);
  guint i, j;

  for (i = 0; i < list->len; i++) {
    const GstAvhwConverterCaps *c = g_ptr_array_index (list, i);
    gboolean seen = FALSE;

    if (!gst_avhw_scale_converter_usable (c))
      continue;
    for (j = 0; j < i; j++)
      seen |= g_strcmp0 (((GstAvhwConverterCaps *) g_ptr_array_index (list,
                  j))->name, c->name) == 0;
    if (!seen)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", c->name);
  }
  return g_string_free (s, FALSE);
}

/* Whether @backend has a converter that can run here; else why not. */
gboolean
gst_avhw_scale_has_converters (GstAvhwBackend * backend,
    GstAvhwDevice * device, gchar ** reason)
{
  GPtrArray *list = gst_avhw_backend_get_converters (backend, device);
  const gchar *filter = gst_avhw_backend_get_scale_filter (backend);
  const gchar *missing = NULL;
  guint i;

  for (i = 0; i < list->len; i++) {
    const GstAvhwConverterCaps *c = g_ptr_array_index (list, i);

    if (gst_avhw_scale_converter_usable (c))
      return TRUE;
    if (c->filter && !missing)
      missing = c->filter;
  }
  if (!reason)
    return FALSE;
  if (missing || (filter && !avfilter_get_by_name (filter)))
    *reason = g_strdup_printf ("this FFmpeg (libavfilter %s) has no %s "
        "filter", AV_STRINGIFY (LIBAVFILTER_VERSION), missing ? missing :
        filter);
  else
    *reason = g_strdup_printf ("backend %s names no FFmpeg scale filter and "
        "no converter of its own", gst_avhw_backend_get_name (backend));
  return FALSE;
}

/* The converter for @in to @out with @method (and borders, when
 * @borders), the first in the device's order; its index in @index.
 * %NULL when there is none, with @why saying what is missing: the
 * formats, the method or the borders. */
const GstAvhwConverterCaps *
gst_avhw_scale_choose (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstVideoFormat in, GstVideoFormat out, GstAvhwScaleMethod method,
    gboolean borders, guint * index, GstAvhwScaleMissing * why)
{
  GPtrArray *list = gst_avhw_backend_get_converters (backend, device);
  GstAvhwScaleMissing missing = GST_AVHW_SCALE_MISSING_FORMATS;
  guint i;

  for (i = 0; i < list->len; i++) {
    const GstAvhwConverterCaps *c = g_ptr_array_index (list, i);

    if (!converter_converts (c, device, in, out))
      continue;
    if (!(c->methods & GST_AVHW_SCALE_METHOD_FLAG (method))) {
      missing = MAX (missing, GST_AVHW_SCALE_MISSING_METHOD);
      continue;
    }
    if (borders && !c->borders) {
      missing = GST_AVHW_SCALE_MISSING_BORDERS;
      continue;
    }
    if (index)
      *index = i;
    return c;
  }
  if (why)
    *why = missing;
  return NULL;
}

/* Returns: (transfer full): "default, bilinear, area": the methods of the
 * converters that make @out from @in */
gchar *
gst_avhw_scale_list_methods (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstVideoFormat in, GstVideoFormat out)
{
  GPtrArray *list = gst_avhw_backend_get_converters (backend, device);
  GEnumClass *klass = g_type_class_ref (GST_TYPE_AVHW_SCALE_METHOD);
  GString *s = g_string_new (NULL);
  guint i, j, methods = 0;

  for (i = 0; i < list->len; i++) {
    const GstAvhwConverterCaps *c = g_ptr_array_index (list, i);

    if (converter_converts (c, device, in, out))
      methods |= c->methods;
  }
  for (j = 0; j < klass->n_values; j++)
    if (methods & GST_AVHW_SCALE_METHOD_FLAG (klass->values[j].value))
      g_string_append_printf (s, "%s%s", s->len ? ", " : "",
          klass->values[j].value_nick);
  g_type_class_unref (klass);
  return g_string_free (s, FALSE);
}

/* Returns: (transfer full): "NV12, I420", the formats made from @in, or
 * "nothing" */
gchar *
gst_avhw_scale_list_outputs (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstVideoFormat in)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (scale_formats); i++)
    if (gst_avhw_scale_converts (backend, device, in, scale_formats[i]))
      g_string_append_printf (s, "%s%s", s->len ? ", " : "",
          gst_video_format_to_string (scale_formats[i]));
  if (!s->len)
    g_string_append (s, "nothing");
  return g_string_free (s, FALSE);
}

/* The formats of @s (all of ours when it names none); FALSE when it names
 * none. */
gboolean
gst_avhw_scale_structure_formats (const GstStructure * s, GArray * out)
{
  const GValue *v = gst_structure_get_value (s, "format");
  GstVideoFormat f;
  guint i;

  if (v && G_VALUE_HOLDS_STRING (v)) {
    f = gst_video_format_from_string (g_value_get_string (v));
    g_array_append_val (out, f);
  } else if (v && GST_VALUE_HOLDS_LIST (v)) {
    for (i = 0; i < gst_value_list_get_size (v); i++) {
      const GValue *e = gst_value_list_get_value (v, i);
      if (!G_VALUE_HOLDS_STRING (e))
        continue;
      f = gst_video_format_from_string (g_value_get_string (e));
      g_array_append_val (out, f);
    }
  } else {
    g_array_append_vals (out, scale_formats, G_N_ELEMENTS (scale_formats));
  }
  return v != NULL;
}

static gboolean
has_format (GArray * a, GstVideoFormat f)
{
  guint i;

  for (i = 0; i < a->len; i++)
    if (g_array_index (a, GstVideoFormat, i) == f)
      return TRUE;
  return FALSE;
}

static void
set_formats (GstStructure * s, GArray * fmts)
{
  GValue list = G_VALUE_INIT, v = G_VALUE_INIT;
  guint i;

  g_value_init (&v, G_TYPE_STRING);
  if (fmts->len == 1) {
    g_value_set_string (&v, gst_video_format_to_string (g_array_index (fmts,
                GstVideoFormat, 0)));
    gst_structure_set_value (s, "format", &v);
  } else {
    g_value_init (&list, GST_TYPE_LIST);
    for (i = 0; i < fmts->len; i++) {
      g_value_set_string (&v, gst_video_format_to_string (g_array_index (fmts,
                  GstVideoFormat, i)));
      gst_value_list_append_value (&list, &v);
    }
    gst_structure_set_value (s, "format", &list);
    g_value_unset (&list);
  }
  g_value_unset (&v);
}

/* @s at any size and aspect ratio in @fmts; its colorimetry kept only when
 * the format stays. */
static GstStructure *
any_size (const GstStructure * s, GArray * fmts, gboolean same_format)
{
  GstStructure *r = gst_structure_copy (s);

  set_formats (r, fmts);
  gst_structure_set (r, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
      "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, "pixel-aspect-ratio",
      GST_TYPE_FRACTION_RANGE, 1, G_MAXINT, G_MAXINT, 1, NULL);
  if (!same_format)
    gst_structure_remove_fields (r, "colorimetry", "chroma-site", NULL);
  return r;
}

/* @res with what @b's filter makes from (SINK) or into (SRC) structure @i of
 * @caps: the same formats at any size, then the other formats. */
static GstCaps *
add_conversions (GstCaps * res, GstAvhwBackend * b, GstAvhwDevice * device,
    GstPadDirection direction, GstCaps * caps, guint i)
{
  const GstStructure *s = gst_caps_get_structure (caps, i);
  GstCapsFeatures *f = gst_caps_get_features (caps, i);
  GArray *given = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  GArray *same = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  GArray *other = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  guint g, c;

  gst_avhw_scale_structure_formats (s, given);
  for (g = 0; g < given->len; g++) {
    GstVideoFormat x = g_array_index (given, GstVideoFormat, g);

    for (c = 0; c < G_N_ELEMENTS (scale_formats); c++) {
      GstVideoFormat y = scale_formats[c];
      gboolean ok = direction == GST_PAD_SINK ?
          gst_avhw_scale_converts (b, device, x, y) :
          gst_avhw_scale_converts (b, device, y, x);

      if (!ok)
        continue;
      if (x == y && !has_format (same, y))
        g_array_append_val (same, y);
      else if (x != y && !has_format (given, y) && !has_format (other, y))
        g_array_append_val (other, y);
    }
  }
  if (same->len)
    res = gst_caps_merge_structure_full (res, any_size (s, same, TRUE),
        gst_caps_features_copy (f));
  if (other->len)
    res = gst_caps_merge_structure_full (res, any_size (s, other, FALSE),
        gst_caps_features_copy (f));
  g_array_unref (given);
  g_array_unref (same);
  g_array_unref (other);
  return res;
}

GstCaps *
gst_avhw_scale_transform_caps (GstAvhwDevice * device,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *res = gst_caps_new_empty ();
  GArray *all = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  GstStructure *fallback = NULL;
  guint i;

  g_array_append_vals (all, scale_formats, G_N_ELEMENTS (scale_formats));
  if (gst_caps_is_any (caps))
    gst_caps_append_structure_full (res, gst_structure_new_empty
        ("video/x-raw"), gst_caps_features_new_any ());
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    GstAvhwBackend *b;

    if (f && gst_caps_features_is_any (f)) {
      /* Before a memory is chosen: any of ours, any size. */
      res = gst_caps_merge_structure_full (res,
          any_size (gst_caps_get_structure (caps, i), all, FALSE),
          gst_caps_features_copy (f));
      continue;
    }
    b = gst_avhw_scale_backend_for_caps (caps, i);
    if (!b) {
      /* System memory: nothing can come in or out, but say (ANY), last,
       * so that the element links and set_caps tells what to do instead
       * of a bare "could not link" (the pad templates list system memory
       * for that). */
      if (!fallback)
        fallback = any_size (gst_caps_get_structure (caps, i), all, FALSE);
      continue;
    }
    if (!device && !fallback) {
      /* No device yet (linking before READY; negotiating before the
       * device is known): any memory may be asked on the other side, for
       * the same reason; set_caps refuses what cannot be made. */
      fallback = any_size (gst_caps_get_structure (caps, i), all, FALSE);
    }
    if (!gst_avhw_scale_has_converters (b, device, NULL)) {
      /* A device without a converter: any format and size of its
       * memory, so that the link is made and set_caps says so instead of
       * a bare "could not link". */
      res = gst_caps_merge_structure_full (res,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          gst_caps_features_copy (f));
      res = gst_caps_merge_structure_full (res,
          any_size (gst_caps_get_structure (caps, i), all, FALSE),
          gst_caps_features_copy (f));
    } else if (!device || gst_avhw_device_get_backend (device) == b) {
      res = gst_caps_merge_structure_full (res,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          gst_caps_features_copy (f));
      res = add_conversions (res, b, device, direction, caps, i);
    }
    gst_object_unref (b);
  }
  if (fallback)
    res = gst_caps_merge_structure_full (res, fallback,
        gst_caps_features_new_any ());
  g_array_unref (all);
  return res;
}
