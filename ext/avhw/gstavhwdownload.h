/* gst-avhw: avhwdownload
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_AVHW_DOWNLOAD (gst_avhw_download_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwDownload, gst_avhw_download, GST, AVHW_DOWNLOAD,
    GstAvhwBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (avhwdownload);

G_END_DECLS
