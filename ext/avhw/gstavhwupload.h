/* gst-avhw: avhwupload
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_AVHW_UPLOAD (gst_avhw_upload_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwUpload, gst_avhw_upload, GST, AVHW_UPLOAD,
    GstAvhwBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (avhwupload);

G_END_DECLS
