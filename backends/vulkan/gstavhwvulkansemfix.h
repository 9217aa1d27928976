/* gst-avhw: Vulkan backend, semaphores destroyed late enough: after a
 * queue thread is done with them (a Mesa lavapipe race), and after
 * FFmpeg's last wait on them (its H.264 decoder's DPB)
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

/* Before av_hwdevice_ctx_init (@dctx, its VkDevice and queue list set):
 * semaphores FFmpeg destroys are kept alive a while, and with
 * @drain_first (gst_avhw_vk_sem_fix_needed()) destroyed after the
 * device's queues are drained. */
G_GNUC_INTERNAL
void gst_avhw_vk_sem_fix_install (AVHWDeviceContext * dctx,
    gboolean drain_first);

/* Before the VkDevice is destroyed: destroys the semaphores kept alive. */
G_GNUC_INTERNAL
void gst_avhw_vk_sem_fix_remove (VkDevice dev);

G_END_DECLS
