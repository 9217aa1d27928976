/* gst-avhw: avhwdec
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/gstvideodecoder.h>
#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

#define GST_TYPE_AVHW_DEC (gst_avhw_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwDec, gst_avhw_dec, GST, AVHW_DEC,
    GstVideoDecoder);

GST_ELEMENT_REGISTER_DECLARE (avhwdec);

G_END_DECLS
