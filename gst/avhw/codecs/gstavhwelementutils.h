/* gst-avhw: the device property and context flow, shared by every element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

#define DEFAULT_PROP_DEVICE GST_AVHW_DEVICE_AUTO

/* Property ids the helpers own; elements number their own after
 * GST_AVHW_ELEMENT_PROP_LAST. */
enum
{
  GST_AVHW_ELEMENT_PROP_DEVICE = 1,
  GST_AVHW_ELEMENT_PROP_ACTIVE_DEVICE,
  GST_AVHW_ELEMENT_PROP_LAST
};

typedef struct
{
  GMutex lock;
  gchar *device_string;
  GstAvhwDevice *device;
  /* With device=auto, open nothing at READY when the context flow finds
   * no device; the element adopts its input's (avhwdownload). */
  gboolean adopt_auto;
  /* The device a session is counted on (avhwdec, avhwenc: READY->PAUSED
   * to PAUSED->READY), for placement by load. */
  GstAvhwDevice *session;
  /* in gst_avhw_element_device_ensure(): context queries from the
   * neighbours it asks are not answered by opening a device */
  gboolean resolving;
} GstAvhwElementDevice;

void gst_avhw_element_device_install_properties (GObjectClass * klass);
void gst_avhw_element_device_init (GstAvhwElementDevice * d);
void gst_avhw_element_device_clear (GstAvhwElementDevice * d);
gboolean gst_avhw_element_device_set_property (GstAvhwElementDevice * d,
    GstElement * element, guint prop_id, const GValue * value);
gboolean gst_avhw_element_device_get_property (GstAvhwElementDevice * d,
    GstElement * element, guint prop_id, GValue * value);
void gst_avhw_element_device_set_context (GstAvhwElementDevice * d,
    GstElement * element, GstContext * context);
gboolean gst_avhw_element_device_ensure (GstAvhwElementDevice * d,
    GstElement * element);
gboolean gst_avhw_element_device_adopt (GstAvhwElementDevice * d,
    GstElement * element, GstAvhwDevice * device);
void gst_avhw_element_device_release (GstAvhwElementDevice * d,
    GstElement * element);
gboolean gst_avhw_element_device_begin_session (GstAvhwElementDevice * d,
    GstElement * element);
void gst_avhw_element_device_end_session (GstAvhwElementDevice * d,
    GstElement * element);
gboolean gst_avhw_element_device_query (GstAvhwElementDevice * d,
    GstElement * element, GstQuery * query);
void gst_avhw_element_note_device_copy (GstElement * element,
    gboolean * noted, GstBuffer * buffer, GstAvhwDevice * own);
void gst_avhw_element_set_active (GstElement * element,
    const gchar ** name_field, gboolean * hw_field, const gchar * name,
    gboolean hw, const gchar * name_property);

G_END_DECLS
