/* gst-avhw: caps helpers for elements that move frames between memories
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw.h>

G_BEGIN_DECLS

GstCaps * gst_avhw_caps_switch_memory (GstAvhwDevice * device,
    GstCaps * caps, gboolean to_device, gboolean passthrough_device_only);

gboolean gst_avhw_caps_is_device_memory (GstCaps * caps);

GstCaps * gst_avhw_caps_with_features (GstCaps * caps, const gchar * features);

GstCaps * gst_avhw_caps_apply_filter (GstCaps * caps, GstCaps * filter);

G_END_DECLS
