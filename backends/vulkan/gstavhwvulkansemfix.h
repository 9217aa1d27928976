/* gst-avhw: Vulkan backend, semaphores destroyed after a queue thread
 * is done with them (a Mesa lavapipe race)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext.h>

G_BEGIN_DECLS
/* The queues of a device the backend made: family and count of each. */
    typedef struct
{
  guint n;
  guint32 family[8];
  guint32 count[8];
} GstAvhwVkSemFixQueues;

gboolean gst_avhw_vk_sem_fix_needed (VkPhysicalDevice phys);

void gst_avhw_vk_sem_fix_install (AVHWDeviceContext * dctx, VkDevice dev,
    const GstAvhwVkSemFixQueues * queues);

void gst_avhw_vk_sem_fix_remove (VkDevice dev);

G_END_DECLS
