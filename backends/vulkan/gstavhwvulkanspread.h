/* gst-avhw: Vulkan backend, decode submissions spread over a decode
 * family's queues (FFmpeg 7.1 submits to two)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext.h>

G_BEGIN_DECLS

/* Before av_hwdevice_ctx_init (@dctx's VkDevice made with @n queues of
 * the decode family @family, of which FFmpeg is told @n_known): FFmpeg's
 * submissions to those go to all @n in turn. FALSE when it does not
 * (@n <= @n_known). */
G_GNUC_INTERNAL
gboolean gst_avhw_vk_spread_install (AVHWDeviceContext * dctx,
    guint32 family, guint n_known, guint n);

/* Before the VkDevice is destroyed. */
G_GNUC_INTERNAL
void gst_avhw_vk_spread_remove (VkDevice dev);

G_END_DECLS
