/* gst-avhw: what a device's converter makes, in one struct
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwconvertercaps.h"
#include "gstavhwbackend.h"

/**
 * SECTION:gstavhwconvertercaps
 * @title: Converter capabilities
 * @short_description: what a device's converter makes
 *
 * A backend names its device's converters as it names its decoders: it
 * answers "what does converter N make?" in a #GstAvhwConverterCaps
 * (#GstAvhwBackendClass.query_converter), for libavfilter filters
 * (scale_cuda, libplacebo) and for converters of its own (the CUDA
 * backend's convert-and-scale kernel) alike. avhwconvertscale picks among
 * them by the formats, the method and the borders the caps and its
 * properties ask for. The rules between the fields are stated once, in
 * gst_avhw_converter_caps_check().
 */

#define KNOWN_METHODS (GST_AVHW_SCALE_METHOD_FLAG (GST_AVHW_SCALE_METHOD_AREA \
        + 1) - 1)

/**
 * gst_avhw_converter_caps_init:
 * @caps: (out caller-allocates): the struct to fill
 *
 * Nothing known: no name, no formats, no method.
 */
void
gst_avhw_converter_caps_init (GstAvhwConverterCaps * caps)
{
  g_return_if_fail (caps != NULL);
  memset (caps, 0, sizeof (*caps));
}

/**
 * gst_avhw_converter_caps_clear:
 * @caps: a filled #GstAvhwConverterCaps
 *
 * Frees the note of @caps and sets every field to 0.
 */
void
gst_avhw_converter_caps_clear (GstAvhwConverterCaps * caps)
{
  g_return_if_fail (caps != NULL);
  g_free (caps->note);
  memset (caps, 0, sizeof (*caps));
}

static gboolean
has (const GstVideoFormat * list, guint n, GstVideoFormat f)
{
  guint i;

  for (i = 0; i < n; i++)
    if (list[i] == f)
      return TRUE;
  return FALSE;
}

static gboolean
add (GstVideoFormat * list, guint * n, GstVideoFormat f)
{
  if (f == GST_VIDEO_FORMAT_UNKNOWN || has (list, *n, f))
    return TRUE;
  if (*n >= GST_AVHW_CONVERTER_MAX_FORMATS)
    return FALSE;
  list[(*n)++] = f;
  return TRUE;
}

/**
 * gst_avhw_converter_caps_add_in_format:
 * @caps: the struct being filled
 * @format: a format the converter takes
 *
 * Adds @format once (%GST_VIDEO_FORMAT_UNKNOWN is left out).
 *
 * Returns: %FALSE when the list is full
 */
gboolean
gst_avhw_converter_caps_add_in_format (GstAvhwConverterCaps * caps,
    GstVideoFormat format)
{
  g_return_val_if_fail (caps != NULL, FALSE);
  return add (caps->in_formats, &caps->n_in_formats, format);
}

/**
 * gst_avhw_converter_caps_add_out_format:
 * @caps: the struct being filled
 * @format: a format the converter makes
 *
 * Adds @format once (%GST_VIDEO_FORMAT_UNKNOWN is left out).
 *
 * Returns: %FALSE when the list is full
 */
gboolean
gst_avhw_converter_caps_add_out_format (GstAvhwConverterCaps * caps,
    GstVideoFormat format)
{
  g_return_val_if_fail (caps != NULL, FALSE);
  return add (caps->out_formats, &caps->n_out_formats, format);
}

/**
 * gst_avhw_converter_caps_takes:
 * @caps: a converter
 * @format: a format
 *
 * Returns: whether @caps takes @format in
 */
gboolean
gst_avhw_converter_caps_takes (const GstAvhwConverterCaps * caps,
    GstVideoFormat format)
{
  g_return_val_if_fail (caps != NULL, FALSE);
  return has (caps->in_formats, caps->n_in_formats, format);
}

/**
 * gst_avhw_converter_caps_makes:
 * @caps: a converter
 * @format: a format
 *
 * Returns: whether @caps makes @format
 */
gboolean
gst_avhw_converter_caps_makes (const GstAvhwConverterCaps * caps,
    GstVideoFormat format)
{
  g_return_val_if_fail (caps != NULL, FALSE);
  return has (caps->out_formats, caps->n_out_formats, format);
}

static gboolean
fail (gchar ** why, const gchar * text)
{
  if (why)
    *why = g_strdup (text);
  return FALSE;
}

/**
 * gst_avhw_converter_caps_check:
 * @caps: a backend's answer
 * @why: (out) (optional) (transfer full) (nullable): the rule it breaks
 *
 * The rules of an answer: a name; at least one input and one output
 * format, each a known format; methods of #GstAvhwScaleMethod only, the
 * default among them; a filter converter gives options for each of its
 * methods.
 *
 * Returns: %TRUE when @caps keeps them
 */
gboolean
gst_avhw_converter_caps_check (const GstAvhwConverterCaps * caps, gchar ** why)
{
  guint i;

  g_return_val_if_fail (caps != NULL, FALSE);
  if (why)
    *why = NULL;
  if (!caps->name || !*caps->name)
    return fail (why, "a converter without a name");
  if (caps->n_in_formats == 0 || caps->n_out_formats == 0
      || caps->n_in_formats > GST_AVHW_CONVERTER_MAX_FORMATS
      || caps->n_out_formats > GST_AVHW_CONVERTER_MAX_FORMATS)
    return fail (why, "no input or no output format");
  for (i = 0; i < caps->n_in_formats; i++)
    if (caps->in_formats[i] <= GST_VIDEO_FORMAT_ENCODED)
      return fail (why, "an unknown input format");
  for (i = 0; i < caps->n_out_formats; i++)
    if (caps->out_formats[i] <= GST_VIDEO_FORMAT_ENCODED)
      return fail (why, "an unknown output format");
  if (caps->methods & ~KNOWN_METHODS)
    return fail (why, "methods GstAvhwScaleMethod does not name");
  if (!(caps->methods & GST_AVHW_SCALE_METHOD_FLAG
          (GST_AVHW_SCALE_METHOD_DEFAULT)))
    return fail (why, "no default method");
  if (caps->filter) {
    for (i = 0; i < GST_AVHW_CONVERTER_MAX_METHODS; i++)
      if ((caps->methods & GST_AVHW_SCALE_METHOD_FLAG (i))
          && !caps->method_options[i])
        return fail (why, "a filter method without its options");
    if (caps->borders)
      return fail (why, "a filter converter that draws borders (no filter "
          "option for them)");
  }
  return TRUE;
}

/**
 * gst_avhw_converter_caps_describe:
 * @caps: an answer that keeps gst_avhw_converter_caps_check()'s rules
 *
 * What @caps says, for people (gst-avhw-info): "cuda-convert (own): NV12,
 * P010_10LE, I420 -> RGB, RGBP...; default, bilinear, area; borders".
 *
 * Returns: (transfer full): the description
 */
gchar *
gst_avhw_converter_caps_describe (const GstAvhwConverterCaps * caps)
{
  GEnumClass *klass;
  GString *s;
  guint i;

  g_return_val_if_fail (caps != NULL, NULL);
  s = g_string_new (caps->name);
  if (caps->filter && g_strcmp0 (caps->filter, caps->name) != 0)
    g_string_append_printf (s, " (filter %s)", caps->filter);
  else if (!caps->filter)
    g_string_append (s, " (the backend's own)");
  g_string_append (s, ": ");
  for (i = 0; i < caps->n_in_formats; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "",
        gst_video_format_to_string (caps->in_formats[i]));
  g_string_append (s, " -> ");
  for (i = 0; i < caps->n_out_formats; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "",
        gst_video_format_to_string (caps->out_formats[i]));
  g_string_append (s, "; ");
  klass = g_type_class_ref (GST_TYPE_AVHW_SCALE_METHOD);
  for (i = 0; i < klass->n_values; i++)
    if (caps->methods & GST_AVHW_SCALE_METHOD_FLAG (klass->values[i].value))
      g_string_append_printf (s, "%s%s", s->str[s->len - 1] == ' ' ? "" :
          ", ", klass->values[i].value_nick);
  g_type_class_unref (klass);
  if (caps->borders)
    g_string_append (s, "; borders");
  if (caps->note)
    g_string_append_printf (s, " (%s)", caps->note);
  return g_string_free (s, FALSE);
}
