/* gst-avhw: Vulkan backend, GStreamer's memory:VulkanImage into FFmpeg frames
 *
 * import_foreign_buffer copies a buffer of GstVulkanImageMemory (from
 * GStreamer's vulkanupload, its Vulkan decoders and filters) into an FFmpeg
 * vulkan frame (AVVkFrame) on the device, with vkCmdCopyImage: no trip
 * through system memory. avhwupload takes memory:VulkanImage that way.
 *
 * Only where it can be right, as for the other way (gstavhwvulkanexport.c):
 * the avhw device is the GstVulkanDevice's own VkDevice (made from a
 * gst.vulkan.device context), GStreamer >= 1.24 and FFmpeg >= 7. Elsewhere
 * device_imports_foreign says no, so avhwupload does not offer the
 * feature and negotiation keeps to system memory.
 *
 * The GStreamer images are described as an AVVkFrame of their own (per
 * memory: image, layout, access, timeline semaphore and its value), so the
 * copy is the backend's device copy (vk_copy_images_submit()): it waits on
 * each semaphore at its value and signals the next, and the memories'
 * barrier state is written back after the submission, so GStreamer's next
 * operation on them waits for the copy. GStreamer has no lock on an image
 * memory: the caller holds the buffer for the call, as GStreamer's own
 * elements do while they record on it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <vulkan/vulkan.h>
#include <gst/vulkan/vulkan.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/hwcontext_vulkan.h>
#include <libavutil/pixdesc.h>

#include "gstavhwvulkanexport.h"
#include "gstavhwvulkancopy.h"

#define VK_CAN_IMPORT (VK_CAN_EXPORT && GST_AVHW_VK_QUEUE_LIST)

#if VK_CAN_IMPORT

static gboolean
vk_device_imports_foreign (GstAvhwBackend * backend, GstAvhwDevice * device,
    gchar ** reason)
{
  return vk_device_is_gst_shared (device, reason);
}

/* The GstVulkanImageMemory of each of @buffer's @n memories, checked to
 * be images of @dev; NULL with @error otherwise. */
static gboolean
vk_import_memories (GstBuffer * buffer, VkDevice dev, guint n,
    GstVulkanImageMemory ** mems, GError ** error)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstMemory *m = gst_buffer_peek_memory (buffer, i);

    if (!gst_is_vulkan_image_memory (m)) {
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
          "vulkan: memory %u of the buffer is not a Vulkan image", i);
      return FALSE;
    }
    mems[i] = (GstVulkanImageMemory *) m;
    if (mems[i]->device->device != dev) {
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
          "vulkan: the buffer's images are on another VkDevice (%p) than "
          "the avhw device (%p)", (gpointer) mems[i]->device->device,
          (gpointer) dev);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
vk_import_foreign_buffer (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstBuffer * buffer, const GstVideoInfo * info, AVFrame * dst,
    GError ** error)
{
  GstVulkanImageMemory *mems[AV_NUM_DATA_POINTERS];
  AVHWFramesContext *dfc;
  AVVulkanFramesContext *dvk;
  AVVulkanDeviceContext *hwctx;
  GstAvhwVkCopyJob job;
  AVVkFrame *d, *g;
  gchar *why = NULL;
  gboolean ok;
  int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  int n_planes, nd;
  guint n, i;

  if (!dst->hw_frames_ctx || !dst->data[0]) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vulkan: import: the destination is not a device frame");
    return FALSE;
  }
  if (!vk_device_is_gst_shared (device, &why)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "vulkan: cannot take memory:VulkanImage: %s", why);
    g_free (why);
    return FALSE;
  }
  dfc = (AVHWFramesContext *) dst->hw_frames_ctx->data;
  dvk = dfc->hwctx;
  hwctx = dfc->device_ctx->hwctx;
  d = (AVVkFrame *) dst->data[0];
  nd = gst_avhw_vk_frame_n_images (d);
  n_planes = av_pix_fmt_count_planes (dfc->sw_format);
  n = gst_buffer_n_memory (buffer);
  if ((n != 1 && n != (guint) n_planes) || (nd != 1 && nd != n_planes)
      || dfc->width < w || dfc->height < h) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vulkan: import: a %dx%d buffer of %u Vulkan images into %dx%d %s "
        "frames of %d images", w, h, n, dfc->width, dfc->height,
        av_get_pix_fmt_name (dfc->sw_format), nd);
    return FALSE;
  }
  if (!vk_import_memories (buffer, hwctx->act_dev, n, mems, error))
    return FALSE;

  g = av_vk_frame_alloc ();
  if (!g) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "vulkan: import: out of memory");
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    g->img[i] = mems[i]->image;
    g->layout[i] = mems[i]->barrier.image_layout;
    g->access[i] = mems[i]->barrier.parent.access_flags;
    g->sem[i] = mems[i]->barrier.parent.semaphore;
    g->sem_value[i] = mems[i]->barrier.parent.semaphore_value;
  }
  dvk->lock_frame (dfc, d);
  ok = vk_copy_images_submit (dfc->device_ctx, g, n, d, nd, dfc->sw_format,
      w, h, &job, error);
  dvk->unlock_frame (dfc, d);
  if (ok) {
    /* GStreamer's state after the copy: its next operation waits on it. */
    for (i = 0; i < n; i++) {
      mems[i]->barrier.image_layout = g->layout[i];
      mems[i]->barrier.parent.access_flags = g->access[i];
      mems[i]->barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_TRANSFER_BIT;
      mems[i]->barrier.parent.semaphore_value = g->sem_value[i];
    }
  }
  av_free (g);
  return ok && vk_copy_images_wait (&job, error);
}

#endif /* VK_CAN_IMPORT */

void
vk_import_iface_init (GstAvhwForeignInteropInterface * iface)
{
#if VK_CAN_IMPORT
  iface->import_foreign_buffer = vk_import_foreign_buffer;
  iface->device_imports_foreign = vk_device_imports_foreign;
#endif
}
