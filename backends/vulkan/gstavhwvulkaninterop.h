/* gst-avhw: Vulkan backend, interop with GStreamer's vulkan elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend.h>

G_BEGIN_DECLS

/* Sets the foreign-context vfuncs (gst.vulkan.device) on @bclass. */
G_GNUC_INTERNAL
void vk_interop_class_init (GstAvhwBackendClass * bclass);

G_END_DECLS
