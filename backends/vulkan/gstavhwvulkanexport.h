/* gst-avhw: Vulkan backend, frames into GStreamer's memory:VulkanImage
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwforeigninterop-impl.h>

G_BEGIN_DECLS

/* The user_data of every GstVulkanImageMemory the backend wraps around an
 * FFmpeg frame: @frame, a reference on that frame, held until the last of
 * its memories is freed (@refs counts them). Tests read it to check that
 * the memory wraps the AVVkFrame's own image. */
typedef struct
{
  AVFrame *frame;
  gint refs;
} GstAvhwVkExported;

/* Where frames cross between FFmpeg's vulkan frames and GStreamer's
 * GstVulkanImageMemory (wrapped one way, copied the other): GStreamer 1.24
 * (a timeline semaphore and value in its image memory's barrier state) and
 * FFmpeg 7 (frame locks, each image's VkFormat). */
#define VK_CAN_EXPORT (GST_CHECK_VERSION (1, 24, 0) \
    && LIBAVUTIL_VERSION_MAJOR >= 59)

/* Whether @device is a GstVulkanDevice's VkDevice (made from a
 * gst.vulkan.device context) and this build can exchange frames with
 * GStreamer's memory; when not, @reason says why, newly allocated. */
G_GNUC_INTERNAL
gboolean vk_device_is_gst_shared (GstAvhwDevice * device, gchar ** reason);

/* Sets foreign_memory_feature (memory:VulkanImage), export_foreign_buffer
 * and device_exports_foreign on @iface where GStreamer and FFmpeg allow. */
G_GNUC_INTERNAL
void vk_export_iface_init (GstAvhwForeignInteropInterface * iface);

/* From gstavhwvulkanimport.c: sets import_foreign_buffer and
 * device_imports_foreign where vk_export_iface_init() set the feature. */
G_GNUC_INTERNAL
void vk_import_iface_init (GstAvhwForeignInteropInterface * iface);

G_END_DECLS
