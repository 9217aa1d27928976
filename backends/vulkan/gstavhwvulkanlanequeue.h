/* gst-avhw: Vulkan backend, the decode queue each decoder uses
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
 * @family on @dctx's VkDevice gets queue @index instead, or with
 * @per_thread > 0 the queue the calling thread claims of the @n_family
 * queues of device @key (gst_avhw_vk_thread_claim()), else queue @index +
 * the thread's of @per_thread (gst_avhw_vk_thread_queue()). */
G_GNUC_INTERNAL
void gst_avhw_vk_lane_queue_install (AVHWDeviceContext * dctx,
    guint32 family, guint32 index, guint32 per_thread, guint32 n_family,
    const gchar * key);

/* When @dev is destroyed. */
G_GNUC_INTERNAL
void gst_avhw_vk_lane_queue_remove (VkDevice dev);

G_END_DECLS
