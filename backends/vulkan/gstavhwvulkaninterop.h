/* gst-avhw: Vulkan backend, interop with GStreamer's vulkan elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwforeigninterop-impl.h>
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

/* The backend's GstAvhwForeignInterop: sets the foreign-context vfuncs
 * (gst.vulkan.device) on @iface, then vk_export_iface_init() and
 * vk_import_iface_init() the memory ones. */
G_GNUC_INTERNAL
void vk_interop_iface_init (GstAvhwForeignInteropInterface * iface);

/* The GstVulkanDevice @device was made on (a gst.vulkan.device context),
 * or %NULL for a VkDevice FFmpeg created. (transfer none) */
G_GNUC_INTERNAL
GstVulkanDevice * vk_interop_peek_gst_device (GstAvhwDevice * device);

G_END_DECLS
