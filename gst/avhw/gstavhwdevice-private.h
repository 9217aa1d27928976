/* gst-avhw: device internals shared with the cache
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwdevice.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL
GstAvhwDevice * gst_avhw_device_new_internal (GstAvhwBackend * backend,
    guint index, AVBufferRef * device_ctx, gboolean wrapped);

typedef GstAvhwDevice *(*GstAvhwDeviceOpenFunc) (GstAvhwBackend * backend,
    guint index, gpointer user_data, GError ** error);

G_GNUC_INTERNAL
GstAvhwDevice * gst_avhw_device_place (const gchar * device_string,
    GstAvhwDeviceOpenFunc open, gpointer user_data, GError ** error);

G_GNUC_INTERNAL
guint gst_avhw_device_get_n_own_sessions (GstAvhwDevice * device);

G_END_DECLS
