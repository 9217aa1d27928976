/* gst-avhw: elements plugin
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwupload.h"
#include "gstavhwdownload.h"
#include "gstavhwconvertscale.h"
#include "gstavhwdec.h"
#include "gstavhwenc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (avhwupload, plugin);
  ret |= GST_ELEMENT_REGISTER (avhwdownload, plugin);
  ret |= GST_ELEMENT_REGISTER (avhwconvertscale, plugin);
  ret |= GST_ELEMENT_REGISTER (avhwdec, plugin);
  ret |= GST_ELEMENT_REGISTER (avhwenc, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, avhw,
    "FFmpeg hardware devices, decoders and encoders", plugin_init, VERSION,
    GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
