/* gst-avhw: Vulkan backend, frames into GStreamer's memory:VulkanImage
 *
 * export_foreign_buffer hands an FFmpeg vulkan frame (AVVkFrame) to
 * GStreamer's vulkan elements as a buffer of GstVulkanImageMemory that wraps
 * the frame's own VkImage(s): no copy. The buffer keeps the AVFrame alive
 * (the memories' notify drops it), so FFmpeg does not reuse the images
 * while GStreamer holds them.
 *
 * Only where it can be right:
 * - the avhw device is GStreamer's VkDevice (made from a gst.vulkan.device
 *   context, gstavhwvulkaninterop.c), so the images belong to the
 *   GstVulkanDevice the memory names;
 * - GStreamer >= 1.24, whose image memory carries a timeline semaphore and
 *   value in its barrier state (GstVulkanBarrierMemoryInfo) that its
 *   elements wait on and signal (GstVulkanOperation), as FFmpeg does with
 *   AVVkFrame.sem/sem_value; and FFmpeg >= 7 (lavu 59), whose frames
 *   context says each image's VkFormat and has lock_frame/unlock_frame;
 * - the formats below, one multi-planar image (GStreamer reads its planes
 *   through plane aspects) or one image per plane (colour aspect each), as
 *   GStreamer's vulkandownload and its image buffer pool lay them out.
 * Elsewhere device_exports_foreign says no and avhwdec does not offer
 * memory:VulkanImage. These guards are the one place that knows which
 * GStreamer and FFmpeg can do it (VK_CAN_EXPORT).
 *
 * Synchronisation: under FFmpeg's frame lock the memory gets the frame's
 * layout, access and timeline semaphore at its current value; GStreamer's
 * operations wait on that value and signal the next. When the memory is
 * freed, its layout, access and semaphore value go back into the AVVkFrame
 * (under the lock again) before FFmpeg gets the frame back, so FFmpeg waits
 * for GStreamer's work and never signals a value GStreamer already did;
 * the memory's own semaphore is put back, since GStreamer destroys the one
 * in its barrier state. Where GStreamer would not wait (no
 * synchronization2) no semaphore is lent: FFmpeg's work on the frame is
 * waited for on the host before export.
 * Frames FFmpeg may still use while GStreamer holds them are not lent: on
 * a GPU whose decode output is its DPB (NVIDIA), every decoded picture is
 * also a reference image of the decoder (frames context usage
 * VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR). Lent, FFmpeg and GStreamer
 * would each signal the frame's timeline semaphore at the same value and
 * change its layout from two threads: with a queue element between avhwdec
 * and vulkandownload that hung NVIDIA's driver after two frames (run 42).
 * For those export_foreign_buffer returns NULL without an error, and the
 * caller exports a device copy instead (avhwdec copies it off the decoder);
 * FFmpeg 7.1 only, where the backend can copy (before, they are lent).
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
#include "gstavhwvulkaninterop.h"
#include "gstavhwvulkanqueues.h"


/* How long a released frame waits for GStreamer's last signal. */
#define VK_EXPORT_RELEASE_WAIT_NS (G_GUINT64_CONSTANT (1000000000))

GST_DEBUG_CATEGORY_STATIC (vk_export_debug);
#define GST_CAT_DEFAULT vk_export_debug

/* The formats whose images GStreamer reads as FFmpeg wrote them: same
 * planes, same texel sizes, in both layouts. */
static const enum AVPixelFormat vk_export_formats[] = {
  AV_PIX_FMT_NV12, AV_PIX_FMT_P010, AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV444P,
};

static gboolean
vk_export_format_ok (enum AVPixelFormat fmt)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (vk_export_formats); i++)
    if (vk_export_formats[i] == fmt)
      return TRUE;
  return FALSE;
}

gboolean
vk_device_is_gst_shared (GstAvhwDevice * device, gchar ** reason)
{
  GstVulkanDevice *gst_dev = vk_interop_peek_gst_device (device);
  AVHWDeviceContext *dctx =
      (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (device)->data;
  AVVulkanDeviceContext *hwctx = dctx->hwctx;

  if (!VK_CAN_EXPORT) {
    *reason = g_strdup_printf ("built with GStreamer %d.%d and libavutil %d: "
        "frames cross to and from memory:VulkanImage from GStreamer 1.24 and "
        "FFmpeg 7", GST_VERSION_MAJOR, GST_VERSION_MINOR,
        LIBAVUTIL_VERSION_MAJOR);
    return FALSE;
  }
  if (!gst_dev || gst_dev->device != hwctx->act_dev) {
    *reason = g_strdup_printf ("%s is FFmpeg's own VkDevice, not a "
        "GStreamer one (share one with a gst.vulkan.device context)",
        gst_avhw_device_get_name (device));
    return FALSE;
  }
  return TRUE;
}

static gboolean
vk_device_exports_foreign (GstAvhwBackend * backend, GstAvhwDevice * device,
    enum AVPixelFormat sw_format, gchar ** reason)
{
  if (!vk_device_is_gst_shared (device, reason))
    return FALSE;
  if (!vk_export_format_ok (sw_format)) {
    *reason = g_strdup_printf ("%s frames are not wrapped (only NV12, P010, "
        "I420, Y444)", av_get_pix_fmt_name (sw_format));
    return FALSE;
  }
  return TRUE;
}

#if VK_CAN_EXPORT

/* GstAvhwVkExported and, per image, the timeline semaphore GStreamer made
 * for the memory wrapping it: a GstVulkanImageMemory owns the semaphore in
 * its barrier state and destroys it when freed, so FFmpeg's is lent only
 * while the memory lives and GStreamer's own is put back before. */
typedef struct
{
  GstAvhwVkExported pub;
  VkSemaphore own_sem[AV_NUM_DATA_POINTERS];
} VkExported;

static void
vk_exported_unref (gpointer data)
{
  VkExported *e = data;

  if (!g_atomic_int_dec_and_test (&e->pub.refs))
    return;
  av_frame_free (&e->pub.frame);
  g_free (e);
}

/* Whether GStreamer's operations (GstVulkanOperation, 1.24+) on @gst_dev
 * wait on and signal the timeline semaphores in image memories: only with
 * synchronization2, else they add no semaphore at all (and still count a
 * signal). */
static gboolean
vk_gst_asks_semaphores (GstVulkanDevice * gst_dev)
{
  GstVulkanPhysicalDevice *phys = gst_dev->physical_device;
  VkPhysicalDeviceVulkan13Features f13 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
  };
  VkPhysicalDeviceFeatures2 features = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
    .pNext = &f13,
  };

  if (gst_vulkan_device_is_extension_enabled (gst_dev,
          "VK_KHR_synchronization2"))
    return TRUE;
  if (phys->properties.apiVersion < VK_API_VERSION_1_3)
    return FALSE;
  vkGetPhysicalDeviceFeatures2 (phys->device, &features);
  return f13.synchronization2;
}

/* vk_gst_asks_semaphores(), asked once per GstVulkanDevice: the answer is
 * the device's and every exported frame needs it. Two threads asking at
 * once store the same answer. */
static gboolean
vk_gst_uses_semaphores (GstVulkanDevice * gst_dev)
{
  static GQuark quark;
  gpointer known;
  gboolean uses;

  if (!quark)
    quark = g_quark_from_static_string ("gst-avhw-vk-uses-semaphores");
  known = g_object_get_qdata (G_OBJECT (gst_dev), quark);
  if (known)
    return GPOINTER_TO_INT (known) == 2;
  uses = vk_gst_asks_semaphores (gst_dev);
  g_object_set_qdata (G_OBJECT (gst_dev), quark, GINT_TO_POINTER (uses ? 2 :
          1));
  return uses;
}

/* Before a wrapped memory goes: what GStreamer did to its image goes back
 * into the AVVkFrame. */
static void
vk_exported_mem_gone (gpointer data, GstMiniObject * obj)
{
  VkExported *e = data;
  GstVulkanImageMemory *mem = (GstVulkanImageMemory *) obj;
  AVHWFramesContext *fc =
      (AVHWFramesContext *) e->pub.frame->hw_frames_ctx->data;
  AVVulkanFramesContext *vkfc = fc->hwctx;
  AVVkFrame *vkf = (AVVkFrame *) e->pub.frame->data[0];
  guint i;

  for (i = 0; i < AV_NUM_DATA_POINTERS && vkf->img[i]; i++) {
    if (vkf->img[i] != mem->image)
      continue;
    vkfc->lock_frame (fc, vkf);
    vkf->layout[i] = mem->barrier.image_layout;
    vkf->access[i] = (VkAccessFlagBits) mem->barrier.parent.access_flags;
    if (mem->barrier.parent.semaphore == vkf->sem[i]
        && mem->barrier.parent.semaphore_value > vkf->sem_value[i]) {
      guint64 want = mem->barrier.parent.semaphore_value;
      uint64_t now = 0;
      VkSemaphoreWaitInfo wait = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &vkf->sem[i],
        .pValues = &want,
      };

      /* Only a value GStreamer really signals: its element may release
       * the frame with its last submission still running (then it arrives
       * soon), and GstVulkanOperation counts a signal even where it
       * submitted none; FFmpeg would wait for that one forever. */
      if (vkWaitSemaphores (mem->device->device, &wait,
              VK_EXPORT_RELEASE_WAIT_NS) == VK_SUCCESS) {
        vkf->sem_value[i] = want;
      } else {
        vkGetSemaphoreCounterValue (mem->device->device, vkf->sem[i], &now);
        GST_WARNING ("image %u: GStreamer counted semaphore value %"
            G_GUINT64_FORMAT " but it stays at %" G_GUINT64_FORMAT
            ": keeping %" G_GUINT64_FORMAT, i, want, (guint64) now,
            (guint64) vkf->sem_value[i]);
      }
    }
    GST_TRACE ("image %u back to FFmpeg: layout %d, semaphore value %"
        G_GUINT64_FORMAT, i, vkf->layout[i], (guint64) vkf->sem_value[i]);
    vkfc->unlock_frame (fc, vkf);
    /* GStreamer destroys the memory's semaphore: its own, not FFmpeg's */
    mem->barrier.parent.semaphore = e->own_sem[i];
  }
}

/* The usage to declare for an image of @format FFmpeg made with @usage:
 * GStreamer checks the usage it is told against the format's properties
 * with no create flags, while FFmpeg creates its images with flags
 * (extended usage, mutable format) that allow more, e.g. storage on a
 * multi-planar format. A subset of what the image has is still true; the
 * transfers vulkandownload needs come first. 0 when none fits. */
static VkImageUsageFlags
vk_wrap_usage (GstVulkanDevice * gst_dev, VkFormat format,
    VkImageTiling tiling, VkImageUsageFlags usage)
{
  const VkImageUsageFlags keep[] = {
    usage,
    usage & (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT
        | VK_IMAGE_USAGE_SAMPLED_BIT),
    usage & (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT),
    usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
  };
  VkImageFormatProperties props;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (keep); i++) {
    if (keep[i] && vkGetPhysicalDeviceImageFormatProperties
        (gst_dev->physical_device->device, format, VK_IMAGE_TYPE_2D, tiling,
            keep[i], 0, &props) == VK_SUCCESS)
      return keep[i];
  }
  return 0;
}

static guint
vk_frame_n_images (const AVVkFrame * vkf)
{
  guint n = 0;

  while (n < AV_NUM_DATA_POINTERS && vkf->img[n])
    n++;
  return n;
}

static GstBuffer *
vk_export_foreign_buffer (GstAvhwBackend * backend, GstAvhwDevice * device,
    const AVFrame * frame, const GstVideoInfo * info, GError ** error)
{
  GstVulkanDevice *gst_dev = vk_interop_peek_gst_device (device);
  AVHWFramesContext *fc;
  AVVulkanFramesContext *vkfc;
  const AVPixFmtDescriptor *desc;
  AVVkFrame *vkf;
  VkExported *e;
  GstBuffer *buf;
  gboolean lend_sem;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, }, at = 0;
  gchar *why = NULL;
  guint i, n_imgs, n_planes;

  if (!frame->hw_frames_ctx || !frame->data[0]) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vulkan: not a hardware frame");
    return NULL;
  }
  fc = (AVHWFramesContext *) frame->hw_frames_ctx->data;
  vkfc = fc->hwctx;
  vkf = (AVVkFrame *) frame->data[0];
  /* Only where the backend can copy (vk_copy: FFmpeg 7.1); before, such
   * frames are lent, with the caveat of docs/elements.md. */
  if (GST_AVHW_VK_QUEUE_LIST
      && (vkfc->usage & VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR)) {
    GST_LOG ("a decoder's reference image: not lent, to be copied");
    return NULL;
  }
  if (!vk_device_exports_foreign (backend, device, fc->sw_format, &why)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "vulkan: cannot wrap the frame: %s", why);
    g_free (why);
    return NULL;
  }
  desc = av_pix_fmt_desc_get (fc->sw_format);
  n_planes = av_pix_fmt_count_planes (fc->sw_format);
  n_imgs = vk_frame_n_images (vkf);
  if (n_imgs != 1 && n_imgs != n_planes) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "vulkan: a %s frame of %u images is neither one multi-planar image "
        "nor one image per plane", av_get_pix_fmt_name (fc->sw_format), n_imgs);
    return NULL;
  }

  e = g_new0 (VkExported, 1);
  e->pub.frame = av_frame_clone (frame);
  e->pub.refs = 1;
  buf = gst_buffer_new ();
  lend_sem = vk_gst_uses_semaphores (gst_dev);
  if (!lend_sem) {
    /* GStreamer will not wait: FFmpeg's work on the frame ends first */
    for (i = 0; i < n_imgs; i++) {
      VkSemaphoreWaitInfo wait = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &vkf->sem[i],
      };

      vkfc->lock_frame (fc, vkf);
      wait.pValues = &vkf->sem_value[i];
      vkWaitSemaphores (gst_dev->device, &wait, UINT64_MAX);
      vkfc->unlock_frame (fc, vkf);
    }
  }
  vkfc->lock_frame (fc, vkf);
  for (i = 0; i < n_imgs; i++) {
    gboolean chroma = n_imgs > 1 && (i == 1 || i == 2);
    gsize w = chroma ? AV_CEIL_RSHIFT (fc->width, desc->log2_chroma_w)
        : (gsize) fc->width;
    gsize h = chroma ? AV_CEIL_RSHIFT (fc->height, desc->log2_chroma_h)
        : (gsize) fc->height;
    VkImageUsageFlags usage = vk_wrap_usage (gst_dev, vkfc->format[i],
        vkf->tiling, vkfc->usage);
    GstVulkanImageMemory *mem;

    if (!usage) {
      GST_WARNING ("image %u: VkFormat %d with usage 0x%x cannot be "
          "described to GStreamer", i, vkfc->format[i], vkfc->usage);
      continue;
    }
    g_atomic_int_inc (&e->pub.refs);
    mem = (GstVulkanImageMemory *) gst_vulkan_image_memory_wrapped (gst_dev,
        vkf->img[i], vkfc->format[i], w, h, vkf->tiling, usage, e,
        vk_exported_unref);
    if (!mem) {
      vk_exported_unref (e);
      continue;
    }
    mem->barrier.image_layout = vkf->layout[i];
    mem->barrier.parent.access_flags = vkf->access[i];
    mem->barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    e->own_sem[i] = mem->barrier.parent.semaphore;
    if (lend_sem) {
      mem->barrier.parent.semaphore = vkf->sem[i];
      mem->barrier.parent.semaphore_value = vkf->sem_value[i];
    }
    gst_mini_object_weak_ref (GST_MINI_OBJECT_CAST (mem),
        vk_exported_mem_gone, e);
    offset[i] = at;
    at += gst_memory_get_sizes (GST_MEMORY_CAST (mem), NULL, NULL);
    gst_buffer_append_memory (buf, GST_MEMORY_CAST (mem));
  }
  vkfc->unlock_frame (fc, vkf);
  vk_exported_unref (e);
  if (gst_buffer_n_memory (buf) != n_imgs) {
    gst_buffer_unref (buf);
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "vulkan: GStreamer could not wrap the frame's VkImage");
    return NULL;
  }
  /* One image: the planes at the caps' offsets, all in memory 0 (as
   * GStreamer's image buffer pool does); else plane i is memory i. */
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      n_imgs == 1 ? (gsize *) info->offset : offset, (gint *) info->stride);
  GST_LOG ("wrapped %u VkImage(s) of a %s frame, first %p, semaphore value %"
      G_GUINT64_FORMAT, n_imgs, av_get_pix_fmt_name (fc->sw_format),
      (gpointer) vkf->img[0], (guint64) vkf->sem_value[0]);
  return buf;
}

/* A GstVulkanDevice of GStreamer's own for device @index, for an avhw
 * element whose downstream neighbour (vulkandownload) takes
 * memory:VulkanImage only: the library wraps it for FFmpeg and answers the
 * neighbour's gst.vulkan.device query with it, so one VkDevice serves both
 * and the frames are wrapped, not copied. GStreamer opens it with the
 * extensions and queues it enables for its own elements (from 1.24 the
 * video decode queue and extensions where the GPU has them). */
static GstContext *
vk_make_foreign_context (GstAvhwBackend * backend, gint index, GError ** error)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  GstVulkanDevice *device = NULL;
  GstContext *context = NULL;
  GError *err = NULL;

  if (!gst_vulkan_instance_open (instance, &err))
    goto fail;
  if ((guint) MAX (index, 0) >= instance->n_physical_devices) {
    g_set_error (&err, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "it has %u device(s)", instance->n_physical_devices);
    goto fail;
  }
  device = gst_vulkan_device_new_with_index (instance, MAX (index, 0));
  if (!gst_vulkan_device_open (device, &err))
    goto fail;
  context = gst_context_new (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR, TRUE);
  gst_context_set_vulkan_device (context, device);
  GST_INFO ("made %" GST_PTR_FORMAT " (VkDevice %p) for vulkan:%d",
      device, (gpointer) device->device, MAX (index, 0));
  gst_object_unref (device);
  gst_object_unref (instance);
  return context;

fail:
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
      "vulkan: GStreamer could not open device %d: %s", MAX (index, 0),
      err ? err->message : "unknown error");
  g_clear_error (&err);
  gst_clear_object (&device);
  gst_object_unref (instance);
  return NULL;
}

#endif /* VK_CAN_EXPORT */

void
vk_export_iface_init (GstAvhwForeignInteropInterface * iface)
{
  GST_DEBUG_CATEGORY_INIT (vk_export_debug, "avhwvulkanexport", 0,
      "gst-avhw Vulkan backend: frames into GStreamer's memory:VulkanImage");
#if VK_CAN_EXPORT
  iface->foreign_memory_feature = GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE;
  iface->export_foreign_buffer = vk_export_foreign_buffer;
  iface->device_exports_foreign = vk_device_exports_foreign;
  iface->make_foreign_context = vk_make_foreign_context;
#else
  (void) vk_device_exports_foreign;
#endif
}
