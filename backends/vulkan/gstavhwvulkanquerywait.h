/* gst-avhw: Vulkan backend, query results waited for without spinning
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <libavutil/hwcontext.h>

G_BEGIN_DECLS

/* Before av_hwdevice_ctx_init() of a VkDevice the backend made: FFmpeg's
 * vkGetQueryPoolResults with VK_QUERY_RESULT_WAIT_BIT polls and sleeps
 * (gstavhwvulkanquerywait.c), unless GST_AVHW_VK_QUERY_WAIT=driver. */
G_GNUC_INTERNAL
void gst_avhw_vk_query_wait_install (AVHWDeviceContext * dctx);

G_END_DECLS
