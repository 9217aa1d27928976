/* gst-avhw: Vulkan backend, decode sessions sized for their stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <vulkan/vulkan.h>
#include <libavcodec/avcodec.h>
#include <libavutil/hwcontext.h>

G_BEGIN_DECLS

/* Before av_hwdevice_ctx_init (@dctx's VkDevice made by the backend, with
 * video decode): FFmpeg's vkCreateVideoSessionKHR gets the wrapper that
 * sizes a decode session as gst_avhw_vk_extent_note() said. */
G_GNUC_INTERNAL
void gst_avhw_vk_extent_install (AVHWDeviceContext * dctx);

/* The backend's prepare_decode: notes, for the calling thread, @ctx's
 * device, codec and coded size, for the session FFmpeg makes next. */
G_GNUC_INTERNAL
void gst_avhw_vk_extent_prepare (const AVCodecContext * ctx);

/* The same from its parts: a decode session of @op on @dev is for
 * pictures of at most @width x @height. */
G_GNUC_INTERNAL
void gst_avhw_vk_extent_note (VkDevice dev, VkVideoCodecOperationFlagsKHR op,
    guint32 width, guint32 height);

/* Takes the calling thread's note for a session @info on @dev: TRUE with
 * the smaller maxCodedExtent in @extent where the note is for that device
 * and codec and its size (rounded up to 64) is below @info's; the note is
 * used up either way. */
G_GNUC_INTERNAL
gboolean gst_avhw_vk_extent_take (VkDevice dev,
    const VkVideoSessionCreateInfoKHR * info, VkExtent2D * extent);

G_END_DECLS
