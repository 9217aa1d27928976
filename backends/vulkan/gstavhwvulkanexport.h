/* gst-avhw: Vulkan backend, frames into GStreamer's memory:VulkanImage
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend.h>

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

/* Sets foreign_memory_feature (memory:VulkanImage), export_foreign_buffer
 * and device_exports_foreign on @bclass where GStreamer and FFmpeg allow. */
G_GNUC_INTERNAL
void vk_export_class_init (GstAvhwBackendClass * bclass);

G_END_DECLS
