/* gst-avhw: Vulkan backend, the queue families and queues of the
 * backend's VkDevice
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <vulkan/vulkan.h>

G_BEGIN_DECLS

/* VK_HEADER_VERSION 277 (Vulkan 1.3.277): video encode out of the beta
 * headers, which the backend's own VkDevice needs (gstavhwvulkandevice.c) */
#define GST_AVHW_VK_PICK (VK_HEADER_VERSION >= 277)

#if GST_AVHW_VK_PICK

#define GST_AVHW_VK_VIDEO_BITS \
  (VK_QUEUE_VIDEO_DECODE_BIT_KHR | VK_QUEUE_VIDEO_ENCODE_BIT_KHR)

/* The families to make queues in, what each is for and how many */
typedef struct
{
  guint n;
  guint32 family[8];
  VkQueueFlags flags[8];
  guint32 video_caps[8];        /* its video codec operations, where video */
  guint32 count[8];             /* queues to make */
  guint32 available[8];         /* queues the family has */
} GstAvhwVkPicked;

/* From @n families (@qf, @vid: their video properties): one family for
 * graphics, compute and transfers where @shared and it can do them, else
 * one each (FFmpeg's choice: the family with the fewest other abilities
 * and uses so far), one queue of each; then the video families for H.264,
 * H.265 (and AV1) encoding where @encode and decoding where @decode, one
 * queue each too (why: gst_avhw_vk_add_queues()). */
G_GNUC_INTERNAL
void gst_avhw_vk_pick_queues (const VkQueueFamilyProperties2 * qf,
    const VkQueueFamilyVideoPropertiesKHR * vid, uint32_t n, gboolean encode,
    gboolean decode, gboolean shared, GstAvhwVkPicked * p);


#endif

G_END_DECLS
