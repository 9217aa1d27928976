/* gst-avhw: avhwconvertscale
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_AVHW_CONVERT_SCALE (gst_avhw_convert_scale_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwConvertScale, gst_avhw_convert_scale, GST,
    AVHW_CONVERT_SCALE, GstAvhwBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (avhwconvertscale);

G_END_DECLS
