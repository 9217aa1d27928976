/* gst-avhw: Vulkan backend, a device lane's own decode queue
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext.h>

G_BEGIN_DECLS

/* The decode queue lane @lane of a device uses, of @n_queues in its
 * family. */
G_GNUC_INTERNAL
guint32 gst_avhw_vk_lane_queue_index (guint lane, guint32 n_queues);

/* Before av_hwdevice_ctx_init(): FFmpeg's vkGetDeviceQueue of queue 0 of
 * @family on @dctx's VkDevice gets queue @index instead. */
G_GNUC_INTERNAL
void gst_avhw_vk_lane_queue_install (AVHWDeviceContext * dctx,
    guint32 family, guint32 index);

/* experiment: GST_AVHW_VK_THREAD_QUEUES=1 made lane 0 with this many
 * decode queues, a thread's decoders on one of them (install with index
 * G_MAXUINT32) */
G_GNUC_INTERNAL extern guint32 gst_avhw_vk_thread_queues;

/* When @dev is destroyed. */
G_GNUC_INTERNAL
void gst_avhw_vk_lane_queue_remove (VkDevice dev);

G_END_DECLS
