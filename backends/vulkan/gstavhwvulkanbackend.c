/* gst-avhw: Vulkan backend (FFmpeg's vulkan hwcontext)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <vulkan/vulkan.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/hwcontext_vulkan.h>

#include "gstavhwvulkanbackend.h"
#include "gstavhwvulkanextent.h"
#ifdef HAVE_GST_VULKAN
#include "gstavhwvulkaninterop.h"
#include "gstavhwvulkanexport.h"
#endif

GST_DEBUG_CATEGORY (vk_debug);
#define GST_CAT_DEFAULT vk_debug

struct _GstAvhwVulkanBackend
{
  GstAvhwBackend parent;
};

#ifdef HAVE_GST_VULKAN
/* gst.vulkan.device: share GStreamer's VkDevice, and memory:VulkanImage
 * on it (gstavhwvulkaninterop.c, gstavhwvulkanexport.c,
 * gstavhwvulkanimport.c). */
G_DEFINE_TYPE_WITH_CODE (GstAvhwVulkanBackend, gst_avhw_vulkan_backend,
    GST_TYPE_AVHW_BACKEND,
    G_IMPLEMENT_INTERFACE (GST_TYPE_AVHW_FOREIGN_INTEROP,
        vk_interop_iface_init));
#else
G_DEFINE_TYPE (GstAvhwVulkanBackend, gst_avhw_vulkan_backend,
    GST_TYPE_AVHW_BACKEND);
#endif

/* Physical devices, listed once per process on the process's one
 * VkInstance (vk_instance_get()), which creates no logical device, so
 * this wakes nothing. */
static GMutex vk_lock;
static gboolean vk_listed;
static GPtrArray *vk_names;
static gchar *vk_reason;

static GMutex vk_instance_lock;
static VkInstance vk_instance;
static VkResult vk_instance_result = VK_NOT_READY;
static guint32 vk_instance_api;

VkInstance
vk_instance_get (guint32 * api_version, VkResult * result)
{
  g_mutex_lock (&vk_instance_lock);
  if (vk_instance_result == VK_NOT_READY) {
    guint32 loader = 0;
    VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "gst-avhw",
    };
    VkInstanceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
    };

    /* 1.3 where the loader has it (FFmpeg 7.1's devices are 1.3) */
    if (vkEnumerateInstanceVersion (&loader) != VK_SUCCESS)
      loader = VK_API_VERSION_1_1;
    vk_instance_api = app.apiVersion = loader >= VK_API_VERSION_1_3 ?
        VK_API_VERSION_1_3 : VK_API_VERSION_1_1;
    vk_instance_result = vkCreateInstance (&info, NULL, &vk_instance);
    if (vk_instance_result != VK_SUCCESS)
      vk_instance = VK_NULL_HANDLE;
    GST_INFO ("the process's VkInstance, Vulkan %u.%u: VkResult %d",
        VK_API_VERSION_MAJOR (vk_instance_api),
        VK_API_VERSION_MINOR (vk_instance_api), vk_instance_result);
  }
  if (api_version)
    *api_version = vk_instance_api;
  if (result)
    *result = vk_instance_result;
  g_mutex_unlock (&vk_instance_lock);
  return vk_instance;
}

static void
vk_list_devices_locked (void)
{
  VkPhysicalDevice *devs = NULL;
  uint32_t n = 0, i;
  VkResult res;
  VkInstance instance = vk_instance_get (NULL, &res);

  vk_listed = TRUE;
  vk_names = g_ptr_array_new_with_free_func (g_free);
  if (res != VK_SUCCESS) {
    vk_reason = g_strdup_printf ("vkCreateInstance failed (VkResult %d): no "
        "Vulkan driver (ICD) is installed or it refused to start", res);
    return;
  }
  res = vkEnumeratePhysicalDevices (instance, &n, NULL);
  if (res == VK_SUCCESS && n > 0) {
    devs = g_new0 (VkPhysicalDevice, n);
    res = vkEnumeratePhysicalDevices (instance, &n, devs);
  }
  if (res != VK_SUCCESS && res != VK_INCOMPLETE)
    n = 0;
  for (i = 0; i < n; i++) {
    VkPhysicalDeviceProperties props;

    vkGetPhysicalDeviceProperties (devs[i], &props);
    g_ptr_array_add (vk_names, g_strdup (props.deviceName));
  }
  if (n == 0)
    vk_reason = g_strdup ("the Vulkan driver reports no physical device");
  g_free (devs);
  GST_INFO ("%u Vulkan physical device(s)", n);
}

static guint
vk_get_n_devices (GstAvhwBackend * backend, gchar ** reason)
{
  guint n;

  g_mutex_lock (&vk_lock);
  if (!vk_listed)
    vk_list_devices_locked ();
  n = vk_names->len;
  if (n == 0 && reason)
    *reason = g_strdup (vk_reason);
  g_mutex_unlock (&vk_lock);
  return n;
}

static gchar *
vk_get_device_description (GstAvhwBackend * backend, guint index)
{
  gchar *desc = NULL;

  g_mutex_lock (&vk_lock);
  if (!vk_listed)
    vk_list_devices_locked ();
  if (index < vk_names->len)
    desc = g_strdup (g_ptr_array_index (vk_names, index));
  g_mutex_unlock (&vk_lock);
  return desc ? desc : g_strdup_printf ("vulkan:%u", index);
}

/* Waits for @frame's timeline semaphores to reach the values its last
 * writer signals: the device work that writes it is done. */
static gboolean
vk_wait_frame (GstAvhwBackend * backend, const AVFrame * frame, GError ** error)
{
  AVHWFramesContext *fc;
  AVVulkanDeviceContext *hwctx;
  AVVkFrame *f;
  PFN_vkWaitSemaphores wait;
  VkSemaphoreWaitInfo info = { VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, };
  VkSemaphore sems[AV_NUM_DATA_POINTERS];
  uint64_t values[AV_NUM_DATA_POINTERS];
  VkResult res;
  int n;

  if (!frame->hw_frames_ctx || !frame->data[0])
    return TRUE;
  fc = (AVHWFramesContext *) frame->hw_frames_ctx->data;
  hwctx = fc->device_ctx->hwctx;
  f = (AVVkFrame *) frame->data[0];
  wait = (PFN_vkWaitSemaphores) vkGetDeviceProcAddr (hwctx->act_dev,
      "vkWaitSemaphores");
  for (n = 0; n < AV_NUM_DATA_POINTERS && f->sem[n]; n++) {
    sems[n] = f->sem[n];
    values[n] = f->sem_value[n];
  }
  if (!wait || n == 0)
    return TRUE;
  info.semaphoreCount = n;
  info.pSemaphores = sems;
  info.pValues = values;
  res = wait (hwctx->act_dev, &info, UINT64_MAX);
  if (res != VK_SUCCESS) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "vulkan: waiting for a frame's device work failed (VkResult %d)", res);
    return FALSE;
  }
  return TRUE;
}

/* FFmpeg 5.1's vulkan upload returns before the GPU has copied the source
 * when it imported the source's host memory, and nothing keeps that memory
 * alive (it references the destination frame, not the source): the caller
 * may free or refill it while the copy runs. So after the upload, wait for
 * the frame's timeline semaphores to reach the values the upload signals. */
static gboolean
vk_upload_locked (GstAvhwBackend * backend, AVFrame * dst,
    const AVFrame * src, GError ** error)
{
  GstAvhwBackendClass *parent = GST_AVHW_BACKEND_CLASS
      (gst_avhw_vulkan_backend_parent_class);

  if (!parent->upload (backend, dst, src, error))
    return FALSE;
  return vk_wait_frame (backend, dst, error);
}

/* FFmpeg 5.1's vulkan frames context has one command/queue context for all
 * its transfers, unlocked: two threads transferring frames of one frames
 * context at once (two pipelines sharing it through the cache) corrupt it
 * (double frees were seen). Transfers are serialised. */
static GMutex vk_transfer_lock;

static gboolean
vk_download (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  GstAvhwBackendClass *parent = GST_AVHW_BACKEND_CLASS
      (gst_avhw_vulkan_backend_parent_class);
  gboolean ok;

  g_mutex_lock (&vk_transfer_lock);
  if (!vk_check_odd_height (src, dst, error))
    ok = FALSE;
  else if (vk_download_is_own (src))
    ok = vk_download_own (dst, src, error);
  else
    ok = parent->download (backend, dst, src, error);
  g_mutex_unlock (&vk_transfer_lock);
  return ok;
}

static gboolean
vk_upload (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  gboolean ok;

  g_mutex_lock (&vk_transfer_lock);
  ok = vk_check_odd_height (dst, src, error)
      && vk_upload_locked (backend, dst, src, error);
  g_mutex_unlock (&vk_transfer_lock);
  return ok;
}

/* A new frame, under the transfer lock: FFmpeg 5.1's vulkan_pool_alloc()
 * records and submits each new image's layout transition on the frames
 * context's own exec context and queue, unlocked, so an allocation in one
 * pipeline's thread next to a transfer or another allocation in another
 * (frames contexts are shared through the cache) crashed NVIDIA's driver:
 * elements_concurrent, 7 crashes in 80 runs on the H200 (run 51; run 23's
 * crash), each in av_hwframe_get_buffer() from avhwdec's upload of a
 * software frame. Taking a frame from a warm pool costs the lock only. */
static int
vk_frames_get_buffer (GstAvhwBackend * backend, AVBufferRef * frames_ctx,
    AVFrame * frame)
{
  int ret;

  g_mutex_lock (&vk_transfer_lock);
  ret = av_hwframe_get_buffer (frames_ctx, frame, 0);
  g_mutex_unlock (&vk_transfer_lock);
  return ret;
}

/* The formats FFmpeg's vulkan frames are used with here. The constraints
 * list more (nv24, x2rgb10le, 12-bit and alpha variants); on NVIDIA's
 * driver many of those cannot be allocated and probing some crashed inside
 * FFmpeg 5.1, so only these are offered (and the core still checks each
 * can be allocated). */
static const enum AVPixelFormat vk_formats[] = {
  AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P,
  AV_PIX_FMT_P010LE, AV_PIX_FMT_P016LE, AV_PIX_FMT_YUV420P10LE,
  AV_PIX_FMT_YUV422P10LE, AV_PIX_FMT_YUV444P10LE, AV_PIX_FMT_NV16,
  AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAY16LE, AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA,
  AV_PIX_FMT_RGB0, AV_PIX_FMT_BGR0,
};

static GArray *
vk_get_sw_formats (GstAvhwBackend * backend, AVBufferRef * device_ctx)
{
  GstAvhwBackendClass *parent = GST_AVHW_BACKEND_CLASS
      (gst_avhw_vulkan_backend_parent_class);
  GArray *listed = parent->get_sw_formats (backend, device_ctx);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gint));
  guint i, j;

  for (i = 0; i < listed->len; i++) {
    for (j = 0; j < G_N_ELEMENTS (vk_formats); j++) {
      if (g_array_index (listed, gint, i) == (gint) vk_formats[j]) {
        g_array_append_val (out, g_array_index (listed, gint, i));
        break;
      }
    }
  }
  g_array_unref (listed);
  return out;
}

/* A decode session sized for the stream (gstavhwvulkanextent.c) */
static void
vk_prepare_decode (GstAvhwBackend * backend, const AVCodecContext * ctx)
{
  gst_avhw_vk_extent_prepare (ctx);
}

static void
gst_avhw_vulkan_backend_class_init (GstAvhwVulkanBackendClass * klass)
{
  GstAvhwBackendClass *bclass = GST_AVHW_BACKEND_CLASS (klass);

  gst_avhw_backend_class_init_contract (klass);
  GST_DEBUG_CATEGORY_INIT (vk_debug, "avhwvulkan", 0,
      "gst-avhw Vulkan backend");

  bclass->name = "vulkan";
  bclass->description = "Vulkan devices through FFmpeg's vulkan hwcontext";
  bclass->hw_device_type = "vulkan";
  bclass->hw_pix_fmt = "vulkan";
  bclass->caps_feature = "memory:AVHWVulkan";
  bclass->rank = GST_RANK_SECONDARY;
  bclass->get_n_devices = vk_get_n_devices;
  bclass->get_device_description = vk_get_device_description;
  bclass->upload = vk_upload;
  bclass->download = vk_download;
  bclass->wait_frame = vk_wait_frame;
  bclass->copy = vk_copy;
  bclass->get_sw_formats = vk_get_sw_formats;
  bclass->frames_get_buffer = vk_frames_get_buffer;
  vk_caps_class_init (bclass);
  vk_scale_class_init (bclass);
  /* Device N is physical device N in vkEnumeratePhysicalDevices order, as
   * listed above and as FFmpeg's vulkan hwcontext takes it
   * (gstavhwvulkandevice.c). */
  bclass->open_device = vk_open_device;
  bclass->get_default_lanes = vk_get_default_lanes;
  bclass->get_lane_sessions = vk_get_lane_sessions;
  bclass->prepare_decode = vk_prepare_decode;
}

static void
gst_avhw_vulkan_backend_init (GstAvhwVulkanBackend * self)
{
}
