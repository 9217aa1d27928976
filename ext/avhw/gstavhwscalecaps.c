/* gst-avhw: avhwconvertscale's caps: what the device's scale filter makes
 *
 * For device memory of one backend, transform_caps offers the caps
 * themselves first (passthrough), then any size in the formats the
 * backend's scale filter makes from them (or, asked from downstream, the
 * formats it makes them from), kept to those the device's frames hold. A
 * conversion the filter cannot make is never offered; a backend without a
 * usable filter offers passthrough only.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwscalecaps.h"
#include "gstavhwscalegraph.h"

static const GstVideoFormat scale_formats[] = {
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
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

static gboolean
device_holds (GstAvhwDevice * device, enum AVPixelFormat f)
{
  GArray *held = gst_avhw_device_get_sw_formats (device);
  gboolean ret = FALSE;
  guint i;

  for (i = 0; i < held->len && !ret; i++)
    ret = g_array_index (held, gint, i) == (gint) f;
  g_array_unref (held);
  return ret;
}

/* Whether @backend's scale filter makes @out frames from @in frames (and,
 * with @device, the device's frames hold @out). */
gboolean
gst_avhw_scale_converts (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstVideoFormat in, GstVideoFormat out)
{
  enum AVPixelFormat ain = gst_avhw_format_to_av (in);
  enum AVPixelFormat aout = gst_avhw_format_to_av (out);
  GArray *outs;
  gboolean ok = FALSE;
  guint i;

  if (ain == AV_PIX_FMT_NONE || aout == AV_PIX_FMT_NONE
      || !gst_avhw_scale_filter_usable (backend, NULL))
    return FALSE;
  if (device && !device_holds (device, aout))
    return FALSE;
  outs = gst_avhw_backend_get_scale_formats (backend,
      device ? gst_avhw_device_get_device_ctx (device) : NULL, ain);
  for (i = 0; i < outs->len && !ok; i++)
    ok = g_array_index (outs, gint, i) == (gint) aout;
  g_array_unref (outs);
  return ok;
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
    if (!gst_avhw_backend_get_scale_filter (b)) {
      /* A device without a scale filter: any format and size of its
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
