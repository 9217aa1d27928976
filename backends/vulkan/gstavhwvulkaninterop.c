/* gst-avhw: Vulkan backend, interop with GStreamer's vulkan elements
 * (gst.vulkan.device, library gstreamer-vulkan-1.0)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <vulkan/vulkan.h>
#include <gst/vulkan/vulkan.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/hwcontext_vulkan.h>

#include "gstavhwvulkaninterop.h"
#include "gstavhwvulkanexport.h"
#include "gstavhwvulkanqueues.h"

GST_DEBUG_CATEGORY_STATIC (vk_interop_debug);
#define GST_CAT_DEFAULT vk_interop_debug

/*
 * Direction GStreamer -> avhw: a gst.vulkan.device context (from the
 * application, a bin, or a neighbouring vulkan element answering our query)
 * gives an FFmpeg device context on that very VkDevice: its instance,
 * physical device, enabled features and extensions and the queue families
 * GStreamer created queues in (1.22: one; from 1.24 also a video decode
 * family where the GPU has one, which FFmpeg >= 7.1 then decodes on). The
 * device context keeps a reference on the GstVulkanDevice, so the VkDevice
 * outlives every frame FFmpeg made on it. With FFmpeg 7.1 downloads on such
 * a device go through gstavhwvulkandownload.c: GStreamer does not enable
 * VK_EXT_external_memory_host, and FFmpeg 7.1's download without it copies
 * the wrong way (frames of zeros, seen on lavapipe).
 *
 * Direction avhw -> GStreamer: only for such wrapped devices, whose
 * GstVulkanDevice we can hand back. A VkDevice FFmpeg created cannot be
 * given to GStreamer 1.22: GstVulkanDevice has no constructor around an
 * existing VkDevice (gst_vulkan_device_open() always creates one, and its
 * finalize destroys it), so for those devices fill_foreign_context answers
 * nothing and GStreamer's elements make their own device.
 *
 * Caveats:
 * - GStreamer creates its VkDevice with no features enabled, while FFmpeg
 *   5.1 uses timeline semaphores (a Vulkan 1.2 feature). Devices that do not
 *   support the feature are refused; on those that do (Mesa, NVIDIA) it
 *   works, but validation layers report its use.
 * - GStreamer and FFmpeg submit to the same VkQueues, which Vulkan wants
 *   externally synchronised. gst_vulkan_queue_submit_lock() locks one
 *   GstVulkanQueue object (gst_vulkan_device_get_queue() makes a new one
 *   each call), and GStreamer's elements share theirs through
 *   `gst.vulkan.queue` context queries. So, from FFmpeg 6.0 (lavu 58.11,
 *   AVVulkanDeviceContext.lock_queue), FFmpeg's queue lock takes the submit
 *   lock of one GstVulkanQueue per family and index, kept here, and avhw
 *   elements answer `gst.vulkan.queue` queries with the main family's first
 *   queue: vulkandownload and vulkanupload then submit on that very object,
 *   under the same lock, from whatever thread (a queue element between
 *   them once hung NVIDIA's driver, run 39). FFmpeg 5.1 has no lock hook:
 *   there, only elements in one streaming thread are safe.
 * - avhw device memory (memory:AVHWVulkan, an AVVkFrame) and GStreamer's
 *   memory:VulkanImage are different caps features. On such a shared
 *   device, from GStreamer 1.24 and FFmpeg 7, avhwdec hands its frames out
 *   as memory:VulkanImage wrapping the AVVkFrame's images
 *   (gstavhwvulkanexport.c); the other way, avhwupload copies GStreamer's
 *   images into its frames on the device (gstavhwvulkanimport.c).
 */

/* What an FFmpeg device context made on a GstVulkanDevice borrows; freed
 * with the device context (AVHWDeviceContext.free). */
typedef struct
{
  GstVulkanDevice *device;
  GMutex lock;
  GHashTable *queues;           /* family << 16 | index: GstVulkanQueue */
  gchar **inst_exts;
  gchar **dev_exts;
  /* the features FFmpeg is told are enabled: hwctx->device_features
   * chains these */
  VkPhysicalDeviceVulkan11Features f11;
  VkPhysicalDeviceVulkan12Features f12;
  VkPhysicalDeviceVulkan13Features f13;
} VkForeign;

/* GStreamer 1.22 creates its VkDevice with no feature enabled
 * (pEnabledFeatures = NULL). From 1.24 it enables every feature the
 * physical device reports in the core 1.0-1.3 feature structs
 * (gst_vulkan_physical_device_get_features()), and FFmpeg must be told:
 * FFmpeg 7.1 on such a device told "nothing enabled" ran without an error
 * and returned frames of zeros. This is the one place that knows. */
static void
vk_foreign_set_features (VkForeign * f, GstVulkanPhysicalDevice * phys,
    VkPhysicalDeviceFeatures2 * out)
{
  out->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  out->pNext = NULL;
#if GST_CHECK_VERSION (1, 24, 0)
  {
    guint32 api = phys->properties.apiVersion;

    f->f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    f->f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f->f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    out->pNext = &f->f11;
    f->f11.pNext = &f->f12;
    if (api >= VK_API_VERSION_1_3)
      f->f12.pNext = &f->f13;
    vkGetPhysicalDeviceFeatures2 (phys->device, out);
  }
#endif
}

static void
vk_foreign_free (AVHWDeviceContext * dctx)
{
  VkForeign *f = dctx->user_opaque;

  if (!f)
    return;
  g_hash_table_unref (f->queues);
  g_mutex_clear (&f->lock);
  gst_object_unref (f->device);
  g_strfreev (f->inst_exts);
  g_strfreev (f->dev_exts);
  g_free (f);
}

/* The GstVulkanQueue of (@family, @index) that every submission on that
 * VkQueue locks, FFmpeg's and GStreamer's elements' (see the top). */
static GstVulkanQueue *
vk_foreign_queue (VkForeign * f, guint32 family, guint32 index)
{
  gpointer key = GUINT_TO_POINTER ((family << 16) | index);
  GstVulkanQueue *queue;

  g_mutex_lock (&f->lock);
  queue = g_hash_table_lookup (f->queues, key);
  if (!queue) {
    queue = gst_vulkan_device_get_queue (f->device, family, index);
    if (queue)
      g_hash_table_insert (f->queues, key, queue);
  }
  g_mutex_unlock (&f->lock);
  return queue;
}

#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT (58, 11, 100)
#define VK_HAS_QUEUE_LOCK 1
static void
vk_foreign_lock_queue (AVHWDeviceContext * dctx, uint32_t family,
    uint32_t index)
{
  GstVulkanQueue *queue = vk_foreign_queue (dctx->user_opaque, family, index);

  if (queue)
    gst_vulkan_queue_submit_lock (queue);
}

static void
vk_foreign_unlock_queue (AVHWDeviceContext * dctx, uint32_t family,
    uint32_t index)
{
  GstVulkanQueue *queue = vk_foreign_queue (dctx->user_opaque, family, index);

  if (queue)
    gst_vulkan_queue_submit_unlock (queue);
}
#else
#define VK_HAS_QUEUE_LOCK 0
#endif

/* The instance extensions GStreamer enabled on @instance. */
static gchar **
vk_enabled_instance_extensions (GstVulkanInstance * instance)
{
  GPtrArray *out = g_ptr_array_new ();
  VkExtensionProperties *props;
  uint32_t n = 0, i;

  if (vkEnumerateInstanceExtensionProperties (NULL, &n, NULL) == VK_SUCCESS
      && n > 0) {
    props = g_new0 (VkExtensionProperties, n);
    if (vkEnumerateInstanceExtensionProperties (NULL, &n, props) == VK_SUCCESS) {
      for (i = 0; i < n; i++) {
        if (gst_vulkan_instance_is_extension_enabled (instance,
                props[i].extensionName))
          g_ptr_array_add (out, g_strdup (props[i].extensionName));
      }
    }
    g_free (props);
  }
  g_ptr_array_add (out, NULL);
  return (gchar **) g_ptr_array_free (out, FALSE);
}

/* The device extensions GStreamer enabled on @device. */
static gchar **
vk_enabled_device_extensions (GstVulkanDevice * device)
{
  VkPhysicalDevice phys = device->physical_device->device;
  GPtrArray *out = g_ptr_array_new ();
  VkExtensionProperties *props;
  uint32_t n = 0, i;

  if (vkEnumerateDeviceExtensionProperties (phys, NULL, &n, NULL) ==
      VK_SUCCESS && n > 0) {
    props = g_new0 (VkExtensionProperties, n);
    if (vkEnumerateDeviceExtensionProperties (phys, NULL, &n, props) ==
        VK_SUCCESS) {
      for (i = 0; i < n; i++) {
        if (gst_vulkan_device_is_extension_enabled (device,
                props[i].extensionName))
          g_ptr_array_add (out, g_strdup (props[i].extensionName));
      }
    }
    g_free (props);
  }
  g_ptr_array_add (out, NULL);
  return (gchar **) g_ptr_array_free (out, FALSE);
}

/* The queue families GStreamer created queues in, in its order (1.22:
 * the first family with graphics; from 1.24 one queue in each family it
 * picked for graphics, compute, transfer, video decode and encode), and
 * how many queues in each. */
typedef struct
{
  guint n;
  gint family[8];
  gint n_queues[8];
  /* the first of them with compute: FFmpeg's graphics, compute and
   * transfer family; -1 if none */
  gint main;
} VkQueues;

static gboolean
vk_count_queue (GstVulkanDevice * device, GstVulkanQueue * queue,
    gpointer user_data)
{
  VkQueues *q = user_data;
  guint i;

  for (i = 0; i < q->n; i++) {
    if (q->family[i] == (gint) queue->family) {
      q->n_queues[i]++;
      return TRUE;
    }
  }
  if (q->n < G_N_ELEMENTS (q->family)) {
    q->family[q->n] = queue->family;
    q->n_queues[q->n++] = 1;
  }
  return TRUE;
}

static void
vk_list_queues (GstVulkanDevice * device, VkQueues * q)
{
  GstVulkanPhysicalDevice *phys = device->physical_device;
  guint i;

  q->n = 0;
  q->main = -1;
  gst_vulkan_device_foreach_queue (device, vk_count_queue, q);
  for (i = 0; i < q->n && q->main < 0; i++) {
    if ((guint) q->family[i] < phys->n_queue_families
        && (phys->queue_family_props[q->family[i]].queueFlags
            & VK_QUEUE_COMPUTE_BIT))
      q->main = i;
  }
}

/* What FFmpeg may do on queue family @family of @device: its graphics,
 * compute and transfer bits (graphics and compute families do transfers
 * too), and video decode and encode where GStreamer enabled the
 * extensions for them. */
static VkQueueFlags
vk_family_flags (GstVulkanDevice * device, guint family)
{
  VkQueueFlags props =
      device->physical_device->queue_family_props[family].queueFlags;
  VkQueueFlags flags = props & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT
      | VK_QUEUE_TRANSFER_BIT);
  gboolean video =
      gst_vulkan_device_is_extension_enabled (device, "VK_KHR_video_queue");

  if (flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
    flags |= VK_QUEUE_TRANSFER_BIT;
  if (video && (props & VK_QUEUE_VIDEO_DECODE_BIT_KHR)
      && gst_vulkan_device_is_extension_enabled (device,
          "VK_KHR_video_decode_queue"))
    flags |= VK_QUEUE_VIDEO_DECODE_BIT_KHR;
  if (video && (props & GST_AVHW_VK_QUEUE_VIDEO_ENCODE)
      && gst_vulkan_device_is_extension_enabled (device,
          "VK_KHR_video_encode_queue"))
    flags |= GST_AVHW_VK_QUEUE_VIDEO_ENCODE;
  return flags;
}

/* The codec operations (VkVideoCodecOperationFlagsKHR) of queue family
 * @family of @phys; only asked where VK_KHR_video_queue is enabled. */
static guint32
vk_family_video_caps (GstVulkanPhysicalDevice * phys, guint family)
{
  VkQueueFamilyVideoPropertiesKHR *video;
  VkQueueFamilyProperties2 *props;
  uint32_t n = phys->n_queue_families, i;
  guint32 caps = 0;

  video = g_new0 (VkQueueFamilyVideoPropertiesKHR, n);
  props = g_new0 (VkQueueFamilyProperties2, n);
  for (i = 0; i < n; i++) {
    video[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_VIDEO_PROPERTIES_KHR;
    props[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2;
    props[i].pNext = &video[i];
  }
  vkGetPhysicalDeviceQueueFamilyProperties2 (phys->device, &n, props);
  if (family < n)
    caps = video[family].videoCodecOperations;
  g_free (props);
  g_free (video);
  return caps;
}

/* Declares GStreamer's queues to FFmpeg: the main family for graphics,
 * compute and transfers, then every other family GStreamer created queues
 * in, for what it can do (on a GPU with Vulkan Video, its decode family,
 * so FFmpeg decodes on this VkDevice). */
static void
vk_declare_queues (AVVulkanDeviceContext * hwctx, GstVulkanDevice * device,
    const VkQueues * q)
{
  guint i;

  gst_avhw_vk_set_queues (hwctx, q->family[q->main], q->n_queues[q->main],
      vk_family_flags (device, q->family[q->main])
      & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT));
  for (i = 0; i < q->n; i++) {
    VkQueueFlags flags;
    guint32 video_caps = 0;

    if ((gint) i == q->main
        || (guint) q->family[i] >= device->physical_device->n_queue_families)
      continue;
    flags = vk_family_flags (device, q->family[i]);
    if (flags & (VK_QUEUE_VIDEO_DECODE_BIT_KHR |
            GST_AVHW_VK_QUEUE_VIDEO_ENCODE))
      video_caps = vk_family_video_caps (device->physical_device, q->family[i]);
    GST_DEBUG ("queue family %d x%d: flags 0x%x, codec operations 0x%x",
        q->family[i], q->n_queues[i], (guint) flags, video_caps);
    if (flags)
      gst_avhw_vk_add_queues (hwctx, q->family[i], q->n_queues[i], flags,
          video_caps);
  }
}

/* NULL when @device can carry FFmpeg's vulkan hwcontext, else why not. */
static gchar *
vk_check_device (GstVulkanDevice * device, const VkQueues * q)
{
  GstVulkanPhysicalDevice *phys = device->physical_device;
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
  };
  VkPhysicalDeviceFeatures2 features = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
    .pNext = &timeline,
  };
  guint32 api = phys->properties.apiVersion;

  if (!gst_vulkan_instance_check_version (device->instance, 1, 2, 0))
    return g_strdup ("its GstVulkanInstance was created for Vulkan < 1.2 "
        "(GST_VULKAN_INSTANCE_API_VERSION?); FFmpeg needs 1.2");
  if (api < VK_API_VERSION_1_2)
    return g_strdup_printf ("%s supports Vulkan %u.%u; FFmpeg needs 1.2",
        phys->properties.deviceName, VK_API_VERSION_MAJOR (api),
        VK_API_VERSION_MINOR (api));
  vkGetPhysicalDeviceFeatures2 (phys->device, &features);
  if (!timeline.timelineSemaphore)
    return g_strdup_printf ("%s has no timeline semaphores, which FFmpeg "
        "needs", phys->properties.deviceName);
  if (q->n == 0)
    return g_strdup ("it has no queue");
  if (q->main < 0)
    return g_strdup_printf ("none of its queues (family %d first) can "
        "compute, which FFmpeg needs", q->family[0]);
  return NULL;
}

static gpointer
vk_foreign_get_handle (GstAvhwBackend * backend, GstContext * context)
{
  GstVulkanDevice *device = NULL;

  /* The GstVulkanDevice is the identity: in GStreamer 1.22 each one has its
   * own VkDevice. The cache's device keeps it alive, so the pointer is not
   * reused while it is a key. */
  if (!gst_context_get_vulkan_device (context, &device) || !device)
    return NULL;
  gst_object_unref (device);
  return device;
}

static AVBufferRef *
vk_wrap_foreign_context (GstAvhwBackend * backend, GstContext * context,
    guint * index, GError ** error)
{
  GstVulkanDevice *device = NULL;
  GstVulkanPhysicalDevice *phys;
  AVVulkanDeviceContext *hwctx;
  AVHWDeviceContext *dctx;
  AVBufferRef *ref;
  VkQueues q;
  VkForeign *f;
  VkDevice vk_device;
  GError *gerr = NULL;
  gchar *why;
  char err[AV_ERROR_MAX_STRING_SIZE];
  int ret;

  if (!gst_context_get_vulkan_device (context, &device) || !device) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vulkan: the " GST_VULKAN_DEVICE_CONTEXT_TYPE_STR " context holds no "
        "GstVulkanDevice");
    return NULL;
  }
  if (!gst_vulkan_device_open (device, &gerr)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "vulkan: could not open %" GST_PTR_FORMAT ": %s", device,
        gerr->message);
    g_clear_error (&gerr);
    gst_object_unref (device);
    return NULL;
  }
  vk_list_queues (device, &q);
  why = vk_check_device (device, &q);
  if (why) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "vulkan: FFmpeg cannot use GStreamer's device %" GST_PTR_FORMAT
        ": %s", device, why);
    g_free (why);
    gst_object_unref (device);
    return NULL;
  }

  ref = av_hwdevice_ctx_alloc (AV_HWDEVICE_TYPE_VULKAN);
  if (!ref) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "vulkan: this FFmpeg cannot allocate a vulkan device context");
    gst_object_unref (device);
    return NULL;
  }
  phys = device->physical_device;
  vk_device = device->device;
  f = g_new0 (VkForeign, 1);
  f->device = device;
  g_mutex_init (&f->lock);
  f->queues = g_hash_table_new_full (NULL, NULL, NULL, gst_object_unref);
  f->inst_exts = vk_enabled_instance_extensions (device->instance);
  f->dev_exts = vk_enabled_device_extensions (device);

  dctx = (AVHWDeviceContext *) ref->data;
  dctx->free = vk_foreign_free;
  dctx->user_opaque = f;
  hwctx = dctx->hwctx;
  /* The loader GStreamer uses too (both link libvulkan). */
  hwctx->get_proc_addr = vkGetInstanceProcAddr;
  hwctx->inst = device->instance->instance;
  hwctx->phys_dev = phys->device;
  hwctx->act_dev = device->device;
  vk_foreign_set_features (f, phys, &hwctx->device_features);
  hwctx->enabled_inst_extensions = (const char *const *) f->inst_exts;
  hwctx->nb_enabled_inst_extensions = g_strv_length (f->inst_exts);
  hwctx->enabled_dev_extensions = (const char *const *) f->dev_exts;
  hwctx->nb_enabled_dev_extensions = g_strv_length (f->dev_exts);
  vk_declare_queues (hwctx, device, &q);
#if VK_HAS_QUEUE_LOCK
  hwctx->lock_queue = vk_foreign_lock_queue;
  hwctx->unlock_queue = vk_foreign_unlock_queue;
#endif

  *index = phys->device_index;
  ret = av_hwdevice_ctx_init (ref);
  if (ret < 0) {
    /* Freeing runs vk_foreign_free, which releases the device. */
    av_buffer_unref (&ref);
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "vulkan: FFmpeg could not initialise a vulkan device context on "
        "GStreamer's VkDevice %p: %s", (gpointer) vk_device,
        av_make_error_string (err, sizeof (err), ret));
    return NULL;
  }
  GST_INFO ("vulkan:%u on GStreamer's %" GST_PTR_FORMAT " (VkDevice %p, "
      "%u queue families, main %d x%d, %u instance and %u device "
      "extensions)", *index, device, (gpointer) vk_device, q.n,
      q.family[q.main], q.n_queues[q.main],
      g_strv_length (f->inst_exts), g_strv_length (f->dev_exts));
  return ref;
}

GstVulkanDevice *
vk_interop_peek_gst_device (GstAvhwDevice * device)
{
  AVHWDeviceContext *dctx =
      (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (device)->data;

  if (dctx->free != vk_foreign_free)
    return NULL;
  return ((VkForeign *) dctx->user_opaque)->device;
}

static gboolean
vk_fill_foreign_context (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstContext * context)
{
  AVHWDeviceContext *dctx =
      (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (device)->data;
  VkForeign *f;

  /* Only a device made on a GstVulkanDevice can be handed back (see the
   * top of this file). */
  if (dctx->free != vk_foreign_free) {
    GST_DEBUG_OBJECT (device, "FFmpeg made this VkDevice; GStreamer 1.22 "
        "cannot wrap it, not answering " GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
    return FALSE;
  }
  f = dctx->user_opaque;
  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_VULKAN_QUEUE_CONTEXT_TYPE_STR) == 0) {
    /* the queue FFmpeg's lock takes for the main family's first queue */
    int n, family = gst_avhw_vk_find_queues (dctx->hwctx,
        VK_QUEUE_TRANSFER_BIT, &n);
    GstVulkanQueue *queue;

    if (!VK_HAS_QUEUE_LOCK || family < 0)
      return FALSE;
    queue = vk_foreign_queue (f, family, 0);
    if (!queue)
      return FALSE;
    gst_context_set_vulkan_queue (context, queue);
    return TRUE;
  }
  gst_context_set_vulkan_device (context, f->device);
  return TRUE;
}

static const gchar *const vk_query_types[] = {
  GST_VULKAN_QUEUE_CONTEXT_TYPE_STR, NULL
};

void
vk_interop_iface_init (GstAvhwForeignInteropInterface * iface)
{
  GST_DEBUG_CATEGORY_INIT (vk_interop_debug, "avhwvulkaninterop", 0,
      "gst-avhw Vulkan backend: interop with GStreamer's vulkan elements");
  iface->foreign_context_type = GST_VULKAN_DEVICE_CONTEXT_TYPE_STR;
  iface->foreign_query_types = vk_query_types;
  iface->foreign_context_get_handle = vk_foreign_get_handle;
  iface->wrap_foreign_context = vk_wrap_foreign_context;
  iface->fill_foreign_context = vk_fill_foreign_context;
  /* memory:VulkanImage out of avhwdec, and into avhwupload, on such a
   * shared device */
  vk_export_iface_init (iface);
  vk_import_iface_init (iface);
}
