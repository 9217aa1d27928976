/* gst-avhw: avhwenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/gstvideoencoder.h>
#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

#define GST_TYPE_AVHW_ENC (gst_avhw_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwEnc, gst_avhw_enc, GST, AVHW_ENC,
    GstVideoEncoder);

GST_ELEMENT_REGISTER_DECLARE (avhwenc);

G_END_DECLS
