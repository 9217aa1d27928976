/* gst-avhw: Vulkan backend, decode sessions sized for their stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FFmpeg (6.1 to 7.1 at least) makes every decode session with the largest
 * coded size the device takes (VkVideoCapabilitiesKHR.maxCodedExtent:
 * 4096x4096 for H.264 and 8192x8192 for H.265 on NVIDIA), and the driver
 * sizes the session's memory for it: FFmpeg's H.265 decoder held ~250 MiB
 * of device memory for a 1080p stream, the H.264 one ~110.
 *
 * The size of the stream is known where the session is made: FFmpeg makes
 * it in the hwaccel's init, which runs in ff_get_format() on the thread
 * that called the decoder's get_format, right after it returns, and does
 * this again whenever the coded size changes (a new get_format). So
 * avhwdec's get_format calls the backend's prepare_decode, which notes the
 * device, codec and coded size for that thread, and the wrapper of
 * vkCreateVideoSessionKHR below uses the note up on the next decode session
 * of that device and codec, asking for that size (rounded up to 64) instead.
 * A session made without a note, for another device or codec (an encoder),
 * or for a size the note does not make smaller, is made as FFmpeg asked.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <libavutil/hwcontext_vulkan.h>

#include "gstavhwvulkanextent.h"
#include "gstavhwvulkanhooks.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

typedef struct
{
  VkDevice dev;
  VkVideoCodecOperationFlagsKHR op;
  guint32 width, height;
} Note;

static GPrivate note_key = G_PRIVATE_INIT (g_free);

static Note *
thread_note (void)
{
  Note *n = g_private_get (&note_key);

  if (!n) {
    n = g_new0 (Note, 1);
    g_private_set (&note_key, n);
  }
  return n;
}

void
gst_avhw_vk_extent_note (VkDevice dev, VkVideoCodecOperationFlagsKHR op,
    guint32 width, guint32 height)
{
  Note *n = thread_note ();

  n->dev = dev;
  n->op = op;
  n->width = width;
  n->height = height;
}

static VkVideoCodecOperationFlagsKHR
decode_op (enum AVCodecID codec_id)
{
  switch (codec_id) {
    case AV_CODEC_ID_H264:
      return VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR;
    case AV_CODEC_ID_HEVC:
      return VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR;
#ifdef VK_KHR_video_decode_av1
    case AV_CODEC_ID_AV1:
      return VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR;
#endif
    default:
      return 0;
  }
}

void
gst_avhw_vk_extent_prepare (const AVCodecContext * ctx)
{
  AVHWDeviceContext *dctx = ctx->hw_device_ctx ?
      (AVHWDeviceContext *) ctx->hw_device_ctx->data : NULL;
  VkVideoCodecOperationFlagsKHR op = decode_op (ctx->codec_id);
  gint w = MAX (ctx->coded_width, ctx->width);
  gint h = MAX (ctx->coded_height, ctx->height);

  /* nothing to size: no note (an earlier one is dropped) */
  if (!dctx || dctx->type != AV_HWDEVICE_TYPE_VULKAN || !op || w <= 0 || h <= 0)
    gst_avhw_vk_extent_note (NULL, 0, 0, 0);
  else
    gst_avhw_vk_extent_note (((AVVulkanDeviceContext *) dctx->hwctx)->act_dev,
        op, (guint32) w, (guint32) h);
}

gboolean
gst_avhw_vk_extent_take (VkDevice dev,
    const VkVideoSessionCreateInfoKHR * info, VkExtent2D * extent)
{
  Note *n = g_private_get (&note_key);
  Note was;
  guint32 w, h;

  if (!n || !n->dev)
    return FALSE;
  was = *n;
  n->dev = NULL;
  if (was.dev != dev || !info->pVideoProfile
      || info->pVideoProfile->videoCodecOperation != was.op)
    return FALSE;
  w = MIN (GST_ROUND_UP_64 (was.width), info->maxCodedExtent.width);
  h = MIN (GST_ROUND_UP_64 (was.height), info->maxCodedExtent.height);
  if (w < was.width || h < was.height)
    return FALSE;               /* larger than the device takes */
  if (w == info->maxCodedExtent.width && h == info->maxCodedExtent.height)
    return FALSE;
  extent->width = w;
  extent->height = h;
  return TRUE;
}

static VkResult VKAPI_CALL
create_video_session (VkDevice dev, const VkVideoSessionCreateInfoKHR * info,
    const VkAllocationCallbacks * alloc, VkVideoSessionKHR * session)
{
  PFN_vkCreateVideoSessionKHR next = (PFN_vkCreateVideoSessionKHR)
      vkGetDeviceProcAddr (dev, "vkCreateVideoSessionKHR");
  VkVideoSessionCreateInfoKHR sized;
  VkExtent2D extent;

  if (!next)
    return VK_ERROR_EXTENSION_NOT_PRESENT;
  if (gst_avhw_vk_extent_take (dev, info, &extent)) {
    GST_INFO ("VkDevice %p: decode session (operation 0x%x) for %ux%u "
        "pictures instead of %ux%u", (gpointer) dev,
        (guint) info->pVideoProfile->videoCodecOperation, extent.width,
        extent.height, info->maxCodedExtent.width, info->maxCodedExtent.height);
    sized = *info;
    sized.maxCodedExtent = extent;
    info = &sized;
  }
  return next (dev, info, alloc, session);
}

void
gst_avhw_vk_extent_install (AVHWDeviceContext * dctx)
{
  gst_avhw_vk_hook_install (dctx, "vkCreateVideoSessionKHR", NULL,
      (PFN_vkVoidFunction) create_video_session);
}
