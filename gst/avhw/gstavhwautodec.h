/* gst-avhw: per-backend, per-codec decoder features for autoplugging
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend.h>

G_BEGIN_DECLS

/**
 * GST_AVHW_AUTODEC_RANK:
 *
 * Rank of the per-codec decoders: above FFmpeg's software decoders
 * (avdec_*, primary) so decodebin and playbin pick the hardware.
 */
#define GST_AVHW_AUTODEC_RANK (GST_RANK_PRIMARY + 1)
/**
 * GST_AVHW_AUTOENC_RANK:
 *
 * The rank of the autoplugging encoders (`avhwcudah264enc`...): above the
 * software encoders (x264enc is %GST_RANK_PRIMARY), so encodebin and
 * transcodebin pick a hardware encoder where a device has one.
 */
#define GST_AVHW_AUTOENC_RANK (GST_RANK_PRIMARY + 1)

GST_AVHW_API
guint gst_avhw_autodec_register (GstPlugin * plugin, GstAvhwBackend * backend);

GST_AVHW_API
guint gst_avhw_autoenc_register (GstPlugin * plugin, GstAvhwBackend * backend);

G_END_DECLS
