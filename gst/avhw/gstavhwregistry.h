/* gst-avhw: finding backends through the GStreamer registry
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend.h>

G_BEGIN_DECLS

GST_AVHW_API
GList * gst_avhw_backend_list (void);

GST_AVHW_API
GstAvhwBackend * gst_avhw_backend_find (const gchar * name, GError ** error);

GST_AVHW_API
gchar * gst_avhw_backend_list_names (void);

GST_AVHW_API
gchar ** gst_avhw_backend_list_refused (void);

GST_AVHW_API
gchar ** gst_avhw_backend_list_memory_features (gboolean foreign);

G_END_DECLS
