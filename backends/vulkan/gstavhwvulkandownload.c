/* gst-avhw: Vulkan backend, downloads FFmpeg 7.1 gets wrong
 *
 * FFmpeg 7.1's vulkan download (libavutil/hwcontext_vulkan.c,
 * vulkan_transfer_frame() with upload = 0) has two ways to get the image
 * into the software frame:
 * - with VK_EXT_external_memory_host enabled on the device, it imports the
 *   frame's own memory as a VkBuffer and copies the image straight into it
 *   (host_map_frame()): right;
 * - otherwise (or when importing fails) it copies the image into a staging
 *   buffer, waits, and then calls copy_buffer_data (..., upload = 0), whose
 *   av_image_copy_plane() copies in one direction only, from the frame into
 *   the buffer: the image's data is overwritten in the staging buffer and
 *   the frame keeps what it held before. No error is returned.
 * FFmpeg's own VkDevice enables the extension wherever the driver has it
 * (lavapipe and NVIDIA do), so its downloads take the first way. A VkDevice
 * GStreamer made (gst.vulkan.device, gstavhwvulkaninterop.c) does not enable
 * it, and every download on it took the second: frames of zeros or stale
 * data (seen with FFmpeg 7.1.5, Debian 13, on lavapipe).
 *
 * For those devices this file downloads as FFmpeg would, with the direction
 * right: the image is copied into a host-visible buffer on the device's
 * transfer queue, in FFmpeg's order (the frame's timeline semaphores,
 * layout and access, under FFmpeg's frame and queue locks), and the buffer
 * into the frame. With FFmpeg 5.1 and 6 (fixed queue fields) nothing here
 * is used: their downloads copy the right way.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_vulkan.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <gst/avhw/gstavhw-impl.h>

#include "gstavhwvulkanbackend.h"
#include "gstavhwvulkanqueues.h"
#include "gstavhwvulkansync.h"

GST_DEBUG_CATEGORY_STATIC (vk_download_debug);
#define GST_CAT_DEFAULT vk_download_debug

static void
vk_download_init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (vk_download_debug, "avhwvulkandownload", 0,
        "gst-avhw Vulkan backend: downloads FFmpeg 7.1 gets wrong");
    g_once_init_leave (&done, 1);
  }
}

#if GST_AVHW_VK_QUEUE_LIST

gboolean
vk_download_is_own (const AVFrame * src)
{
  const AVHWFramesContext *fc;
  const AVVulkanDeviceContext *hwctx;
  int i;

  if (!src->hw_frames_ctx)
    return FALSE;
  fc = (const AVHWFramesContext *) src->hw_frames_ctx->data;
  hwctx = fc->device_ctx->hwctx;
  for (i = 0; i < hwctx->nb_enabled_dev_extensions; i++) {
    if (!strcmp (hwctx->enabled_dev_extensions[i],
            VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME))
      return FALSE;
  }
  return TRUE;
}

/* Everything one download makes; vk_own_free() destroys what is set. */
typedef struct
{
  VkDevice dev;
  VkBuffer buf;
  VkDeviceMemory mem;
  VkCommandPool pool;
  VkFence fence;
} VkOwn;

static void
vk_own_free (VkOwn * o)
{
  if (o->fence)
    vkDestroyFence (o->dev, o->fence, NULL);
  if (o->pool)
    vkDestroyCommandPool (o->dev, o->pool, NULL);
  if (o->buf)
    vkDestroyBuffer (o->dev, o->buf, NULL);
  if (o->mem)
    vkFreeMemory (o->dev, o->mem, NULL);
}

/* A host-visible memory type of @bits, cached if there is one; -1 if
 * none. */
static int
vk_own_memory_type (VkPhysicalDevice phys, uint32_t bits,
    VkMemoryPropertyFlags * flags)
{
  VkPhysicalDeviceMemoryProperties props;
  int i, visible = -1;

  vkGetPhysicalDeviceMemoryProperties (phys, &props);
  for (i = 0; i < (int) props.memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = props.memoryTypes[i].propertyFlags;

    if (!(bits & (1u << i)) || !(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
      continue;
    if (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) {
      *flags = f;
      return i;
    }
    if (visible < 0)
      visible = i;
  }
  if (visible >= 0)
    *flags = props.memoryTypes[visible].propertyFlags;
  return visible;
}

#define VK_OWN_CHECK(x) G_STMT_START {                                  \
  VkResult _r = (x);                                                    \
  if (_r != VK_SUCCESS) {                                               \
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,          \
        "vulkan: download: %s failed (VkResult %d)", #x, (int) _r);     \
    goto fail;                                                          \
  }                                                                     \
} G_STMT_END

/* The buffer of @o: @size bytes of host-visible memory (cached if the
 * device has such), its property flags in @flags; and the command pool
 * and fence for @family. */
static gboolean
vk_own_make (VkOwn * o, VkPhysicalDevice phys, VkDeviceSize size,
    int family, VkMemoryPropertyFlags * flags, GError ** error)
{
  VkBufferCreateInfo buf_info = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
    .size = size,
    .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkMemoryAllocateInfo mem_info = {
    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
  };
  VkCommandPoolCreateInfo pool_info = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
    .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
    .queueFamilyIndex = family,
  };
  VkFenceCreateInfo fence_info = {
    .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
  };
  VkMemoryRequirements req;
  int type;

  VK_OWN_CHECK (vkCreateBuffer (o->dev, &buf_info, NULL, &o->buf));
  vkGetBufferMemoryRequirements (o->dev, o->buf, &req);
  type = vk_own_memory_type (phys, req.memoryTypeBits, flags);
  if (type < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "vulkan: download: the device has no host-visible memory for a "
        "buffer");
    goto fail;
  }
  mem_info.allocationSize = req.size;
  mem_info.memoryTypeIndex = type;
  VK_OWN_CHECK (vkAllocateMemory (o->dev, &mem_info, NULL, &o->mem));
  VK_OWN_CHECK (vkBindBufferMemory (o->dev, o->buf, o->mem, 0));
  VK_OWN_CHECK (vkCreateCommandPool (o->dev, &pool_info, NULL, &o->pool));
  VK_OWN_CHECK (vkCreateFence (o->dev, &fence_info, NULL, &o->fence));
  return TRUE;

fail:
  return FALSE;
}

/* Where plane @i of a @dst frame lies in the buffer (from @offset on,
 * which it moves past the plane) and in the images of @vkf: one
 * multi-plane image (the plane by aspect) or one image per plane, as
 * FFmpeg makes them. */
static void
vk_own_region (const AVFrame * dst, int i, int nb_images,
    const int *linesizes, VkDeviceSize align, VkDeviceSize * offset,
    VkBufferImageCopy * region)
{
  const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get (dst->format);
  int planes = av_pix_fmt_count_planes (dst->format);
  gboolean sub = i > 0 && i < 3 && (desc->flags & AV_PIX_FMT_FLAG_PLANAR)
      && !(desc->flags & AV_PIX_FMT_FLAG_RGB);
  uint32_t w = sub ? AV_CEIL_RSHIFT (dst->width, desc->log2_chroma_w)
      : (uint32_t) dst->width;
  uint32_t h = sub ? AV_CEIL_RSHIFT (dst->height, desc->log2_chroma_h)
      : (uint32_t) dst->height;

  memset (region, 0, sizeof (*region));
  region->bufferOffset = *offset;
  /* in texels: rows lie back to back */
  region->bufferRowLength = w;
  region->bufferImageHeight = h;
  region->imageSubresource.aspectMask = nb_images == planes
      ? VK_IMAGE_ASPECT_COLOR_BIT : VK_IMAGE_ASPECT_PLANE_0_BIT << i;
  region->imageSubresource.layerCount = 1;
  region->imageExtent.width = w;
  region->imageExtent.height = h;
  region->imageExtent.depth = 1;
  *offset = FFALIGN (*offset + (VkDeviceSize) linesizes[i] * h, align);
}

/* Records and submits the copy of @vkf's images into @o's buffer, after
 * what FFmpeg last submitted on them (their timeline semaphores), and
 * leaves the frame's state as FFmpeg's own transfers do. */
static gboolean
vk_own_submit (VkOwn * o, AVHWFramesContext * fc, AVVkFrame * vkf,
    int nb_images, int family, const VkBufferImageCopy * region, int planes,
    GError ** error)
{
  AVVulkanFramesContext *vkfc = fc->hwctx;
  GstAvhwVkSync sync = { 0, };
  VkCommandBufferAllocateInfo cmd_info = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
    .commandPool = o->pool,
    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
    .commandBufferCount = 1,
  };
  VkCommandBufferBeginInfo begin = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  };
  VkCommandBuffer cmd;
  VkResult r;
  int i;

  VK_OWN_CHECK (vkAllocateCommandBuffers (o->dev, &cmd_info, &cmd));

  /* From here to the submission the frame's state is ours: FFmpeg's
   * transfers and decoder take the same lock. */
  vkfc->lock_frame (fc, vkf);
  gst_avhw_vk_sync_add (&sync, vkf, nb_images,
      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT);
  r = vkBeginCommandBuffer (cmd, &begin);
  if (r == VK_SUCCESS) {
    gst_avhw_vk_sync_barriers (&sync, cmd);
    for (i = 0; i < planes; i++)
      vkCmdCopyImageToBuffer (cmd, vkf->img[MIN (i, nb_images - 1)],
          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, o->buf, 1, &region[i]);
    r = vkEndCommandBuffer (cmd);
  }
  if (r == VK_SUCCESS)
    r = gst_avhw_vk_sync_submit (&sync, fc->device_ctx, family, cmd, o->fence);
  if (r == VK_SUCCESS)
    gst_avhw_vk_sync_commit (vkf, nb_images,
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT);
  vkfc->unlock_frame (fc, vkf);
  VK_OWN_CHECK (r);
  return TRUE;

fail:
  return FALSE;
}

/* @dst (which has planes: gst_avhw_backend_download() gives them) fits the
 * device frames. */
static gboolean
vk_own_dst (AVFrame * dst, const AVFrame * src, const AVHWFramesContext * fc,
    GError ** error)
{
  if (dst->format != fc->sw_format || dst->width > fc->width
      || dst->height > fc->height
      || av_pix_fmt_count_planes (dst->format) > 4) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vulkan: download: a %dx%d %s frame from %dx%d %s device frames",
        dst->width, dst->height, av_get_pix_fmt_name (dst->format),
        fc->width, fc->height, av_get_pix_fmt_name (fc->sw_format));
    return FALSE;
  }
  return TRUE;
}

gboolean
vk_download_own (AVFrame * dst, const AVFrame * src, GError ** error)
{
  AVHWFramesContext *fc = (AVHWFramesContext *) src->hw_frames_ctx->data;
  AVVulkanDeviceContext *hwctx = fc->device_ctx->hwctx;
  AVVkFrame *vkf = (AVVkFrame *) src->data[0];
  VkPhysicalDeviceProperties props;
  VkBufferImageCopy region[4];
  VkMemoryPropertyFlags mem_flags = 0;
  VkMappedMemoryRange range = {
    .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
    .size = VK_WHOLE_SIZE,
  };
  VkOwn o = { 0, };
  VkDeviceSize size = 0, align;
  uint8_t *mapped = NULL;
  int linesizes[4], planes, nb_images = 0, family, n_queues, i;

  vk_download_init_debug ();
  o.dev = hwctx->act_dev;
  if (!vk_own_dst (dst, src, fc, error))
    return FALSE;
  family = gst_avhw_vk_find_queues (hwctx, VK_QUEUE_TRANSFER_BIT, &n_queues);
  if (family < 0 || n_queues < 1) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "vulkan: download: the device declares no transfer queue");
    return FALSE;
  }
  if (av_image_fill_linesizes (linesizes, dst->format, dst->width) < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vulkan: download: cannot lay out a %s frame",
        av_get_pix_fmt_name (dst->format));
    return FALSE;
  }

  planes = av_pix_fmt_count_planes (dst->format);
  nb_images = gst_avhw_vk_frame_n_images (vkf);
  vkGetPhysicalDeviceProperties (hwctx->phys_dev, &props);
  align = MAX (props.limits.optimalBufferCopyOffsetAlignment, 16);
  for (i = 0; i < planes; i++)
    vk_own_region (dst, i, nb_images, linesizes, align, &size, &region[i]);

  if (!vk_own_make (&o, hwctx->phys_dev, size, family, &mem_flags, error)
      || !vk_own_submit (&o, fc, vkf, nb_images, family, region, planes, error))
    goto fail;
  VK_OWN_CHECK (vkWaitForFences (o.dev, 1, &o.fence, VK_TRUE, UINT64_MAX));
  VK_OWN_CHECK (vkMapMemory (o.dev, o.mem, 0, VK_WHOLE_SIZE, 0,
          (void **) &mapped));
  range.memory = o.mem;
  if (!(mem_flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
    VK_OWN_CHECK (vkInvalidateMappedMemoryRanges (o.dev, 1, &range));
  for (i = 0; i < planes; i++)
    av_image_copy_plane (dst->data[i], dst->linesize[i],
        mapped + region[i].bufferOffset, linesizes[i], linesizes[i],
        region[i].imageExtent.height);
  vkUnmapMemory (o.dev, o.mem);
  vk_own_free (&o);
  GST_LOG ("%dx%d %s frame downloaded through a %" G_GUINT64_FORMAT
      "-byte buffer on queue family %d", dst->width, dst->height,
      av_get_pix_fmt_name (dst->format), (guint64) size, family);
  return TRUE;

fail:
  if (mapped)
    vkUnmapMemory (o.dev, o.mem);
  vk_own_free (&o);
  return FALSE;
}

#else /* FFmpeg 5.1 and 6: their downloads are right */

gboolean
vk_download_is_own (const AVFrame * src)
{
  return FALSE;
}

gboolean
vk_download_own (AVFrame * dst, const AVFrame * src, GError ** error)
{
  vk_download_init_debug ();
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
      "vulkan: download: not needed with this FFmpeg");
  return FALSE;
}

#endif
