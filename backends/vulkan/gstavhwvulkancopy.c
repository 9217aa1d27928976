/* gst-avhw: Vulkan backend, one device frame copied into another
 *
 * FFmpeg has no device-to-device copy between vulkan frames
 * (av_hwframe_transfer_data() moves frames to and from system memory
 * only), so copy records vkCmdCopyImage itself, in FFmpeg's order, as
 * gstavhwvulkandownload.c does for a download: under both frames' locks,
 * after what was last submitted on them (their timeline semaphores, waited
 * on at their values and signalled one higher), on the first queue of a
 * transfer family under FFmpeg's queue lock, leaving each frame's layout,
 * access and semaphore value as FFmpeg's own transfers do. It waits for
 * the copy on a fence before returning: the command pool is its own.
 *
 * avhwdec uses it to take a decoded picture off the decoder's surfaces
 * (gst_avhw_dec_copy_to_pool()); the import of GStreamer's images
 * (gstavhwvulkanimport.c) uses its core, vk_copy_images_submit(). FFmpeg 7
 * only (lock_frame, the queue family list); before that copy says it is
 * not supported.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_vulkan.h>
#include <libavutil/pixdesc.h>
#include <gst/avhw/gstavhw-impl.h>

#include "gstavhwvulkanbackend.h"
#include "gstavhwvulkanqueues.h"
#include "gstavhwvulkansync.h"
#include "gstavhwvulkancopy.h"

#if GST_AVHW_VK_QUEUE_LIST

#define VK_COPY_CHECK(x) G_STMT_START {                                 \
  VkResult _r = (x);                                                    \
  if (_r != VK_SUCCESS) {                                               \
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,          \
        "vulkan: copy: %s failed (VkResult %d)", #x, (int) _r);         \
    goto done;                                                          \
  }                                                                     \
} G_STMT_END

/* Plane @p of a frame of @n_images images: its image and aspect. */
static void
vk_copy_plane (int p, int n_images, int n_planes, uint32_t * image,
    VkImageAspectFlags * aspect)
{
  *image = n_images == n_planes ? p : 0;
  *aspect = n_images == n_planes ? VK_IMAGE_ASPECT_COLOR_BIT :
      (VkImageAspectFlags) (VK_IMAGE_ASPECT_PLANE_0_BIT << p);
}

gboolean
vk_copy_images_submit (AVHWDeviceContext * dctx, AVVkFrame * s, int ns,
    AVVkFrame * d, int nd, enum AVPixelFormat sw_format, int width,
    int height, GstAvhwVkCopyJob * job, GError ** error)
{
  AVVulkanDeviceContext *hwctx = dctx->hwctx;
  const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get (sw_format);
  int n_planes = av_pix_fmt_count_planes (sw_format);
  GstAvhwVkSync sync = { 0, };
  VkCommandBuffer cmd;
  int family, n_queues, i;

  memset (job, 0, sizeof (*job));
  job->dev = hwctx->act_dev;
  family = gst_avhw_vk_find_queues (hwctx, VK_QUEUE_TRANSFER_BIT, &n_queues);
  if (family < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "vulkan: copy: the device context declares no transfer queue");
    return FALSE;
  }

  {
    VkCommandPoolCreateInfo pool_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
      .queueFamilyIndex = family,
    };
    VkFenceCreateInfo fence_info = {
      .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
    };
    VkCommandBufferAllocateInfo cmd_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
    };

    VK_COPY_CHECK (vkCreateCommandPool (job->dev, &pool_info, NULL,
            &job->pool));
    VK_COPY_CHECK (vkCreateFence (job->dev, &fence_info, NULL, &job->fence));
    cmd_info.commandPool = job->pool;
    VK_COPY_CHECK (vkAllocateCommandBuffers (job->dev, &cmd_info, &cmd));
  }

  gst_avhw_vk_sync_add (&sync, s, ns, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      VK_ACCESS_TRANSFER_READ_BIT);
  gst_avhw_vk_sync_add (&sync, d, nd, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
      VK_ACCESS_TRANSFER_WRITE_BIT);
  {
    VkCommandBufferBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };

    VK_COPY_CHECK (vkBeginCommandBuffer (cmd, &begin));
  }
  gst_avhw_vk_sync_barriers (&sync, cmd);
  for (i = 0; i < n_planes; i++) {
    gboolean sub = i > 0 && i < 3 && !(desc->flags & AV_PIX_FMT_FLAG_RGB);
    VkImageCopy region = { 0, };
    uint32_t si, di;

    vk_copy_plane (i, ns, n_planes, &si, &region.srcSubresource.aspectMask);
    vk_copy_plane (i, nd, n_planes, &di, &region.dstSubresource.aspectMask);
    region.srcSubresource.layerCount = 1;
    region.dstSubresource.layerCount = 1;
    region.extent.width = sub ? AV_CEIL_RSHIFT (width, desc->log2_chroma_w) :
        (uint32_t) width;
    region.extent.height = sub ? AV_CEIL_RSHIFT (height,
        desc->log2_chroma_h) : (uint32_t) height;
    region.extent.depth = 1;
    vkCmdCopyImage (cmd, s->img[si], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        d->img[di], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
  }
  VK_COPY_CHECK (vkEndCommandBuffer (cmd));
  VK_COPY_CHECK (gst_avhw_vk_sync_submit (&sync, dctx, family, cmd,
          job->fence));
  gst_avhw_vk_sync_commit (s, ns, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      VK_ACCESS_TRANSFER_READ_BIT);
  gst_avhw_vk_sync_commit (d, nd, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
      VK_ACCESS_TRANSFER_WRITE_BIT);
  return TRUE;

done:
  vk_copy_images_wait (job, NULL);
  return FALSE;
}

gboolean
vk_copy_images_wait (GstAvhwVkCopyJob * job, GError ** error)
{
  gboolean ok = TRUE;

  if (job->fence && error) {
    VkResult r = vkWaitForFences (job->dev, 1, &job->fence, VK_TRUE,
        UINT64_MAX);

    if (r != VK_SUCCESS) {
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
          "vulkan: copy: vkWaitForFences failed (VkResult %d)", (int) r);
      ok = FALSE;
    }
  }
  if (job->fence)
    vkDestroyFence (job->dev, job->fence, NULL);
  if (job->pool)
    vkDestroyCommandPool (job->dev, job->pool, NULL);
  memset (job, 0, sizeof (*job));
  return ok;
}

gboolean
vk_copy (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  AVHWFramesContext *sfc, *dfc;
  AVVulkanFramesContext *svk, *dvk;
  AVVulkanDeviceContext *hwctx;
  GstAvhwVkCopyJob job;
  AVVkFrame *s, *d;
  gboolean ok;
  int ns, nd, n_planes;

  if (!src->hw_frames_ctx || !dst->hw_frames_ctx || !src->data[0]
      || !dst->data[0]) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vulkan: copy: both frames must be device frames");
    return FALSE;
  }
  sfc = (AVHWFramesContext *) src->hw_frames_ctx->data;
  dfc = (AVHWFramesContext *) dst->hw_frames_ctx->data;
  svk = sfc->hwctx;
  dvk = dfc->hwctx;
  hwctx = sfc->device_ctx->hwctx;
  s = (AVVkFrame *) src->data[0];
  d = (AVVkFrame *) dst->data[0];
  ns = gst_avhw_vk_frame_n_images (s);
  nd = gst_avhw_vk_frame_n_images (d);
  n_planes = av_pix_fmt_count_planes (sfc->sw_format);
  if (((AVVulkanDeviceContext *) dfc->device_ctx->hwctx)->act_dev
      != hwctx->act_dev || dfc->sw_format != sfc->sw_format
      || dfc->width < src->width || dfc->height < src->height
      || (ns != 1 && ns != n_planes) || (nd != 1 && nd != n_planes)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vulkan: copy: a %dx%d %s frame (%d images) into %dx%d %s frames "
        "(%d images)%s", src->width, src->height,
        av_get_pix_fmt_name (sfc->sw_format), ns, dfc->width, dfc->height,
        av_get_pix_fmt_name (dfc->sw_format), nd,
        ((AVVulkanDeviceContext *) dfc->device_ctx->hwctx)->act_dev !=
        hwctx->act_dev ? " of another VkDevice" : "");
    return FALSE;
  }

  /* From here to the submission both frames' state is ours. */
  svk->lock_frame (sfc, s);
  dvk->lock_frame (dfc, d);
  ok = vk_copy_images_submit (sfc->device_ctx, s, ns, d, nd, sfc->sw_format,
      src->width, src->height, &job, error);
  dvk->unlock_frame (dfc, d);
  svk->unlock_frame (sfc, s);
  return ok && vk_copy_images_wait (&job, error);
}

#else

gboolean
vk_copy (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
      "vulkan: a device-to-device copy needs FFmpeg 7 (frame locks), this "
      "is libavutil %s", AV_STRINGIFY (LIBAVUTIL_VERSION));
  return FALSE;
}

#endif
