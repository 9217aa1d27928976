/* gst-avhw-info: the installed backends, their devices, what each decodes
 * and encodes in hardware, and the filter that scales on it; which backend
 * `auto` takes, and with --device where a device string goes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <libavfilter/avfilter.h>
#include <libavutil/pixdesc.h>
#include <gst/avhw/gstavhw-impl.h>

static gboolean no_open;
static gchar *device_string;

static void
print_codecs (GstAvhwBackend * backend, guint index, gboolean encoders)
{
  GString *lacks = g_string_new (NULL);
  guint n, i, j;
  const enum AVCodecID *ids = gst_avhw_codec_list (&n);
  GString *s = g_string_new (NULL);

  for (i = 0; i < n; i++) {
    GPtrArray *c = encoders ? gst_avhw_backend_get_encoders (backend, ids[i]) :
        gst_avhw_backend_get_decoders (backend, ids[i]);

    if (c->len == 0) {
      g_ptr_array_unref (c);
      continue;
    }
    if (!encoders && !gst_avhw_backend_device_decodes (backend, index, ids[i],
            NULL)) {
      g_string_append_printf (lacks, "%s%s", lacks->len ? " " : "",
          gst_avhw_codec_get_nick (ids[i]));
      g_ptr_array_unref (c);
      continue;
    }
    g_string_append_printf (s, "%s%s (", s->len ? ", " : "",
        gst_avhw_codec_get_nick (ids[i]));
    for (j = 0; j < c->len; j++) {
      const AVCodec *codec = g_ptr_array_index (c, j);
      g_string_append_printf (s, "%s%s", j ? " " : "", codec->name);
    }
    if (!encoders) {
      gchar *what = gst_avhw_backend_get_decode_description (backend, index,
          ids[i]);
      guint engines = gst_avhw_backend_get_decode_engines (backend, index,
          ids[i]);

      if (what)
        g_string_append_printf (s, "; %s", what);
      if (engines)
        g_string_append_printf (s, "; %u engine%s", engines,
            engines > 1 ? "s" : "");
      g_free (what);
    }
    g_string_append (s, ")");
    g_ptr_array_unref (c);
  }
  if (lacks->len)
    g_string_append_printf (s, "%snot in this device's hardware: %s",
        s->len ? "; " : "", lacks->str);
  g_string_free (lacks, TRUE);
  g_print ("      %s: %s\n", encoders ? "encode (FFmpeg's candidates; "
      "hardware checked when opened)" : "decode", s->len ? s->str :
      encoders ? "no hardware encoder in this FFmpeg" :
      "no hardware decoder in this FFmpeg (avhwdec decodes in software "
      "and uploads)");
  g_string_free (s, TRUE);
}

/* The backend's scale filter for avhwconvertscale, and its methods. */
/* The formats of @formats, "NV12 I420 ..." */
static gchar *
format_list (const GstVideoFormat * formats, guint n)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i ? " " : "",
        gst_video_format_to_string (formats[i]));
  return g_string_free (s, FALSE);
}

/* What avhwconvertscale can use on @dev (NULL: what the backend says
 * without a device), in the order it prefers them: a line per converter,
 * with its conversions "IN -> OUT...". */
static void
print_converters (GstAvhwBackend * backend, GstAvhwDevice * dev)
{
  GPtrArray *list = gst_avhw_backend_get_converters (backend, dev);
  GEnumClass *klass = g_type_class_ref (GST_TYPE_AVHW_SCALE_METHOD);
  GPtrArray *names = g_ptr_array_new ();
  guint i, j, m;

  g_print ("      convert and scale (avhwconvertscale), in the order it "
      "prefers:%s\n", !list || list->len == 0 ? " none" : "");
  for (i = 0; list && i < list->len; i++) {
    const GstAvhwConverterCaps *c = g_ptr_array_index (list, i);
    GString *line = g_string_new (NULL), *methods = g_string_new (NULL);

    if (g_ptr_array_find_with_equal_func (names, c->name, g_str_equal, NULL))
      continue;
    g_ptr_array_add (names, (gpointer) c->name);
    for (m = 0; m < klass->n_values; m++)
      if (c->methods & GST_AVHW_SCALE_METHOD_FLAG (klass->values[m].value))
        g_string_append_printf (methods, " %s", klass->values[m].value_nick);
    for (j = i; j < list->len; j++) {
      const GstAvhwConverterCaps *d = g_ptr_array_index (list, j);
      gchar *in, *out;

      if (!g_str_equal (d->name, c->name) || d->n_in_formats == 0)
        continue;
      in = format_list (d->in_formats, d->n_in_formats);
      out = format_list (d->out_formats, d->n_out_formats);
      g_string_append_printf (line, "%s%s -> %s", line->len ? "; " : "", in,
          out);
      g_free (in);
      g_free (out);
    }
    g_print ("        %s (%s%s; methods:%s%s): %s\n", c->name,
        c->filter ? "FFmpeg's " : "the backend's own", c->filter ? c->filter :
        "", methods->str, c->borders ? "; add-borders" : "",
        line->len ? line->str : "converts nothing here");
    g_string_free (line, TRUE);
    g_string_free (methods, TRUE);
  }
  g_ptr_array_unref (names);
  g_type_class_unref (klass);
}

static gboolean
print_device (GstAvhwBackend * backend, guint index)
{
  gchar *desc = gst_avhw_backend_get_device_description (backend, index);
  gchar *str = g_strdup_printf ("%s:%u", gst_avhw_backend_get_name (backend),
      index);
  GError *err = NULL;
  GstAvhwDevice *dev = NULL;
  gint64 t0;

  g_print ("    %s  %s\n", str, desc);
  g_free (desc);
  if (!no_open) {
    t0 = g_get_monotonic_time ();
    dev = gst_avhw_device_open (str, NULL, &err);
    if (!dev) {
      g_print ("      cannot open: %s\n", err->message);
      if (gst_avhw_backend_get_n_devices (backend, NULL) > 1)
        g_print ("      (device=auto and device=%s skip it)\n",
            gst_avhw_backend_get_name (backend));
      g_clear_error (&err);
      g_free (str);
      return FALSE;
    } else {
      GArray *fmts = gst_avhw_device_get_sw_formats (dev);
      GString *s = g_string_new (NULL);
      guint i;

      for (i = 0; i < fmts->len; i++)
        g_string_append_printf (s, "%s%s", i ? " " : "",
            av_get_pix_fmt_name (g_array_index (fmts, gint, i)));
      g_print ("      opened in %.1f ms; frame formats: %s\n",
          (g_get_monotonic_time () - t0) / 1000.0, s->str);
      g_string_free (s, TRUE);
      g_array_unref (fmts);
    }
  }
  print_codecs (backend, index, FALSE);
  print_codecs (backend, index, TRUE);
  print_converters (backend, dev);
  gst_clear_object (&dev);
  g_free (str);
  return TRUE;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"no-open", 'n', 0, G_OPTION_ARG_NONE, &no_open,
        "Only enumerate; do not open devices", NULL},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device_string,
          "Then open DEVICE (auto, BACKEND or BACKEND:INDEX) as an element "
          "would in a new process (also with --no-open), and say which "
          "device it is",
        "DEVICE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- list gst-avhw backends, "
      "devices and hardware codecs");
  GError *err = NULL;
  GList *backends, *l;
  gchar **refused;
  guint i, n_devices = 0, n_failed = 0;
  gboolean auto_seen = FALSE;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("gst-avhw-info: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  backends = gst_avhw_backend_list ();
  g_print ("gst-avhw %s, FFmpeg libavcodec %s libavutil %s\n", VERSION,
      AV_STRINGIFY (LIBAVCODEC_VERSION), AV_STRINGIFY (LIBAVUTIL_VERSION));
  g_print ("%u backend(s) installed\n", g_list_length (backends));
  for (l = backends; l; l = l->next) {
    GstAvhwBackend *b = l->data;
    gchar *why = NULL;
    guint n = gst_avhw_backend_get_n_devices (b, &why);
    gboolean is_auto = n > 0 && !auto_seen;

    auto_seen |= is_auto;
    g_print ("  %s: %s [%s]%s\n", gst_avhw_backend_get_name (b),
        gst_avhw_backend_get_description (b),
        gst_avhw_backend_get_caps_feature (b), is_auto ? " (device=auto)" : "");
    if (n == 0)
      g_print ("    no device: %s\n", why);
    else if (n > 1)
      g_print ("    placement: device=%s%s takes the device with the fewest "
          "active avhw decoders and encoders in its process (ties: the "
          "lowest index); %s:N pins one\n", gst_avhw_backend_get_name (b),
          is_auto ? " and device=auto" : "", gst_avhw_backend_get_name (b));
    for (i = 0; i < n; i++) {
      n_devices++;
      if (!print_device (b, i))
        n_failed++;
    }
    g_free (why);
  }
  refused = gst_avhw_backend_list_refused ();
  for (i = 0; refused[i]; i++)
    g_print ("  refused: %s\n", refused[i]);
  g_strfreev (refused);
  g_list_free_full (backends, gst_object_unref);
  g_print ("%u device(s)%s\n", n_devices, n_failed ? ", some failed to open" :
      "");
  if (device_string) {
    GstAvhwDevice *dev = gst_avhw_device_open (device_string, NULL, &err);

    if (!dev) {
      g_print ("device=%s: %s\n", device_string, err->message);
      g_clear_error (&err);
      n_failed++;
    } else {
      g_print ("device=%s opens %s (no other session in this process)\n",
          device_string, gst_avhw_device_get_name (dev));
      gst_object_unref (dev);
    }
    g_free (device_string);
  }
  return n_failed ? 1 : 0;
}
