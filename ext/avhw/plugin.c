/* gst-avhw: elements plugin
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwupload.h"
#include "gstavhwdownload.h"
#include "gstavhwconvertscale.h"
#include "gstavhwcapsutils.h"
#include "gstavhwdec.h"
#include "gstavhwenc.h"

/* avhwdec and avhwenc: the generic decoder and encoder of libgstavhw, on
 * any device (`device=auto`), for every codec, with the device memories of
 * every backend built here and in the registry on their raw pads. Each
 * backend's plugin registers its per-codec ones (avhwcudah264dec...). */
static gboolean
register_codec_elements (GstPlugin * plugin)
{
  gchar **features = gst_avhw_template_features (GST_AVHW_TEMPLATE_DEVICE |
      GST_AVHW_TEMPLATE_FOREIGN);
  GstAvhwCodecElementData dec = { NULL, AV_CODEC_ID_NONE,
    (const gchar * const *) features, "avhw video decoder",
    "Decodes video through FFmpeg on an avhw device"
  };
  GstAvhwCodecElementData enc = { NULL, AV_CODEC_ID_NONE,
    (const gchar * const *) features, "avhw video encoder",
    "Encodes video through FFmpeg on an avhw device"
  };
  gboolean ret;

  ret = gst_avhw_dec_register (plugin, "avhwdec", "GstAvhwDec",
      GST_RANK_NONE, &dec);
  ret &= gst_avhw_enc_register (plugin, "avhwenc", "GstAvhwEnc",
      GST_RANK_NONE, &enc);
  g_strfreev (features);
  return ret;
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (avhwupload, plugin);
  ret |= GST_ELEMENT_REGISTER (avhwdownload, plugin);
  ret |= GST_ELEMENT_REGISTER (avhwconvertscale, plugin);
  ret |= register_codec_elements (plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, avhw,
    "FFmpeg hardware devices, decoders and encoders", plugin_init, VERSION,
    GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
