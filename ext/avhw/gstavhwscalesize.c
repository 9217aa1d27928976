/* gst-avhw: avhwconvertscale's output size
 *
 * Fixation keeps the input's format and display aspect ratio where
 * downstream leaves them open, by videoconvertscale's rules, so both give
 * the same geometry; and whether add-borders would need borders.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwscalecaps.h"

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

/* Where the picture goes in the output: all of it, or with add-borders
 * the rectangle videoconvertscale's add-borders draws it in (its borders
 * split in two, the odd pixel after the picture). */
void
gst_avhw_scale_picture_rect (const GstVideoInfo * in, const GstVideoInfo * out,
    gboolean add_borders, GstVideoRectangle * rect)
{
  gint ow = GST_VIDEO_INFO_WIDTH (out), oh = GST_VIDEO_INFO_HEIGHT (out);
  gint from_n, from_d, n, d, to_w, to_h, bw = 0, bh = 0;

  if (add_borders && gst_util_fraction_multiply (GST_VIDEO_INFO_WIDTH (in),
          GST_VIDEO_INFO_HEIGHT (in), GST_VIDEO_INFO_PAR_N (in),
          GST_VIDEO_INFO_PAR_D (in), &from_n, &from_d)
      && gst_util_fraction_multiply (from_n, from_d,
          GST_VIDEO_INFO_PAR_D (out), GST_VIDEO_INFO_PAR_N (out), &n, &d)) {
    to_h = (gint) gst_util_uint64_scale_int (ow, d, n);
    if (to_h <= oh) {
      bh = oh - to_h;
    } else {
      to_w = (gint) gst_util_uint64_scale_int (oh, n, d);
      bw = MAX (ow - to_w, 0);
    }
  }
  rect->x = bw / 2;
  rect->y = bh / 2;
  rect->w = ow - bw;
  rect->h = oh - bh;
}
