/* gst-avhw: caps helpers for elements that move frames between memories
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwcapsutils.h"

/* The names in @formats (a string or a list of them) whose frames
 * @device holds, as a new list; asks the device about these formats alone
 * (a format's first question tries an allocation). */
static void
held_names (GstAvhwDevice * device, const GValue * formats, GValue * held)
{
  guint i, n = GST_VALUE_HOLDS_LIST (formats) ?
      gst_value_list_get_size (formats) : 1;

  g_value_init (held, GST_TYPE_LIST);
  for (i = 0; i < n; i++) {
    const GValue *v = GST_VALUE_HOLDS_LIST (formats) ?
        gst_value_list_get_value (formats, i) : formats;
    enum AVPixelFormat av;

    if (!G_VALUE_HOLDS_STRING (v))
      continue;
    av = gst_avhw_format_to_av (gst_video_format_from_string
        (g_value_get_string (v)));
    if (av != AV_PIX_FMT_NONE && gst_avhw_device_holds_sw_format (device, av))
      gst_value_list_append_value (held, v);
  }
}

/* @caps (taken) narrowed to the formats @device's frames hold: a structure
 * that names formats keeps those held (asking about them alone); one that
 * names none is intersected with the device's whole list. */
static GstCaps *
keep_held_formats (GstAvhwDevice * device, GstCaps * caps, gboolean to_device)
{
  GstCaps *res = gst_caps_new_empty (), *all = NULL;
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    const GValue *formats = gst_structure_get_value (s, "format");
    GstCaps *one = gst_caps_copy_nth (caps, i);
    GValue held = G_VALUE_INIT;

    if (!formats) {
      if (!all)
        all = gst_avhw_device_get_raw_caps (device, to_device);
      res = gst_caps_merge (res, gst_caps_intersect_full (one, all,
              GST_CAPS_INTERSECT_FIRST));
      gst_caps_unref (one);
      continue;
    }
    held_names (device, formats, &held);
    if (gst_value_list_get_size (&held) == 1)
      gst_structure_set_value (gst_caps_get_structure (one, 0), "format",
          gst_value_list_get_value (&held, 0));
    else if (gst_value_list_get_size (&held) > 1)
      gst_structure_set_value (gst_caps_get_structure (one, 0), "format",
          &held);
    if (gst_value_list_get_size (&held) > 0)
      res = gst_caps_merge (res, one);
    else
      gst_caps_unref (one);
    g_value_unset (&held);
  }
  gst_clear_caps (&all);
  gst_caps_unref (caps);
  return res;
}

/* @caps in one memory -> the same caps in the other memory (device memory of
 * @device when @to_device, else system memory), restricted to the formats
 * the device's frames can hold, followed by the structures of @caps that
 * may pass through unchanged: all of them, or with @passthrough_device_only
 * those in avhw device memory. */
GstCaps *
gst_avhw_caps_switch_memory (GstAvhwDevice * device, GstCaps * caps,
    gboolean to_device, gboolean passthrough_device_only)
{
  GstCaps *keep;
  GstCaps *switched = gst_caps_new_empty (), *res;
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    GstCapsFeatures *f = to_device ?
        gst_avhw_device_get_caps_features (device) :
        gst_caps_features_new_empty ();

    gst_caps_append_structure_full (switched, s, f);
  }
  res = keep_held_formats (device, switched, to_device);
  if (!passthrough_device_only)
    return gst_caps_merge (res, gst_caps_ref (caps));
  keep = gst_caps_new_empty ();
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCaps *one = gst_caps_copy_nth (caps, i);
    if (gst_avhw_caps_is_device_memory (one))
      gst_caps_append (keep, one);
    else
      gst_caps_unref (one);
  }
  return gst_caps_merge (res, keep);
}

gboolean
gst_avhw_caps_is_device_memory (GstCaps * caps)
{
  GstCapsFeatures *f;

  if (!caps || gst_caps_get_size (caps) == 0)
    return FALSE;
  f = gst_caps_get_features (caps, 0);
  return f && !gst_caps_features_is_any (f)
      && !gst_caps_features_is_equal (f, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)
      && gst_caps_features_get_size (f) > 0
      && g_str_has_prefix (gst_caps_features_get_nth (f, 0), "memory:AVHW");
}

/* @caps with every structure's features replaced: any memory (@features
 * NULL) or @features. */
GstCaps *
gst_avhw_caps_with_features (GstCaps * caps, const gchar * features)
{
  GstCaps *res = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (res); i++)
    gst_caps_set_features (res, i, features ?
        gst_caps_features_new (features, NULL) : gst_caps_features_new_any ());
  return res;
}

/* transform_caps's last step: @caps (taken) narrowed to @filter, in the
 * filter's order of preference; @caps itself without a filter. */
GstCaps *
gst_avhw_caps_apply_filter (GstCaps * caps, GstCaps * filter)
{
  GstCaps *res;

  if (!filter)
    return caps;
  res = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return res;
}

/* ';'-separated features, from the backends built with this tree (the
 * registry being rebuilt, a plugin's class_init cannot see the other
 * plugins) */
#ifndef AVHW_BUILT_MEMORY_FEATURES
#define AVHW_BUILT_MEMORY_FEATURES ""
#endif
#ifndef AVHW_BUILT_FOREIGN_FEATURES
#define AVHW_BUILT_FOREIGN_FEATURES ""
#endif

static void
append_features (GPtrArray * out, gchar ** features)
{
  gchar **f;

  for (f = features; *f; f++)
    if (**f && !g_ptr_array_find_with_equal_func (out, *f, g_str_equal, NULL))
      g_ptr_array_add (out, g_strdup (*f));
  g_strfreev (features);
}

/* The memories @memory names, %NULL-terminated: device features are those
 * of the backends in the registry (gst_avhw_backend_list_memory_features())
 * and of the backends built with this tree (in the elements plugin; the
 * library's copy of this file knows none). */
gchar **
gst_avhw_template_features (GstAvhwTemplateMemory memory)
{
  GPtrArray *features = g_ptr_array_new ();

  if (memory & GST_AVHW_TEMPLATE_DEVICE) {
    append_features (features, gst_avhw_backend_list_memory_features (FALSE));
    append_features (features, g_strsplit (AVHW_BUILT_MEMORY_FEATURES, ";",
            -1));
  }
  if (memory & GST_AVHW_TEMPLATE_FOREIGN) {
    append_features (features, gst_avhw_backend_list_memory_features (TRUE));
    append_features (features, g_strsplit (AVHW_BUILT_FOREIGN_FEATURES, ";",
            -1));
  }
  if (memory & GST_AVHW_TEMPLATE_SYSTEM)
    g_ptr_array_add (features,
        g_strdup (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY));
  g_ptr_array_add (features, NULL);
  return (gchar **) g_ptr_array_free (features, FALSE);
}

/* Pad template caps: video/x-raw in the memories @memory names
 * (gst_avhw_template_features()), each with @formats (a format field's
 * list value; NULL: every format avhw maps to FFmpeg). */
GstCaps *
gst_avhw_template_caps (GstAvhwTemplateMemory memory, const GValue * formats)
{
  gchar **features = gst_avhw_template_features (memory);
  GstCaps *caps;

  caps = gst_avhw_format_template_caps ((const gchar * const *) features,
      formats);
  g_strfreev (features);
  return caps;
}

/* Adds "sink" and "src" always pads with gst_avhw_template_caps() of @sink
 * and @src memories, each with @formats (a caps format field such as
 * "{ NV12, I420 }"; NULL: every format avhw maps). */
void
gst_avhw_element_class_add_templates (GstElementClass * klass,
    GstAvhwTemplateMemory sink, GstAvhwTemplateMemory src,
    const gchar * formats)
{
  GValue fmts = G_VALUE_INIT;
  GstCaps *caps;

  if (formats) {
    g_value_init (&fmts, GST_TYPE_LIST);
    if (!gst_value_deserialize (&fmts, formats))
      g_assert_not_reached ();
  }
  caps = gst_avhw_template_caps (sink, formats ? &fmts : NULL);
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_avhw_template_caps (src, formats ? &fmts : NULL);
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  if (formats)
    g_value_unset (&fmts);
}
