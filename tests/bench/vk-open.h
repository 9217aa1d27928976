/* gst-avhw benchmark: avhw-bench-vk-open's parts
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef AVHW_BENCH_VK_OPEN_H
#define AVHW_BENCH_VK_OPEN_H

#include <stdio.h>
#include <glib.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext_vulkan.h>

/* the queues a timed device is made with */
enum
{
  VK_OPEN_ONE_QUEUE,            /* one queue of family 0 */
  VK_OPEN_ALL_QUEUES,           /* every queue of every family */
  VK_OPEN_VIDEO_QUEUES,         /* one of each family, every video queue */
  VK_OPEN_EACH_ONE,             /* one queue of each family */
  VK_OPEN_FIRST_AND_DECODE,     /* one of family 0, two of the decode one:
                                 * the backend's own device */
};

extern double vk_open_last_destroy_ms;

void vk_open_row (const char *what, double ms);
double vk_open_time_device_full (VkPhysicalDevice phys, gint mode,
    const char *const *exts, guint n_exts, const void *features);
void vk_open_feature_rows (VkPhysicalDevice phys,
    const AVVulkanDeviceContext * hw);

#endif
