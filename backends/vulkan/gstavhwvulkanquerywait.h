/* gst-avhw: Vulkan backend, query results waited for without spinning
 * while several streams decode
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <gst/avhw/gstavhwbackend.h>
#include <libavutil/hwcontext.h>

G_BEGIN_DECLS

/* Before av_hwdevice_ctx_init() of a VkDevice the backend made for device
 * @index of @backend: FFmpeg's vkGetQueryPoolResults with
 * VK_QUERY_RESULT_WAIT_BIT polls and sleeps while two or more avhw
 * sessions are active on the backend's devices (gstavhwvulkanquerywait.c;
 * GST_AVHW_VK_QUERY_WAIT=driver|poll|auto). */
G_GNUC_INTERNAL
void gst_avhw_vk_query_wait_install (AVHWDeviceContext * dctx,
    GstAvhwBackend * backend, guint index);

G_END_DECLS
