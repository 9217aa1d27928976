/* gst-avhw: device internals shared with the cache
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwdevice.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL
GstAvhwDevice * gst_avhw_device_new_internal (GstAvhwBackend * backend,
    guint index, AVBufferRef * device_ctx, gboolean wrapped);

G_GNUC_INTERNAL
gboolean gst_avhw_device_resolve (const gchar * device_string,
    GstAvhwBackend ** backend, guint * index, GError ** error);

G_END_DECLS
