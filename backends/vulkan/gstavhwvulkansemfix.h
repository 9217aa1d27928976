/* gst-avhw: Vulkan backend, semaphores destroyed after a queue thread
 * is done with them (a Mesa lavapipe race)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext.h>

G_BEGIN_DECLS

/* Whether the device needs it (lavapipe with FFmpeg 7.1). */
G_GNUC_INTERNAL
gboolean gst_avhw_vk_sem_fix_needed (VkPhysicalDevice phys);

/* Before av_hwdevice_ctx_init (@dctx, its VkDevice and queue list set). */
G_GNUC_INTERNAL
void gst_avhw_vk_sem_fix_install (AVHWDeviceContext * dctx);

/* Before the VkDevice is destroyed. */
G_GNUC_INTERNAL
void gst_avhw_vk_sem_fix_remove (VkDevice dev);

G_END_DECLS
