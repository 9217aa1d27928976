/* gst-avhw: sharing a device through GstContext
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwdevice.h>

G_BEGIN_DECLS

/**
 * GST_AVHW_DEVICE_CONTEXT_TYPE:
 *
 * The #GstContext type that carries a #GstAvhwDevice, in the field "device".
 */
#define GST_AVHW_DEVICE_CONTEXT_TYPE "gst.avhw.device"

GST_AVHW_API
GstContext * gst_avhw_context_new (GstAvhwDevice * device);

GST_AVHW_API
gboolean gst_avhw_context_get_device (GstContext * context,
    GstAvhwDevice ** device);

GST_AVHW_API
gboolean gst_avhw_find_element_device (GstElement * element,
    const gchar * device_string, GstAvhwDevice ** device, GError ** error);

GST_AVHW_API
gboolean gst_avhw_ensure_element_device (GstElement * element,
    const gchar * device_string, GstAvhwDevice ** device, GError ** error);

GST_AVHW_API
gboolean gst_avhw_handle_set_context (GstElement * element,
    GstContext * context, const gchar * device_string,
    GstAvhwDevice ** device);

GST_AVHW_API
gboolean gst_avhw_handle_context_query (GstElement * element,
    GstQuery * query, GstAvhwDevice * device);

G_END_DECLS
