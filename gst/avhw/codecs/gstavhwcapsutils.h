/* gst-avhw: caps helpers for elements that move frames between memories
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

GstCaps * gst_avhw_caps_switch_memory (GstAvhwDevice * device,
    GstCaps * caps, gboolean to_device, gboolean passthrough_device_only);

gboolean gst_avhw_caps_is_device_memory (GstCaps * caps);

GstCaps * gst_avhw_caps_with_features (GstCaps * caps, const gchar * features);

GstCaps * gst_avhw_caps_apply_filter (GstCaps * caps, GstCaps * filter);

/* Which memories a pad template lists. */
typedef enum
{
  GST_AVHW_TEMPLATE_SYSTEM = 1 << 0,    /* system memory */
  GST_AVHW_TEMPLATE_DEVICE = 1 << 1,    /* the backends' device memory */
  GST_AVHW_TEMPLATE_FOREIGN = 1 << 2,   /* GStreamer's own device memory */
} GstAvhwTemplateMemory;

gchar ** gst_avhw_template_features (GstAvhwTemplateMemory memory);

GstCaps * gst_avhw_template_caps (GstAvhwTemplateMemory memory,
    const GValue * formats);

void gst_avhw_element_class_add_templates (GstElementClass * klass,
    GstAvhwTemplateMemory sink, GstAvhwTemplateMemory src,
    const gchar * formats);

G_END_DECLS
