/* gst-avhw: avhwconvertscale's caps: what the device's scale filter makes
 *
 * For device memory of one backend, transform_caps offers the caps
 * themselves first (passthrough), then any size in the formats the
 * backend's scale filter makes from them (or, asked from downstream, the
 * formats it makes them from), kept to those the device's frames hold. A
 * conversion the filter cannot make is never offered; a backend without a
 * usable filter offers passthrough only. Fixation keeps the input's format
 * and display aspect ratio where downstream leaves them open, as
 * videoscale does.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

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
static gboolean
structure_formats (const GstStructure * s, GArray * out)
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

  structure_formats (s, given);
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
      /* System memory in: nothing can come out, but say (ANY) so that the
       * element links and set_caps tells what to do instead of a bare
       * "could not link". Asked from downstream, it is not offered. */
      if (direction == GST_PAD_SINK)
        res = gst_caps_merge_structure_full (res,
            any_size (gst_caps_get_structure (caps, i), all, FALSE),
            gst_caps_features_new_any ());
      continue;
    }
    if (!device || gst_avhw_device_get_backend (device) == b) {
      res = gst_caps_merge_structure_full (res,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          gst_caps_features_copy (f));
      res = add_conversions (res, b, device, direction, caps, i);
    }
    gst_object_unref (b);
  }
  g_array_unref (all);
  return res;
}

/* The value of @field nearest to @target that @s allows (@s unchanged). */
static gint
nearest_int (const GstStructure * s, const gchar * field, gint target)
{
  GstStructure *tmp = gst_structure_copy (s);
  gint v = target;

  gst_structure_fixate_field_nearest_int (tmp, field, target);
  gst_structure_get_int (tmp, field, &v);
  gst_structure_free (tmp);
  return v;
}

/* Whether @s allows the pixel aspect ratio @n/@d exactly. */
static gboolean
par_allowed (const GstStructure * s, gint n, gint d)
{
  GstStructure *tmp = gst_structure_copy (s);
  gint sn = 0, sd = 1;

  gst_structure_fixate_field_nearest_fraction (tmp, "pixel-aspect-ratio", n, d);
  gst_structure_get_fraction (tmp, "pixel-aspect-ratio", &sn, &sd);
  gst_structure_free (tmp);
  return (gint64) sn *d == (gint64) n * sd;
}

static void
set_size (GstStructure * s, gint w, gint h, gint par_n, gint par_d)
{
  gst_structure_set (s, "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, par_n, par_d, NULL);
}

/* Width and height @outs allows with display aspect ratio @dar_n/@dar_d at
 * pixel aspect @par_n/@par_d, one of them kept near @keep_w or @keep_h (the
 * height first, for interlacing; 0 means already fixed). */
static void
fit_with_par (GstStructure * outs, gint dar_n, gint dar_d, gint par_n,
    gint par_d, gint keep_w, gint keep_h)
{
  gint n, d, w, h, w2, h2;

  /* width / height = n / d keeps the picture's shape */
  if (!gst_util_fraction_multiply (dar_n, dar_d, par_d, par_n, &n, &d))
    return;
  gst_structure_get_int (outs, "width", &w);
  gst_structure_get_int (outs, "height", &h);
  if (!keep_w) {
    set_size (outs, w, nearest_int (outs, "height",
            (gint) gst_util_uint64_scale_int_round (w, d, n)), par_n, par_d);
    return;
  }
  if (!keep_h) {
    set_size (outs, nearest_int (outs, "width",
            (gint) gst_util_uint64_scale_int_round (h, n, d)), h, par_n, par_d);
    return;
  }
  /* Neither fixed: the input height, else the input width, else whichever
   * comes nearer the shape. */
  h = nearest_int (outs, "height", keep_h);
  w = (gint) gst_util_uint64_scale_int_round (h, n, d);
  if (nearest_int (outs, "width", w) == w) {
    set_size (outs, w, h, par_n, par_d);
    return;
  }
  w2 = nearest_int (outs, "width", keep_w);
  h2 = (gint) gst_util_uint64_scale_int_round (w2, d, n);
  if (nearest_int (outs, "height", h2) == h2) {
    set_size (outs, w2, h2, par_n, par_d);
    return;
  }
  w = nearest_int (outs, "width", w);
  h2 = nearest_int (outs, "height", h2);
  if ((gint64) ABS (w2 * d - h2 * n) * h < (gint64) ABS (w * d - h * n) * h2)
    set_size (outs, w2, h2, par_n, par_d);
  else
    set_size (outs, w, h, par_n, par_d);
}

/* Size and pixel aspect ratio of @outs for the input @ins, keeping the
 * display aspect ratio where @outs leaves room, by the rules of
 * videoconvertscale: a fixed size keeps its own and takes the pixel aspect
 * ratio that keeps the shape; with one side fixed, the other side keeps
 * the input's length if a pixel aspect ratio then keeps the shape, else it
 * follows the shape. */
static void
fixate_size (const GstStructure * ins, GstStructure * outs)
{
  gint from_w = 0, from_h = 0, from_par_n = 1, from_par_d = 1;
  gint dar_n, dar_d, n, d, w = 0, h = 0, keep;
  const GValue *to_par;

  gst_structure_get_int (ins, "width", &from_w);
  gst_structure_get_int (ins, "height", &from_h);
  gst_structure_get_fraction (ins, "pixel-aspect-ratio", &from_par_n,
      &from_par_d);
  if (!from_w || !from_h || !gst_util_fraction_multiply (from_w, from_h,
          from_par_n, from_par_d, &dar_n, &dar_d))
    return;                     /* gst_caps_fixate() does the rest */
  gst_structure_get_int (outs, "width", &w);
  gst_structure_get_int (outs, "height", &h);
  if (!gst_structure_has_field (outs, "pixel-aspect-ratio"))
    gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE,
        1, G_MAXINT, G_MAXINT, 1, NULL);
  to_par = gst_structure_get_value (outs, "pixel-aspect-ratio");

  if (gst_value_is_fixed (to_par) || (w && h)) {
    if (!gst_value_is_fixed (to_par)) {
      /* both lengths given: the aspect ratio that keeps the shape */
      if (gst_util_fraction_multiply (dar_n, dar_d, h, w, &n, &d))
        gst_structure_fixate_field_nearest_fraction (outs,
            "pixel-aspect-ratio", n, d);
      return;
    }
    if (!(w && h))
      fit_with_par (outs, dar_n, dar_d, gst_value_get_fraction_numerator
          (to_par), gst_value_get_fraction_denominator (to_par),
          w ? 0 : from_w, h ? 0 : from_h);
    return;
  }
  /* The aspect ratio is free: keep the given length, the input's other
   * length, and take the aspect ratio that keeps the shape. */
  if (w || h) {
    keep = w ? nearest_int (outs, "height", from_h) :
        nearest_int (outs, "width", from_w);
    if (w ? gst_util_fraction_multiply (dar_n, dar_d, keep, w, &n, &d) :
        gst_util_fraction_multiply (dar_n, dar_d, h, keep, &n, &d)) {
      if (par_allowed (outs, n, d)) {
        set_size (outs, w ? w : keep, h ? h : keep, n, d);
        return;
      }
    }
  } else {
    w = nearest_int (outs, "width", from_w);
    h = nearest_int (outs, "height", from_h);
    if (gst_util_fraction_multiply (dar_n, dar_d, h, w, &n, &d)
        && par_allowed (outs, n, d)) {
      set_size (outs, w, h, n, d);
      return;
    }
    w = h = 0;
  }
  /* That aspect ratio is not allowed: the one nearest the input's, and
   * the lengths that keep the shape with it. */
  gst_structure_fixate_field_nearest_fraction (outs, "pixel-aspect-ratio",
      from_par_n, from_par_d);
  gst_structure_get_fraction (outs, "pixel-aspect-ratio", &n, &d);
  fit_with_par (outs, dar_n, dar_d, n, d, w ? 0 : from_w, h ? 0 : from_h);
}

/* @othercaps (owned) fixed for the fixed input @caps: its first structure,
 * the input's format if it may stay, the display aspect ratio kept. */
GstCaps *
gst_avhw_scale_fixate_caps (GstCaps * caps, GstCaps * othercaps)
{
  const GstStructure *ins = gst_caps_get_structure (caps, 0);
  GstStructure *outs;
  const gchar *fmt = gst_structure_get_string (ins, "format");

  othercaps = gst_caps_make_writable (gst_caps_truncate (othercaps));
  outs = gst_caps_get_structure (othercaps, 0);
  if (fmt && gst_structure_has_field (outs, "format"))
    gst_structure_fixate_field_string (outs, "format", fmt);
  fixate_size (ins, outs);
  return gst_caps_fixate (othercaps);
}

/* Whether videoscale's add-borders would draw borders: the display aspect
 * ratios differ by more than the rounding of a whole pixel. */
gboolean
gst_avhw_scale_needs_borders (const GstVideoInfo * in, const GstVideoInfo * out)
{
  gint from_n, from_d, to_n, to_d, n, d;
  gint ow = GST_VIDEO_INFO_WIDTH (out), oh = GST_VIDEO_INFO_HEIGHT (out);
  gint w, h;

  if (!gst_util_fraction_multiply (GST_VIDEO_INFO_WIDTH (in),
          GST_VIDEO_INFO_HEIGHT (in), GST_VIDEO_INFO_PAR_N (in),
          GST_VIDEO_INFO_PAR_D (in), &from_n, &from_d)
      || !gst_util_fraction_multiply (ow, oh, GST_VIDEO_INFO_PAR_N (out),
          GST_VIDEO_INFO_PAR_D (out), &to_n, &to_d))
    return FALSE;
  if (gst_util_fraction_compare (from_n, from_d, to_n, to_d) == 0)
    return FALSE;
  /* The picture's size inside the output, as videoscale computes it. */
  if (!gst_util_fraction_multiply (from_n, from_d, GST_VIDEO_INFO_PAR_D (out),
          GST_VIDEO_INFO_PAR_N (out), &n, &d))
    return FALSE;
  w = (gint) gst_util_uint64_scale_int (oh, n, d);
  if (w <= ow)
    return w != ow;
  h = (gint) gst_util_uint64_scale_int (ow, d, n);
  return h != oh;
}

/* One side of a failed negotiation: the backend of its device memory, its
 * formats and its size when every structure fixes them. */
typedef struct
{
  GstAvhwBackend *backend;
  gboolean system;              /* structures in other memory only */
  gboolean open;                /* some structure names no format */
  GArray *formats;
  gint width, height;           /* 0: not one fixed size */
} Side;

static void
side_init (Side * side, GstCaps * caps)
{
  guint i;

  memset (side, 0, sizeof (*side));
  side->formats = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  side->width = side->height = -1;
  for (i = 0; caps && i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    GstAvhwBackend *b;
    gint w = 0, h = 0;

    /* (ANY) memory says nothing either way */
    if (f && gst_caps_features_is_any (f))
      continue;
    b = gst_avhw_scale_backend_for_caps (caps, i);
    if (!b) {
      side->system |= !side->backend;
      continue;
    }
    side->system = FALSE;
    if (!side->backend)
      side->backend = gst_object_ref (b);
    if (b == side->backend) {
      side->open |= !structure_formats (s, side->formats);
      gst_structure_get_int (s, "width", &w);
      gst_structure_get_int (s, "height", &h);
      if (side->width == -1) {
        side->width = w;
        side->height = h;
      } else if (side->width != w || side->height != h) {
        side->width = side->height = 0;
      }
    }
    gst_object_unref (b);
  }
}

static void
side_clear (Side * side)
{
  gst_clear_object (&side->backend);
  g_array_unref (side->formats);
}

/* "from NV12 it makes NV12; from I420 it makes I420" */
static gchar *
describe_outputs (GstAvhwBackend * b, GstAvhwDevice * device, GArray * ins)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < ins->len; i++) {
    GstVideoFormat f = g_array_index (ins, GstVideoFormat, i);
    gchar *outs = gst_avhw_scale_list_outputs (b, device, f);

    g_string_append_printf (s, "%sfrom %s it makes %s", i ? "; " : "",
        gst_video_format_to_string (f), outs);
    g_free (outs);
  }
  return g_string_free (s, FALSE);
}

static gchar *
join_formats (GArray * fmts)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < fmts->len; i++)
    g_string_append_printf (s, "%s%s", i ? " or " : "",
        gst_video_format_to_string (g_array_index (fmts, GstVideoFormat, i)));
  return g_string_free (s, FALSE);
}

static gboolean
any_conversion (GstAvhwBackend * b, GstAvhwDevice * device, GArray * ins,
    GArray * outs)
{
  guint i, j;

  for (i = 0; i < ins->len; i++)
    for (j = 0; j < outs->len; j++) {
      GstVideoFormat x = g_array_index (ins, GstVideoFormat, i);
      GstVideoFormat y = g_array_index (outs, GstVideoFormat, j);
      if (x == y || gst_avhw_scale_converts (b, device, x, y))
        return TRUE;
    }
  return FALSE;
}

/* Why input @in (caps upstream offers or sent) cannot become output @out
 * (caps downstream takes): a sentence for the user, or %NULL when these
 * caps leave room (then negotiation goes on, or fails for reasons that are
 * not this element's). */
gchar *
gst_avhw_scale_explain (GstAvhwDevice * device, GstCaps * in, GstCaps * out)
{
  Side a, b;
  gchar *msg = NULL, *why = NULL, *x, *y, *z;
  const gchar *name;
  gboolean sizes_differ;

  side_init (&a, in);
  side_init (&b, out);
  if (a.system) {
    msg = g_strdup ("avhwconvertscale works on frames in avhw device memory "
        "and upstream offers none; put avhwupload before it.");
    goto done;
  }
  if (b.system) {
    msg = g_strdup ("avhwconvertscale makes frames in avhw device memory and "
        "downstream takes none; put avhwdownload after it.");
    goto done;
  }
  if (!a.backend || !b.backend)
    goto done;
  if (a.backend != b.backend) {
    msg = g_strdup_printf ("avhwconvertscale stays on one device: its input "
        "is in %s, downstream takes %s.",
        gst_avhw_backend_get_caps_feature (a.backend),
        gst_avhw_backend_get_caps_feature (b.backend));
    goto done;
  }
  name = device ? gst_avhw_device_get_name (device) :
      gst_avhw_backend_get_name (a.backend);
  sizes_differ = a.width > 0 && b.width > 0 && (a.width != b.width
      || a.height != b.height);
  if (!gst_avhw_scale_filter_usable (a.backend, &why)) {
    if (sizes_differ || (!a.open && !b.open && !any_conversion (a.backend,
                device, a.formats, b.formats)))
      msg = g_strdup_printf ("Device %s cannot scale or convert frames: %s. "
          "Scale on another device, or on the CPU (avhwdownload ! "
          "videoconvertscale ! avhwupload).", name, why);
    goto done;
  }
  if (!a.open && !b.open && !any_conversion (a.backend, device, a.formats,
          b.formats)) {
    x = join_formats (b.formats);
    y = join_formats (a.formats);
    z = describe_outputs (a.backend, device, a.formats);
    msg = g_strdup_printf ("%s on %s cannot make %s from %s (%s); convert "
        "before avhwupload with videoconvert, or ask for a format it makes.",
        gst_avhw_backend_get_scale_filter (a.backend), name, x, y, z);
    g_free (x);
    g_free (y);
    g_free (z);
  }
done:
  g_free (why);
  side_clear (&a);
  side_clear (&b);
  return msg;
}
