/* gst-avhw: Vulkan backend, interop with GStreamer's vulkan elements
 * (gst.vulkan.device, library gstreamer-vulkan-1.0)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <vulkan/vulkan.h>
#include <gst/vulkan/vulkan.h>
#include <gst/avhw/gstavhw.h>
#include <libavutil/hwcontext_vulkan.h>

#include "gstavhwvulkaninterop.h"
#include "gstavhwvulkanqueues.h"

GST_DEBUG_CATEGORY_STATIC (vk_interop_debug);
#define GST_CAT_DEFAULT vk_interop_debug

/*
 * Direction GStreamer -> avhw: a gst.vulkan.device context (from the
 * application, a bin, or a neighbouring vulkan element answering our query)
 * gives an FFmpeg device context on that very VkDevice: its instance,
 * physical device, enabled extensions and the one queue family GStreamer
 * 1.22 creates queues in. The device context keeps a reference on the
 * GstVulkanDevice, so the VkDevice outlives every frame FFmpeg made on it.
 *
 * Direction avhw -> GStreamer: only for such wrapped devices, whose
 * GstVulkanDevice we can hand back. A VkDevice FFmpeg created cannot be
 * given to GStreamer 1.22: GstVulkanDevice has no constructor around an
 * existing VkDevice (gst_vulkan_device_open() always creates one, and its
 * finalize destroys it), so for those devices fill_foreign_context answers
 * nothing and GStreamer's elements make their own device.
 *
 * Caveats, both GStreamer 1.22 / FFmpeg 5.1 limits:
 * - GStreamer creates its VkDevice with no features enabled, while FFmpeg
 *   5.1 uses timeline semaphores (a Vulkan 1.2 feature). Devices that do not
 *   support the feature are refused; on those that do (Mesa, NVIDIA) it
 *   works, but validation layers report its use.
 * - GStreamer 1.22 makes one queue and FFmpeg 5.1 has no queue lock hook,
 *   so both submit to the same VkQueue without a common lock. Within one
 *   streaming thread (no queue element between avhw and vulkan elements)
 *   the submissions never overlap.
 * - avhw device memory (memory:AVHWVulkan, an AVVkFrame) and GStreamer's
 *   memory:VulkanImage are different caps features: frames between the two
 *   go through system memory. Sharing the VkDevice is what this gives;
 *   zero-copy between the two memory types is out of scope.
 */

/* What an FFmpeg device context made on a GstVulkanDevice borrows; freed
 * with the device context (AVHWDeviceContext.free). */
typedef struct
{
  GstVulkanDevice *device;
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
  gst_object_unref (f->device);
  g_strfreev (f->inst_exts);
  g_strfreev (f->dev_exts);
  g_free (f);
}

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

typedef struct
{
  gint family;
  gint n_queues;
} VkQueues;

static gboolean
vk_count_queue (GstVulkanDevice * device, GstVulkanQueue * queue,
    gpointer user_data)
{
  VkQueues *q = user_data;

  if (q->family < 0)
    q->family = queue->family;
  if ((gint) queue->family == q->family)
    q->n_queues++;
  return TRUE;
}

/* NULL when @device can carry FFmpeg 5.1's vulkan hwcontext, else why not. */
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
  if (q->family < 0 || (guint) q->family >= phys->n_queue_families)
    return g_strdup ("it has no queue");
  if (!(phys->queue_family_props[q->family].queueFlags & VK_QUEUE_COMPUTE_BIT))
    return g_strdup_printf ("its queue family %d has no compute queue, which "
        "FFmpeg needs", q->family);
#if GST_AVHW_VK_QUEUE_LIST
  /* Seen with FFmpeg 7.1 and GStreamer 1.26 on lavapipe: uploads and
   * downloads on GStreamer's VkDevice ran without an error and gave frames
   * of zeros, with its features and extensions declared to FFmpeg. Until
   * that is understood, a wrong frame is worse than a second VkDevice. */
  return g_strdup ("this FFmpeg's (7.1 or newer) vulkan transfers give wrong "
      "frames on a VkDevice GStreamer made; using a VkDevice of FFmpeg's "
      "own instead");
#endif
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
  VkQueues q = { -1, 0 };
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
  gst_vulkan_device_foreach_queue (device, vk_count_queue, &q);
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
  /* GStreamer's queues are all in one family (the first with graphics);
   * graphics and compute families also do transfers. */
  gst_avhw_vk_set_queues (hwctx, q.family, q.n_queues,
      (phys->queue_family_props[q.family].queueFlags
          & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
      | VK_QUEUE_TRANSFER_BIT);

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
      "queue family %d x%d, %u instance and %u device extensions)", *index,
      device, (gpointer) vk_device, q.family, q.n_queues,
      g_strv_length (f->inst_exts), g_strv_length (f->dev_exts));
  return ref;
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
  gst_context_set_vulkan_device (context, f->device);
  return TRUE;
}

void
vk_interop_class_init (GstAvhwBackendClass * bclass)
{
  GST_DEBUG_CATEGORY_INIT (vk_interop_debug, "avhwvulkaninterop", 0,
      "gst-avhw Vulkan backend: interop with GStreamer's vulkan elements");
  bclass->foreign_context_type = GST_VULKAN_DEVICE_CONTEXT_TYPE_STR;
  bclass->foreign_context_get_handle = vk_foreign_get_handle;
  bclass->wrap_foreign_context = vk_wrap_foreign_context;
  bclass->fill_foreign_context = vk_fill_foreign_context;
}
