/* gst-avhw: per-backend, per-codec decoder and encoder features for
 * autoplugging
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhw-impl.h"
#include "gstavhwautodec.h"

GST_DEBUG_CATEGORY_STATIC (avhw_autodec_debug);
#define GST_CAT_DEFAULT avhw_autodec_debug

/**
 * SECTION:gstavhwautodec
 * @title: Autoplugging decoders
 * @short_description: avhw<backend><codec>dec features for decodebin
 *
 * decodebin and playbin choose decoders by caps and rank, from the registry.
 * When a backend plugin is scanned, gst_avhw_backend_register() probes the
 * backend cheaply (device count, FFmpeg decoder candidates; no device is
 * opened) and, for each codec that a present device decodes in hardware,
 * registers an element `avhw<backend><codec>dec` (e.g. `avhwcudah264dec`)
 * with rank %GST_AVHW_AUTODEC_RANK. Each is a bin around the `avhwdec`
 * element with its `device` set to the backend, so all decoding code stays in
 * one element. A backend with no device, or no hardware decoder for a codec,
 * registers nothing for it, and decodebin falls back to software. Backend
 * plugins depend on their device files, so the registry rescans them, and
 * these features change, when hardware comes or goes.
 *
 * Encoders the same way, for encodebin, transcodebin and gst-transcoder:
 * `avhw<backend><codec>enc` (a bin around `avhwenc`), for each codec a
 * present device encodes in hardware as its backend says
 * (#GstAvhwBackendClass.query_encoder), with rank %GST_AVHW_AUTOENC_RANK,
 * above the software encoders.
 */

typedef struct
{
  gchar *backend;
  gchar *codec_nick;
  enum AVCodecID codec_id;
  gboolean encoder;             /* a bin around avhwenc, not avhwdec */
  gchar *memory_feature;        /* the backend's device memory */
  gchar *foreign_feature;       /* GStreamer's, nullable */
} AutodecClassData;

typedef struct
{
  GstBin parent;
  GstElement *dec;
} GstAvhwAutodec;

typedef struct
{
  GstBinClass parent_class;
  const AutodecClassData *cdata;
} GstAvhwAutodecClass;

enum
{
  PROP_0,
  PROP_DEVICE,
};

static GstElementClass *parent_class;

static void
autodec_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstAvhwAutodec *self = (GstAvhwAutodec *) object;

  if (prop_id == PROP_DEVICE && self->dec)
    g_object_set_property (G_OBJECT (self->dec), "device", value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
autodec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAvhwAutodec *self = (GstAvhwAutodec *) object;

  if (prop_id == PROP_DEVICE && self->dec)
    g_object_get_property (G_OBJECT (self->dec), "device", value);
  else if (prop_id != PROP_DEVICE)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static GstStateChangeReturn
autodec_change_state (GstElement * element, GstStateChange transition)
{
  GstAvhwAutodec *self = (GstAvhwAutodec *) element;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !self->dec) {
    const AutodecClassData *cdata =
        ((GstAvhwAutodecClass *) G_OBJECT_GET_CLASS (element))->cdata;

    GST_ELEMENT_ERROR (element, CORE, MISSING_PLUGIN,
        ("The %s element is missing: install gst-avhw's elements "
            "plugin (libgstavhw.so) next to its backends.",
            cdata->encoder ? "avhwenc" : "avhwdec"), (NULL));
    return GST_STATE_CHANGE_FAILURE;
  }
  return parent_class->change_state (element, transition);
}

/* The raw side: the backend's device memory, GStreamer's device memory it
 * exchanges frames with, and system memory, in every format avhw maps. */
static GstCaps *
raw_template_caps (const AutodecClassData * cdata)
{
  const gchar *features[] = { cdata->memory_feature, cdata->foreign_feature,
    GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY
  };
  const gchar *list[4];
  guint i, n = 0;

  for (i = 0; i < G_N_ELEMENTS (features); i++)
    if (features[i])
      list[n++] = features[i];
  list[n] = NULL;
  return gst_avhw_format_template_caps (list, NULL);
}

static void
autodec_class_init (gpointer g_class, gpointer class_data)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (g_class);
  GstElementClass *element_class = GST_ELEMENT_CLASS (g_class);
  const AutodecClassData *cdata = class_data;
  GstCaps *coded = gst_avhw_codec_get_caps (cdata->codec_id);
  GstCaps *raw = raw_template_caps (cdata);
  GstCaps *sink = cdata->encoder ? raw : coded;
  GstCaps *src = cdata->encoder ? coded : raw;
  const gchar *what = cdata->encoder ? "encoder" : "decoder";
  gchar *longname, *desc;

  parent_class = g_type_class_peek_parent (g_class);
  ((GstAvhwAutodecClass *) g_class)->cdata = cdata;
  gobject_class->set_property = autodec_set_property;
  gobject_class->get_property = autodec_get_property;
  /**
   * GstAvhwAutodec:device:
   *
   * The device, as avhwdec's (avhwenc's) `device`; defaults to the
   * backend (its least busy device).
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "Device to use: BACKEND or BACKEND:INDEX", cdata->backend,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  element_class->change_state = autodec_change_state;

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  longname = g_strdup_printf ("avhw %s %s %s", cdata->backend,
      cdata->codec_nick, what);
  desc = g_strdup_printf ("%s %s in hardware on %s devices through "
      "FFmpeg (avhw%s device=%s)", cdata->encoder ? "Encodes" : "Decodes",
      cdata->codec_nick, cdata->backend, cdata->encoder ? "enc" : "dec",
      cdata->backend);
  gst_element_class_set_metadata (element_class, longname, cdata->encoder ?
      "Codec/Encoder/Video/Hardware" : "Codec/Decoder/Video/Hardware", desc,
      "gst-avhw developers");
  g_free (longname);
  g_free (desc);
  gst_caps_unref (sink);
  gst_caps_unref (src);
}

static void
autodec_init (GTypeInstance * instance, gpointer g_class)
{
  GstAvhwAutodec *self = (GstAvhwAutodec *) instance;
  GstElementClass *klass = GST_ELEMENT_CLASS (g_class);
  const AutodecClassData *cdata = ((GstAvhwAutodecClass *) g_class)->cdata;
  const gchar *names[] = { "sink", "src" };
  guint i;

  self->dec = gst_element_factory_make (cdata->encoder ? "avhwenc" :
      "avhwdec", NULL);
  if (!self->dec)
    return;
  g_object_set (self->dec, "device", cdata->backend, NULL);
  gst_bin_add (GST_BIN (self), self->dec);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstPad *target = gst_element_get_static_pad (self->dec, names[i]);
    GstPad *ghost = gst_ghost_pad_new_from_template (names[i], target,
        gst_element_class_get_pad_template (klass, names[i]));

    gst_element_add_pad (GST_ELEMENT (self), ghost);
    gst_object_unref (target);
  }
}

/* Lower-case alphanumerics only, for element and type names. */
static gchar *
sanitize (const gchar * s, gboolean capitalize)
{
  GString *out = g_string_new (NULL);

  for (; *s; s++) {
    if (!g_ascii_isalnum (*s))
      continue;
    g_string_append_c (out, capitalize && out->len == 0 ?
        g_ascii_toupper (*s) : g_ascii_tolower (*s));
  }
  return g_string_free (out, FALSE);
}

/* Registers avhw<backend><codec>dec (or enc) for every codec a present
 * device of @backend decodes (encodes) in hardware; the count. */
static guint
register_kind (GstPlugin * plugin, GstAvhwBackend * backend, gboolean encoder)
{
  const gchar *bname = gst_avhw_backend_get_name (backend);
  const gchar *suffix = encoder ? "enc" : "dec";
  const enum AVCodecID *ids;
  guint n, i, n_devices, registered = 0;
  gchar *reason = NULL;

  GST_DEBUG_CATEGORY_INIT (avhw_autodec_debug, "avhwautodec", 0,
      "gst-avhw autoplugging decoders and encoders");
  n_devices = gst_avhw_backend_get_n_devices (backend, &reason);
  if (n_devices == 0) {
    GST_INFO ("backend %s: no device (%s), no autoplug %s", bname, reason,
        encoder ? "encoder" : "decoder");
    g_free (reason);
    return 0;
  }
  g_free (reason);
  ids = gst_avhw_codec_list (&n);
  for (i = 0; i < n; i++) {
    AutodecClassData *cdata;
    GTypeInfo info = { 0, };
    gchar *b, *B, *c, *C, *type_name, *element_name;
    GType type;
    guint d;
    gboolean does = FALSE;

    for (d = 0; d < n_devices && !does; d++)
      does = encoder ?
          gst_avhw_backend_device_encodes (backend, d, ids[i], NULL) :
          gst_avhw_backend_device_decodes (backend, d, ids[i], NULL);
    if (!does)
      continue;
    b = sanitize (bname, FALSE);
    B = sanitize (bname, TRUE);
    c = sanitize (gst_avhw_codec_get_nick (ids[i]), FALSE);
    C = sanitize (gst_avhw_codec_get_nick (ids[i]), TRUE);
    type_name = g_strdup_printf ("GstAvhw%s%s%s", B, C, encoder ? "Enc" :
        "Dec");
    element_name = g_strdup_printf ("avhw%s%s%s", b, c, suffix);

    type = g_type_from_name (type_name);
    if (!type) {
      cdata = g_new0 (AutodecClassData, 1);
      cdata->backend = g_strdup (bname);
      cdata->codec_nick = g_strdup (gst_avhw_codec_get_nick (ids[i]));
      cdata->codec_id = ids[i];
      cdata->encoder = encoder;
      cdata->memory_feature =
          g_strdup (gst_avhw_backend_get_caps_feature (backend));
      cdata->foreign_feature =
          g_strdup (gst_avhw_backend_get_foreign_memory_feature (backend));
      info.class_size = sizeof (GstAvhwAutodecClass);
      info.class_init = autodec_class_init;
      info.class_data = cdata;
      info.instance_size = sizeof (GstAvhwAutodec);
      info.instance_init = autodec_init;
      type = g_type_register_static (GST_TYPE_BIN, type_name, &info, 0);
    }
    if (gst_element_register (plugin, element_name, encoder ?
            GST_AVHW_AUTOENC_RANK : GST_AVHW_AUTODEC_RANK, type)) {
      GST_INFO ("registered %s", element_name);
      registered++;
    }
    g_free (b);
    g_free (B);
    g_free (c);
    g_free (C);
    g_free (type_name);
    g_free (element_name);
  }
  return registered;
}

/**
 * gst_avhw_autodec_register:
 * @plugin: the backend's plugin
 * @backend: the backend, probed without opening a device
 *
 * Registers `avhw<backend><codec>dec` for every codec a present device of
 * @backend decodes in hardware. gst_avhw_backend_register() calls it.
 *
 * Returns: the number of decoders registered
 */
guint
gst_avhw_autodec_register (GstPlugin * plugin, GstAvhwBackend * backend)
{
  return register_kind (plugin, backend, FALSE);
}

/**
 * gst_avhw_autoenc_register:
 * @plugin: the backend's plugin
 * @backend: the backend, probed without opening a device
 *
 * Registers `avhw<backend><codec>enc` for every codec a present device of
 * @backend encodes in hardware (gst_avhw_backend_device_encodes()).
 * gst_avhw_backend_register() calls it.
 *
 * Returns: the number of encoders registered
 */
guint
gst_avhw_autoenc_register (GstPlugin * plugin, GstAvhwBackend * backend)
{
  return register_kind (plugin, backend, TRUE);
}
