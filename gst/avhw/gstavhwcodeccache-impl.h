/* gst-avhw: the opened decoders kept per device, for the elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwcodeccache.h>
#include <libavcodec/avcodec.h>

G_BEGIN_DECLS

GST_AVHW_API
AVCodecContext * gst_avhw_device_take_decoder (GstAvhwDevice * device,
    const gchar * key);

GST_AVHW_API
void gst_avhw_device_give_decoder (GstAvhwDevice * device, const gchar * key,
    AVCodecContext * ctx);

G_END_DECLS
