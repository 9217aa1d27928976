/* gst-avhw: Vulkan backend, functions put in front of FFmpeg's own
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext.h>

G_BEGIN_DECLS

/* Before av_hwdevice_ctx_init (@dctx's VkDevice made by the backend):
 * FFmpeg, and libplacebo through it, get @fn for the Vulkan function
 * @name (and its KHR alias @alias, or NULL). @fn serves every device that
 * loads its functions through such a context: it passes calls for
 * devices of no concern to it on to the loader. A device without @name
 * (its extension not enabled) gets no function for it. */
G_GNUC_INTERNAL
void gst_avhw_vk_hook_install (AVHWDeviceContext * dctx, const gchar * name,
    const gchar * alias, PFN_vkVoidFunction fn);

G_END_DECLS
