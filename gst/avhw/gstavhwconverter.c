/* gst-avhw: a device's converters, as the backend names them
 *
 * The list avhwconvertscale picks from: first the converters the backend
 * describes itself (#GstAvhwBackendClass.query_converter), in its order;
 * then, for a backend that names a libavfilter filter the older way
 * (#GstAvhwBackendClass.scale_filter with get_scale_formats,
 * get_scale_method_args and get_scale_filter_for), those filters in the
 * same shape, described here from those calls. The list is asked once per
 * device (and once per backend for the answer without a device) and kept.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhw-impl.h"

GST_DEBUG_CATEGORY_STATIC (avhw_converter_debug);
#define GST_CAT_DEFAULT avhw_converter_debug

#define KLASS(b) GST_AVHW_BACKEND_GET_CLASS (b)
/* more than any backend has: a longer answer is a wrong one */
#define MAX_OWN_CONVERTERS 64

static GMutex converters_lock;

static void
init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (avhw_converter_debug, "avhwconverter", 0,
        "gst-avhw device converters");
    g_once_init_leave (&done, 1);
  }
}

static void
converter_free (GstAvhwConverterCaps * c)
{
  gst_avhw_converter_caps_clear (c);
  g_free (c);
}

/* The converters for one input format from the scale_filter calls: one
 * per filter that makes some of its outputs.
 *
 * A format held in the frames of another (RGBP and BGRP in yuv444p frames,
 * gstavhwformat.c) is that other format to FFmpeg's filters: they would
 * read its planes as YUV. It only scales, to itself, with the backend's
 * scale filter, which resizes planes; no filter converts it. */
static void
add_filter_converters (GstAvhwBackend * backend, AVBufferRef * device_ctx,
    GstVideoFormat in, GPtrArray * out)
{
  enum AVPixelFormat ain = gst_avhw_format_to_av (in);
  gboolean borrowed = gst_avhw_format_from_av (ain) != in;
  GArray *outs = gst_avhw_backend_get_scale_formats (backend, device_ctx, ain);
  gboolean *done = g_new0 (gboolean, outs->len + 1);
  const gchar *opts;
  guint i, j, m;

  for (i = 0; i < outs->len; i++) {
    enum AVPixelFormat first = g_array_index (outs, gint, i);
    const gchar *filter;
    GstAvhwConverterCaps *c;

    if (done[i] || gst_avhw_format_from_av (first) == GST_VIDEO_FORMAT_UNKNOWN
        || (borrowed && first != ain))
      continue;
    filter = gst_avhw_backend_choose_scale_filter (backend, ain, first,
        GST_AVHW_SCALE_METHOD_DEFAULT, &opts);
    if (!filter || (borrowed && g_strcmp0 (filter,
                gst_avhw_backend_get_scale_filter (backend)) != 0))
      continue;
    c = g_new0 (GstAvhwConverterCaps, 1);
    gst_avhw_converter_caps_init (c);
    c->name = filter;
    c->filter = filter;
    gst_avhw_converter_caps_add_in_format (c, in);
    for (j = i; j < outs->len; j++) {
      enum AVPixelFormat f = g_array_index (outs, gint, j);
      const gchar *o;

      if (!done[j] && (!borrowed || f == ain)
          && gst_avhw_backend_choose_scale_filter (backend, ain, f,
              GST_AVHW_SCALE_METHOD_DEFAULT, &o) == filter) {
        done[j] = TRUE;
        gst_avhw_converter_caps_add_out_format (c, borrowed ? in :
            gst_avhw_format_from_av (f));
      }
    }
    for (m = 0; m < GST_AVHW_CONVERTER_MAX_METHODS; m++) {
      if (gst_avhw_backend_choose_scale_filter (backend, ain, first, m,
              &opts) == filter && opts) {
        c->methods |= GST_AVHW_SCALE_METHOD_FLAG (m);
        c->method_options[m] = opts;
      }
    }
    if (gst_avhw_converter_caps_check (c, NULL))
      g_ptr_array_add (out, c);
    else
      converter_free (c);
  }
  g_free (done);
  g_array_unref (outs);
}

static GPtrArray *
list_converters (GstAvhwBackend * backend, AVBufferRef * device_ctx)
{
  GstAvhwBackendClass *klass = KLASS (backend);
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify)
      converter_free);
  gchar **names, **n;
  gchar *why = NULL;
  guint i;

  for (i = 0; klass->query_converter && i < MAX_OWN_CONVERTERS; i++) {
    GstAvhwConverterCaps *c = g_new0 (GstAvhwConverterCaps, 1);

    gst_avhw_converter_caps_init (c);
    if (!klass->query_converter (backend, device_ctx, i, c)) {
      converter_free (c);
      break;
    }
    if (!gst_avhw_converter_caps_check (c, &why)
        || (!c->filter && !klass->convert)) {
      /* kept in its slot, without formats: the indexes stay the
       * backend's */
      GST_WARNING ("%s: converter %u (%s) is left out: %s", klass->name, i,
          GST_STR_NULL (c->name), why ? why : "it runs on the backend, "
          "which has no convert");
      c->n_in_formats = c->n_out_formats = 0;
      g_clear_pointer (&why, g_free);
    }
    g_ptr_array_add (list, c);
  }
  if (klass->scale_filter) {
    names = gst_avhw_format_list_names ();
    for (n = names; *n; n++)
      add_filter_converters (backend, device_ctx,
          gst_video_format_from_string (*n), list);
    g_strfreev (names);
  }
  for (i = 0; i < list->len; i++) {
    gchar *d = gst_avhw_converter_caps_describe (g_ptr_array_index (list, i));

    GST_DEBUG ("%s%s converter %u: %s", klass->name, device_ctx ? "" :
        " (no device)", i, d);
    g_free (d);
  }
  return list;
}

/**
 * gst_avhw_backend_get_converters: (skip)
 * @backend: a #GstAvhwBackend
 * @device: (nullable): an open device of @backend, or %NULL for what the
 *   backend says without one (a device of another backend counts as
 *   %NULL)
 *
 * The converters of @device, in the order avhwconvertscale prefers them:
 * those #GstAvhwBackendClass.query_converter describes (at their index),
 * then those the library describes from #GstAvhwBackendClass.scale_filter.
 * A converter whose answer breaks gst_avhw_converter_caps_check()'s rules
 * keeps its slot with no formats (it converts nothing). Asked once per
 * device and kept.
 *
 * Returns: (transfer none) (element-type GstAvhwConverterCaps): the
 *   converters, valid as long as @device (or @backend)
 */
GPtrArray *
gst_avhw_backend_get_converters (GstAvhwBackend * backend,
    GstAvhwDevice * device)
{
  static GQuark quark;
  GObject *owner;
  GPtrArray *list;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  init_debug ();
  /* a device of another backend has nothing to say for this one */
  if (device && gst_avhw_device_get_backend (device) != backend)
    device = NULL;
  if (!quark)
    quark = g_quark_from_static_string ("gst-avhw-converters");
  owner = device ? G_OBJECT (device) : G_OBJECT (backend);
  g_mutex_lock (&converters_lock);
  list = g_object_get_qdata (owner, quark);
  if (!list) {
    list = list_converters (backend, device ?
        gst_avhw_device_get_device_ctx (device) : NULL);
    g_object_set_qdata_full (owner, quark, list,
        (GDestroyNotify) g_ptr_array_unref);
  }
  g_mutex_unlock (&converters_lock);
  return list;
}

/**
 * gst_avhw_backend_open_converter: (skip)
 * @backend: a #GstAvhwBackend
 * @device_ctx: the device context the frames are on
 * @index: the converter's index in gst_avhw_backend_get_converters()
 * @setup: the conversion
 * @error: return location for a #GError
 *
 * Opens a session of the backend's own converter @index for @setup
 * (#GstAvhwBackendClass.converter_open).
 *
 * Returns: (transfer full) (nullable): the session, for
 *   gst_avhw_backend_convert() and gst_avhw_backend_close_converter(), or
 *   %NULL with @error set
 */
gpointer
gst_avhw_backend_open_converter (GstAvhwBackend * backend,
    AVBufferRef * device_ctx, guint index, const GstAvhwConvertSetup * setup,
    GError ** error)
{
  GstAvhwBackendClass *klass;
  gpointer session;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  g_return_val_if_fail (device_ctx != NULL && setup != NULL, NULL);
  klass = KLASS (backend);
  if (!klass->converter_open || !klass->convert) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "%s: the backend runs no converter of its own", klass->name);
    return NULL;
  }
  session = klass->converter_open (backend, device_ctx, index, setup, error);
  if (!session && error && !*error)
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "%s: converter %u did not open, and did not say why", klass->name,
        index);
  return session;
}

/**
 * gst_avhw_backend_convert: (skip)
 * @backend: a #GstAvhwBackend
 * @session: a session of gst_avhw_backend_open_converter()
 * @dst: a device frame of the output's format and size, from the device's
 *   frames
 * @src: a device frame of the input's format and size
 * @error: return location for a #GError
 *
 * Converts @src into @dst on the device (#GstAvhwBackendClass.convert),
 * ordered with the device's other work on the frames.
 *
 * Returns: %TRUE when the conversion was queued
 */
gboolean
gst_avhw_backend_convert (GstAvhwBackend * backend, gpointer session,
    AVFrame * dst, const AVFrame * src, GError ** error)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  g_return_val_if_fail (session && dst && src, FALSE);
  return KLASS (backend)->convert (backend, session, dst, src, error);
}

/**
 * gst_avhw_backend_close_converter: (skip)
 * @backend: a #GstAvhwBackend
 * @session: (nullable): a session of gst_avhw_backend_open_converter()
 *
 * Closes @session (#GstAvhwBackendClass.converter_close).
 */
void
gst_avhw_backend_close_converter (GstAvhwBackend * backend, gpointer session)
{
  g_return_if_fail (GST_IS_AVHW_BACKEND (backend));
  if (session && KLASS (backend)->converter_close)
    KLASS (backend)->converter_close (backend, session);
}
