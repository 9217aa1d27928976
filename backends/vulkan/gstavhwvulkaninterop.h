/* gst-avhw: Vulkan backend, interop with GStreamer's vulkan elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend-impl.h>
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

/* Sets the foreign-context vfuncs (gst.vulkan.device) on @bclass. */
G_GNUC_INTERNAL
void vk_interop_class_init (GstAvhwBackendClass * bclass);

/* The GstVulkanDevice @device was made on (a gst.vulkan.device context),
 * or %NULL for a VkDevice FFmpeg created. (transfer none) */
G_GNUC_INTERNAL
GstVulkanDevice * vk_interop_peek_gst_device (GstAvhwDevice * device);

G_END_DECLS
