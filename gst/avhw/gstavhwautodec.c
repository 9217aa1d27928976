/* gst-avhw: per-backend, per-codec decoder and encoder features for
 * autoplugging
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhw-impl.h"
#include "gstavhw-private.h"
#include "gstavhwautodec.h"
#include "codecs/gstavhwdec.h"
#include "codecs/gstavhwenc.h"

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
 * with rank %GST_AVHW_AUTODEC_RANK. Each is a subclass of avhwdec's class
 * with its class data, as nvcodec and va register theirs: its sink pad
 * takes the one codec, its source pad gives the backend's device memory,
 * GStreamer's device memory it exchanges frames with, and system memory,
 * and its `device` defaults to the backend. A backend with no device, or no hardware decoder for a codec,
 * registers nothing for it, and decodebin falls back to software. Backend
 * plugins depend on their device files, so the registry rescans them, and
 * these features change, when hardware comes or goes.
 *
 * Encoders the same way, for encodebin, transcodebin and gst-transcoder:
 * `avhw<backend><codec>enc` (a subclass of avhwenc's class), for each codec a
 * present device encodes in hardware as its backend says
 * (#GstAvhwBackendClass.query_encoder), with rank %GST_AVHW_AUTOENC_RANK,
 * above the software encoders.
 */

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

/* The codecs of the registry's last scan of @plugin (its cache data): a
 * plugin loaded from the registry registers what the scan registered,
 * without probing the devices again (cuInit, a VkInstance, the driver's
 * decoder caps: tens to hundreds of milliseconds at every process start).
 * The registry rescans the plugin when its device files change. NULL at a
 * scan. */
static gchar **
scanned_codecs (GstPlugin * plugin, gboolean encoder)
{
  const GstStructure *data = gst_plugin_get_cache_data (plugin);
  const gchar *list;

  if (!data || !gst_structure_has_name (data, GST_AVHW_CACHE_DATA_NAME))
    return NULL;
  list = gst_structure_get_string (data, encoder ? "autoplug-encoders" :
      "autoplug-decoders");
  return list ? g_strsplit (list, ";", -1) : NULL;
}

static void
remember_codecs (GstPlugin * plugin, gboolean encoder, GString * nicks)
{
  const GstStructure *old = gst_plugin_get_cache_data (plugin);
  GstStructure *data = old && gst_structure_has_name (old,
      GST_AVHW_CACHE_DATA_NAME) ? gst_structure_copy (old) :
      gst_structure_new_empty (GST_AVHW_CACHE_DATA_NAME);

  gst_structure_set (data, encoder ? "autoplug-encoders" :
      "autoplug-decoders", G_TYPE_STRING, nicks->str, NULL);
  gst_plugin_set_cache_data (plugin, data);
}

/* Whether a present device of @backend decodes (encodes) @id in hardware,
 * asked of the backend. */
static gboolean
probe_codec (GstAvhwBackend * backend, guint n_devices, enum AVCodecID id,
    gboolean encoder)
{
  guint d;

  for (d = 0; d < n_devices; d++)
    if (encoder ? gst_avhw_backend_device_encodes (backend, d, id, NULL) :
        gst_avhw_backend_device_decodes (backend, d, id, NULL))
      return TRUE;
  return FALSE;
}

/* Registers avhw<backend><codec>dec (or enc) for every codec a present
 * device of @backend decodes (encodes) in hardware: probed at a registry
 * scan, then as the scan found; the count. */
static guint
register_kind (GstPlugin * plugin, GstAvhwBackend * backend, gboolean encoder)
{
  const gchar *bname = gst_avhw_backend_get_name (backend);
  const gchar *suffix = encoder ? "enc" : "dec";
  const enum AVCodecID *ids;
  guint n, i, n_devices = 0, registered = 0;
  gchar *reason = NULL;
  gchar **scanned = scanned_codecs (plugin, encoder);
  GString *found = g_string_new (NULL);

  GST_DEBUG_CATEGORY_INIT (avhw_autodec_debug, "avhwautodec", 0,
      "gst-avhw autoplugging decoders and encoders");
  if (!scanned) {
    n_devices = gst_avhw_backend_get_n_devices (backend, &reason);
    if (n_devices == 0)
      GST_INFO ("backend %s: no device (%s), no autoplug %s", bname, reason,
          encoder ? "encoder" : "decoder");
    g_free (reason);
  } else {
    GST_DEBUG ("backend %s: autoplug %ss of the last scan: %s", bname,
        encoder ? "encoder" : "decoder", scanned[0] ? "" : "none");
  }
  ids = gst_avhw_codec_list (&n);
  for (i = 0; i < n; i++) {
    GstAvhwCodecElementData data = { 0, };
    const gchar *features[3] = { NULL, };
    const gchar *nick = gst_avhw_codec_get_nick (ids[i]);
    gchar *b, *B, *c, *C, *type_name, *element_name, *longname, *desc;

    if (scanned ? !g_strv_contains ((const gchar * const *) scanned, nick) :
        n_devices == 0 || !probe_codec (backend, n_devices, ids[i], encoder))
      continue;
    g_string_append_printf (found, "%s%s", found->len ? ";" : "", nick);
    b = sanitize (bname, FALSE);
    B = sanitize (bname, TRUE);
    c = sanitize (gst_avhw_codec_get_nick (ids[i]), FALSE);
    C = sanitize (gst_avhw_codec_get_nick (ids[i]), TRUE);
    type_name = g_strdup_printf ("GstAvhw%s%s%s", B, C, encoder ? "Enc" :
        "Dec");
    element_name = g_strdup_printf ("avhw%s%s%s", b, c, suffix);
    features[0] = gst_avhw_backend_get_caps_feature (backend);
    features[1] = gst_avhw_backend_get_foreign_memory_feature (backend);
    data.device = bname;
    data.codec = ids[i];
    data.raw_features = features;
    data.longname = longname = g_strdup_printf ("avhw %s %s %s", bname,
        gst_avhw_codec_get_nick (ids[i]), encoder ? "encoder" : "decoder");
    data.description = desc = g_strdup_printf ("%s %s in hardware on %s "
        "devices through FFmpeg", encoder ? "Encodes" : "Decodes",
        gst_avhw_codec_get_nick (ids[i]), bname);
    if (encoder ? gst_avhw_enc_register (plugin, element_name, type_name,
            GST_AVHW_AUTOENC_RANK, &data) : gst_avhw_dec_register (plugin,
            element_name, type_name, GST_AVHW_AUTODEC_RANK, &data)) {
      GST_INFO ("registered %s", element_name);
      registered++;
    }
    g_free (longname);
    g_free (desc);
    g_free (b);
    g_free (B);
    g_free (c);
    g_free (C);
    g_free (type_name);
    g_free (element_name);
  }
  if (!scanned)
    remember_codecs (plugin, encoder, found);
  g_strfreev (scanned);
  g_string_free (found, TRUE);
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
