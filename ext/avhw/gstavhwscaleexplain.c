/* gst-avhw: why avhwconvertscale cannot negotiate, in a sentence
 *
 * A caps query or a caps event that meets nothing the other side takes
 * ends in a bare not-negotiated at the source; this says what is wrong and
 * what to do (put avhwupload or avhwdownload around it, which formats the
 * converters make, that the device has none) when the caps on
 * both sides say for sure.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstavhwscalecaps.h"
#include "gstavhwscalegraph.h"

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
      side->open |= !gst_avhw_scale_structure_formats (s, side->formats);
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
  if (!gst_avhw_scale_has_converters (a.backend, device, &why)) {
    if (sizes_differ || (!a.open && !b.open && !any_conversion (a.backend,
                device, a.formats, b.formats)))
      msg = g_strdup_printf ("Device %s cannot scale or convert frames: %s. "
          "Scale on another device, or on the CPU (avhwdownload ! "
          "videoconvertscale ! avhwupload).", name, why);
    goto done;
  }
  if (!a.open && !b.open && !any_conversion (a.backend, device, a.formats,
          b.formats)) {
    gchar *names = gst_avhw_scale_list_converters (a.backend, device);

    x = join_formats (b.formats);
    y = join_formats (a.formats);
    z = describe_outputs (a.backend, device, a.formats);
    msg = g_strdup_printf ("%s on %s cannot make %s from %s (%s); ask for "
        "a format they make, or convert on the CPU (avhwdownload ! "
        "videoconvert ! avhwupload).", names, name, x, y, z);
    g_free (names);
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
