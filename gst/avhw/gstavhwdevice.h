/* gst-avhw: one opened hardware device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_AVHW_DEVICE (gst_avhw_device_get_type ())
GST_AVHW_API
G_DECLARE_FINAL_TYPE (GstAvhwDevice, gst_avhw_device, GST, AVHW_DEVICE,
    GstObject);

/**
 * GST_AVHW_DEVICE_AUTO:
 *
 * The device string that picks the best device present: of the
 * highest-ranked backend that has a device, its device with the fewest
 * active sessions in this process (see gst_avhw_device_acquire_session()),
 * ties to the lowest index.
 */
#define GST_AVHW_DEVICE_AUTO "auto"

GST_AVHW_API
gboolean gst_avhw_device_parse_string (const gchar * device_string,
    gchar ** backend_name, gint * index, GError ** error);

GST_AVHW_API
GstAvhwDevice * gst_avhw_device_open (const gchar * device_string,
    const GstStructure * options, GError ** error);

GST_AVHW_API
GstAvhwDevice * gst_avhw_device_open_uncached (const gchar * device_string,
    const GstStructure * options, GError ** error);

GST_AVHW_API
GstAvhwDevice * gst_avhw_device_wrap (const gchar * backend_name,
    gpointer native, GError ** error);

GST_AVHW_API
GstAvhwBackend * gst_avhw_device_get_backend (GstAvhwDevice * device);

GST_AVHW_API
guint gst_avhw_device_get_index (GstAvhwDevice * device);

GST_AVHW_API
const gchar * gst_avhw_device_get_name (GstAvhwDevice * device);

GST_AVHW_API
guint64 gst_avhw_device_get_context_id (GstAvhwDevice * device);

GST_AVHW_API
gboolean gst_avhw_device_matches (GstAvhwDevice * device,
    const gchar * device_string);

GST_AVHW_API
void gst_avhw_device_acquire_session (GstAvhwDevice * device);

GST_AVHW_API
void gst_avhw_device_release_session (GstAvhwDevice * device);

GST_AVHW_API
guint gst_avhw_device_get_n_active (GstAvhwDevice * device);

GST_AVHW_API
guint gst_avhw_backend_get_n_active (GstAvhwBackend * backend, guint index);

GST_AVHW_API
GstCapsFeatures * gst_avhw_device_get_caps_features (GstAvhwDevice * device);

GST_AVHW_API
GArray * gst_avhw_device_get_sw_formats (GstAvhwDevice * device);

GST_AVHW_API
gboolean gst_avhw_device_holds_sw_format (GstAvhwDevice * device,
    gint sw_format);

G_END_DECLS

G_BEGIN_DECLS

GST_AVHW_API
GstCaps * gst_avhw_device_get_raw_caps (GstAvhwDevice * device,
    gboolean device_memory);

G_END_DECLS
