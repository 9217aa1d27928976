/* gst-avhw: Vulkan backend, one transfer submission on FFmpeg's frames
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <vulkan/vulkan.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanqueues.h"

G_BEGIN_DECLS

#if GST_AVHW_VK_QUEUE_LIST

/* What a submission waits on and signals for the images of up to two
 * frames, and the barriers that take them to a transfer layout. */
typedef struct
{
  VkImageMemoryBarrier bar[2 * AV_NUM_DATA_POINTERS];
  VkSemaphore sems[2 * AV_NUM_DATA_POINTERS];
  uint64_t wait_vals[2 * AV_NUM_DATA_POINTERS];
  uint64_t sig_vals[2 * AV_NUM_DATA_POINTERS];
  VkPipelineStageFlags stages[2 * AV_NUM_DATA_POINTERS];
  int n;                        /* barriers */
  int n_sems;                   /* semaphores (an image may have none) */
} GstAvhwVkSync;

/* The images of @vkf: one, or one per plane. */
static inline int
gst_avhw_vk_frame_n_images (const AVVkFrame * vkf)
{
  int n = 0;

  while (n < AV_NUM_DATA_POINTERS && vkf->img[n])
    n++;
  return n;
}

/* Adds the @n_images images of @vkf (locked by the caller, lock_frame):
 * a barrier from their layout and access to @layout and @access, a wait on
 * each timeline semaphore at its value and a signal of the next (none for
 * an image without one: GStreamer's, on a device without timeline
 * semaphores). */
G_GNUC_INTERNAL
void gst_avhw_vk_sync_add (GstAvhwVkSync * s, const AVVkFrame * vkf,
    int n_images, VkImageLayout layout, VkAccessFlags access);

/* Records the barriers added into @cmd (recording). */
G_GNUC_INTERNAL
void gst_avhw_vk_sync_barriers (const GstAvhwVkSync * s, VkCommandBuffer cmd);

/* Submits @cmd on queue 0 of @family of @dctx under FFmpeg's queue lock,
 * with the waits and signals added, and @fence. */
G_GNUC_INTERNAL
VkResult gst_avhw_vk_sync_submit (const GstAvhwVkSync * s,
    AVHWDeviceContext * dctx, int family, VkCommandBuffer cmd, VkFence fence);

/* After a submission went in: the @n_images images of @vkf are in @layout
 * with @access, their semaphores one higher, as FFmpeg's own transfers
 * leave them. */
G_GNUC_INTERNAL
void gst_avhw_vk_sync_commit (AVVkFrame * vkf, int n_images,
    VkImageLayout layout, VkAccessFlags access);

#endif

G_END_DECLS
