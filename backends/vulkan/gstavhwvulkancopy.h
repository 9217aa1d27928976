/* gst-avhw: Vulkan backend, images of one frame copied into another's
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include "gstavhwvulkansync.h"

G_BEGIN_DECLS

#if GST_AVHW_VK_QUEUE_LIST

/* A copy submitted by vk_copy_images_submit(): its command pool and fence. */
typedef struct
{
  VkDevice dev;
  VkCommandPool pool;
  VkFence fence;
} GstAvhwVkCopyJob;

/* Records and submits, on a transfer queue of @dctx, the copy of the
 * planes of a @width x @height frame of @sw_format from @s (@ns images:
 * one, or one per plane) into @d (@nd images), after what was last
 * submitted on both (their timeline semaphores) and leaving their state as
 * FFmpeg's transfers do. The caller holds both frames (lock_frame) and
 * calls vk_copy_images_wait() on @job after letting them go. */
G_GNUC_INTERNAL
gboolean vk_copy_images_submit (AVHWDeviceContext * dctx, AVVkFrame * s,
    int ns, AVVkFrame * d, int nd, enum AVPixelFormat sw_format, int width,
    int height, GstAvhwVkCopyJob * job, GError ** error);

/* Waits for @job's copy (not when @error is NULL: the submission failed)
 * and frees it. */
G_GNUC_INTERNAL
gboolean vk_copy_images_wait (GstAvhwVkCopyJob * job, GError ** error);

#endif

G_END_DECLS
