/* gst-avhw: Vulkan backend, the VkDevice opened for FFmpeg
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FFmpeg's av_hwdevice_ctx_create() creates every queue of each queue
 * family it uses. On an NVIDIA H200 that is 16 graphics, 8 compute, 2
 * transfer and 7 decode queues: vkCreateDevice then takes 850 of the 1,040
 * ms the open takes, and destroying the device 300 ms more, where a device
 * with one queue is made in 77 ms (tests/bench/vk-open.c, run 65). So,
 * with FFmpeg 7.1 and later, the backend makes the device itself as FFmpeg
 * 7.1 would make it (a Vulkan 1.3 instance, the optional device
 * extensions of FFmpeg's list that the device has, the features FFmpeg
 * enables) but with one queue of one family for graphics, compute and
 * transfers (families_shared()), one queue of each video family (two
 * would run one decoder's frames at once: gst_avhw_vk_add_queues()), and
 * none for optical flow
 * (FFmpeg's nvof filters are not offered), and gives it to FFmpeg
 * with av_hwdevice_ctx_init(): FFmpeg uses what it is told.
 *
 * FFmpeg's own creation stays where FFmpeg has no queue-family list (5.1,
 * 6: no Vulkan decoding either), where the application passed device
 * options (they are av_hwdevice_ctx_create()'s), and where this one
 * fails for a reason FFmpeg's might not share (a device below Vulkan 1.3).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/hwcontext_vulkan.h>

#include "gstavhwvulkanbackend.h"
#include "gstavhwvulkanextent.h"
#include "gstavhwvulkanpick.h"
#include "gstavhwvulkanlanequeue.h"
#include "gstavhwvulkanqueueclaim.h"
#include "gstavhwvulkanqueues.h"
#include "gstavhwvulkansemfix.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

#if GST_AVHW_VK_QUEUE_LIST && GST_AVHW_VK_PICK
#define VK_OWN_DEVICE 1
#else
#define VK_OWN_DEVICE 0
#endif

#if VK_OWN_DEVICE
/* FFmpeg 7.1's optional device extensions (hwcontext_vulkan.c,
 * optional_device_exts), enabled where the device has them. */
static const gchar *const ffmpeg_device_exts[] = {
  "VK_KHR_portability_subset",
  "VK_KHR_push_descriptor",
  "VK_EXT_descriptor_buffer",
  "VK_EXT_physical_device_drm",
  "VK_EXT_shader_atomic_float",
  "VK_KHR_cooperative_matrix",
  "VK_NV_optical_flow",
  "VK_EXT_shader_object",
  "VK_KHR_video_maintenance1",
  "VK_KHR_external_memory_fd",
  "VK_EXT_external_memory_dma_buf",
  "VK_EXT_image_drm_format_modifier",
  "VK_KHR_external_semaphore_fd",
  "VK_EXT_external_memory_host",
  "VK_KHR_video_queue",
  "VK_KHR_video_encode_queue",
  "VK_KHR_video_decode_queue",
  "VK_KHR_video_encode_h264",
  "VK_KHR_video_decode_h264",
  "VK_KHR_video_encode_h265",
  "VK_KHR_video_decode_h265",
  "VK_KHR_video_decode_av1",
};

/* What the device context owns, freed with it (AVHWDeviceContext.free);
 * hwctx->device_features chains the structs below. */
typedef struct
{
  VkDevice dev;
  gchar **exts;
  gint64 create_us;             /* what vkCreateDevice took */
  gint lane_family;             /* the decode family of a lane's own queue, */
  guint32 lane_queue;           /* that queue (gstavhwvulkanlanequeue.c) */
  guint32 per_thread;           /* > 0: from lane_queue on, that many, a
                                 * thread's decoders on one */
  guint32 n_family;             /* the decode family's queues */
  gint claim_fd;                /* lane 0's claim on lane_queue, or -1 */
  gchar key[GST_AVHW_VK_KEY_LEN];       /* the device's claims' name */
  VkPhysicalDeviceVulkan11Features f11;
  VkPhysicalDeviceVulkan12Features f12;
  VkPhysicalDeviceVulkan13Features f13;
  VkPhysicalDeviceDescriptorBufferFeaturesEXT desc_buf;
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float;
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR coop_matrix;
  VkPhysicalDeviceOpticalFlowFeaturesNV optical_flow;
  VkPhysicalDeviceShaderObjectFeaturesEXT shader_object;
  VkPhysicalDeviceVideoMaintenance1FeaturesKHR video_maint1;
} VkDev;

static void
vk_dev_free (AVHWDeviceContext * dctx)
{
  VkDev *d = dctx->user_opaque;

  if (!d)
    return;
  if (d->dev) {
    gst_avhw_vk_sem_fix_remove (d->dev);
    gst_avhw_vk_lane_queue_remove (d->dev);
    vkDestroyDevice (d->dev, NULL);
  }
  gst_avhw_vk_unclaim (d->claim_fd);
  g_strfreev (d->exts);
  g_free (d);
}

static gboolean
has_ext (gchar ** exts, const gchar * name)
{
  return exts && g_strv_contains ((const gchar * const *) exts, name);
}

/* Extensions of FFmpeg 7.1's list that nothing run on the backend's
 * device uses: FFmpeg 7.1 only notes them (libavutil/vulkan_loader.h; no
 * decoder, hwcontext or filter of ours calls them), libplacebo does not
 * ask for them, and each adds features NVIDIA's vkCreateDevice sets up. */
static const gchar *const unused_exts[] = {
  "VK_NV_optical_flow",
  "VK_KHR_cooperative_matrix",
  "VK_EXT_shader_object",
  "VK_EXT_shader_atomic_float",
};

/* Whether the backend leaves @ext out of its device (with its features):
 * one of unused_exts, or of GST_AVHW_VK_SKIP_EXTENSIONS where that is set
 * (a comma-separated list replacing unused_exts; "none": FFmpeg's whole
 * list, as FFmpeg's own device has it). */
static gboolean
skipped (const gchar * ext)
{
  const gchar *env = g_getenv ("GST_AVHW_VK_SKIP_EXTENSIONS");
  gchar **list;
  gboolean ret;
  guint i;

  if (!env) {
    for (i = 0; i < G_N_ELEMENTS (unused_exts); i++)
      if (!strcmp (unused_exts[i], ext))
        return TRUE;
    return FALSE;
  }
  list = g_strsplit (env, ",", -1);
  ret = g_strv_contains ((const gchar * const *) list, ext);
  g_strfreev (list);
  return ret;
}

/* The extensions of ffmpeg_device_exts that @phys has. */
static gchar **
pick_extensions (VkPhysicalDevice phys)
{
  GPtrArray *out = g_ptr_array_new ();
  VkExtensionProperties *props = NULL;
  uint32_t n = 0, i, j;

  if (vkEnumerateDeviceExtensionProperties (phys, NULL, &n, NULL) ==
      VK_SUCCESS && n > 0) {
    props = g_new0 (VkExtensionProperties, n);
    if (vkEnumerateDeviceExtensionProperties (phys, NULL, &n, props) !=
        VK_SUCCESS)
      n = 0;
  }
  for (i = 0; i < G_N_ELEMENTS (ffmpeg_device_exts); i++) {
    for (j = 0; j < n; j++) {
      if (!strcmp (props[j].extensionName, ffmpeg_device_exts[i])) {
        if (!skipped (ffmpeg_device_exts[i]))
          g_ptr_array_add (out, g_strdup (ffmpeg_device_exts[i]));
        break;
      }
    }
  }
  g_free (props);
  g_ptr_array_add (out, NULL);
  return (gchar **) g_ptr_array_free (out, FALSE);
}

/* Links @s (a Vulkan struct with sType and pNext) at the end of @chain. */
static void
link_struct (void *chain, void *s)
{
  VkBaseOutStructure *p = chain;

  while (p->pNext)
    p = p->pNext;
  p->pNext = s;
}

/* Fills @d's feature structs with what FFmpeg 7.1 enables of what @phys
 * supports (vulkan_device_create_internal()), and @out, chaining them, with
 * the core 1.0 ones. FALSE without timeline semaphores, which FFmpeg
 * needs. */
static gboolean
pick_features (VkDev * d, VkPhysicalDevice phys, VkPhysicalDeviceFeatures2 *
    out)
{
  VkPhysicalDeviceVulkan11Features s11 = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
  };
  VkPhysicalDeviceVulkan12Features s12 = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
  };
  VkPhysicalDeviceVulkan13Features s13 = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
  };
  VkPhysicalDeviceDescriptorBufferFeaturesEXT desc_buf = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT,
  };
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
  };
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR coop_matrix = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
  };
  VkPhysicalDeviceOpticalFlowFeaturesNV optical_flow = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_OPTICAL_FLOW_FEATURES_NV,
  };
  VkPhysicalDeviceShaderObjectFeaturesEXT shader_object = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_OBJECT_FEATURES_EXT,
  };
  VkPhysicalDeviceVideoMaintenance1FeaturesKHR video_maint1 = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_MAINTENANCE_1_FEATURES_KHR,
  };
  VkPhysicalDeviceFeatures2 all = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &s11,
  };
  VkPhysicalDeviceFeatures *f = &all.features, *o = &out->features;

  s11.pNext = &s12;
  s12.pNext = &s13;
  /* asking for a struct of an extension the device lacks is allowed
   * (the struct is left alone), so every one is asked */
  s13.pNext = &desc_buf;
  desc_buf.pNext = &atomic_float;
  atomic_float.pNext = &coop_matrix;
  coop_matrix.pNext = &optical_flow;
  optical_flow.pNext = &shader_object;
  shader_object.pNext = &video_maint1;
  vkGetPhysicalDeviceFeatures2 (phys, &all);
  if (!s12.timelineSemaphore)
    return FALSE;

  memset (out, 0, sizeof (*out));
  out->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  o->shaderImageGatherExtended = f->shaderImageGatherExtended;
  o->shaderStorageImageReadWithoutFormat =
      f->shaderStorageImageReadWithoutFormat;
  o->shaderStorageImageWriteWithoutFormat =
      f->shaderStorageImageWriteWithoutFormat;
  o->fragmentStoresAndAtomics = f->fragmentStoresAndAtomics;
  o->vertexPipelineStoresAndAtomics = f->vertexPipelineStoresAndAtomics;
  o->shaderInt64 = f->shaderInt64;
  o->shaderInt16 = f->shaderInt16;
  o->shaderFloat64 = f->shaderFloat64;

  d->f11 = (VkPhysicalDeviceVulkan11Features) {
  VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  d->f11.samplerYcbcrConversion = s11.samplerYcbcrConversion;
  d->f11.storagePushConstant16 = s11.storagePushConstant16;
  d->f11.storageBuffer16BitAccess = s11.storageBuffer16BitAccess;
  d->f11.uniformAndStorageBuffer16BitAccess =
      s11.uniformAndStorageBuffer16BitAccess;

  d->f12 = (VkPhysicalDeviceVulkan12Features) {
  VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  d->f12.timelineSemaphore = VK_TRUE;
  d->f12.bufferDeviceAddress = s12.bufferDeviceAddress;
  d->f12.hostQueryReset = s12.hostQueryReset;
  d->f12.storagePushConstant8 = s12.storagePushConstant8;
  d->f12.shaderInt8 = s12.shaderInt8;
  d->f12.storageBuffer8BitAccess = s12.storageBuffer8BitAccess;
  d->f12.uniformAndStorageBuffer8BitAccess =
      s12.uniformAndStorageBuffer8BitAccess;
  d->f12.shaderFloat16 = s12.shaderFloat16;
  d->f12.shaderSharedInt64Atomics = s12.shaderSharedInt64Atomics;
  d->f12.vulkanMemoryModel = s12.vulkanMemoryModel;
  d->f12.vulkanMemoryModelDeviceScope = s12.vulkanMemoryModelDeviceScope;

  d->f13 = (VkPhysicalDeviceVulkan13Features) {
  VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  d->f13.dynamicRendering = s13.dynamicRendering;
  d->f13.maintenance4 = s13.maintenance4;
  d->f13.synchronization2 = s13.synchronization2;
  d->f13.computeFullSubgroups = s13.computeFullSubgroups;
  d->f13.shaderZeroInitializeWorkgroupMemory =
      s13.shaderZeroInitializeWorkgroupMemory;

  out->pNext = &d->f11;
  d->f11.pNext = &d->f12;
  d->f12.pNext = &d->f13;
  if (has_ext (d->exts, "VK_EXT_descriptor_buffer")) {
    d->desc_buf = (VkPhysicalDeviceDescriptorBufferFeaturesEXT) {
    desc_buf.sType};
    d->desc_buf.descriptorBuffer = desc_buf.descriptorBuffer;
    d->desc_buf.descriptorBufferPushDescriptors =
        desc_buf.descriptorBufferPushDescriptors;
    link_struct (out, &d->desc_buf);
  }
  if (has_ext (d->exts, "VK_EXT_shader_atomic_float")) {
    d->atomic_float = (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT) {
    atomic_float.sType};
    d->atomic_float.shaderBufferFloat32Atomics =
        atomic_float.shaderBufferFloat32Atomics;
    d->atomic_float.shaderBufferFloat32AtomicAdd =
        atomic_float.shaderBufferFloat32AtomicAdd;
    link_struct (out, &d->atomic_float);
  }
  if (has_ext (d->exts, "VK_KHR_cooperative_matrix")) {
    d->coop_matrix = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR) {
    coop_matrix.sType};
    d->coop_matrix.cooperativeMatrix = coop_matrix.cooperativeMatrix;
    link_struct (out, &d->coop_matrix);
  }
  if (has_ext (d->exts, "VK_NV_optical_flow")) {
    d->optical_flow = (VkPhysicalDeviceOpticalFlowFeaturesNV) {
    optical_flow.sType};
    d->optical_flow.opticalFlow = optical_flow.opticalFlow;
    link_struct (out, &d->optical_flow);
  }
  if (has_ext (d->exts, "VK_EXT_shader_object")) {
    d->shader_object = (VkPhysicalDeviceShaderObjectFeaturesEXT) {
    shader_object.sType};
    d->shader_object.shaderObject = shader_object.shaderObject;
    link_struct (out, &d->shader_object);
  }
  if (has_ext (d->exts, "VK_KHR_video_maintenance1")) {
    d->video_maint1 = (VkPhysicalDeviceVideoMaintenance1FeaturesKHR) {
    video_maint1.sType};
    d->video_maint1.videoMaintenance1 = video_maint1.videoMaintenance1;
    link_struct (out, &d->video_maint1);
  }
  return TRUE;
}

/* Whether compute and transfers go to the graphics family's one queue
 * (gstavhwvulkanpick.c); GST_AVHW_VK_FAMILIES=each gives each kind its own
 * family, as FFmpeg does. */
static gboolean
families_shared (void)
{
  return g_strcmp0 (g_getenv ("GST_AVHW_VK_FAMILIES"), "each") != 0;
}

/* @phys's queue families, picked (gstavhwvulkanpick.c) */
static void
pick_queues (VkPhysicalDevice phys, gchar ** exts, GstAvhwVkPicked * p)
{
  VkQueueFamilyProperties2 *qf;
  VkQueueFamilyVideoPropertiesKHR *vid;
  uint32_t n = 0, i;
  gboolean video = has_ext (exts, "VK_KHR_video_queue");

  vkGetPhysicalDeviceQueueFamilyProperties2 (phys, &n, NULL);
  qf = g_new0 (VkQueueFamilyProperties2, n);
  vid = g_new0 (VkQueueFamilyVideoPropertiesKHR, n);
  for (i = 0; i < n; i++) {
    vid[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_VIDEO_PROPERTIES_KHR;
    qf[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2;
    if (video)
      qf[i].pNext = &vid[i];
  }
  vkGetPhysicalDeviceQueueFamilyProperties2 (phys, &n, qf);
  gst_avhw_vk_pick_queues (qf, vid, n,
      has_ext (exts, "VK_KHR_video_encode_queue"),
      has_ext (exts, "VK_KHR_video_decode_queue"), families_shared (), p);
  g_free (vid);
  g_free (qf);
}

/* Lane @lane's decode queues (gstavhwvulkanlanequeue.c), in a family of
 * decoding only (no queue of it serves anything else). With the backend's
 * lanes (GST_AVHW_DEVICE_LANES unset or 0, vk_get_default_lanes()): lane 0
 * the queues up to the one it claims (gstavhwvulkanqueueclaim.h), decoding
 * on that one; lane 1 every queue, each thread's decoders on the one the
 * thread claims (d->per_thread). With lanes the application chose: lane k
 * the queues up to k % n, decoding on that one. d->lane_family -1 where
 * FFmpeg keeps queue 0 and no lane-1 thread needs to know it. */
static void
pick_lane_queue (VkDev * d, guint lane, GstAvhwVkPicked * q)
{
  gboolean chosen = gst_avhw_cache_get_lanes () > 0;
  gint claimed;
  guint i;

  d->lane_family = -1;
  d->per_thread = 0;
  for (i = 0; i < q->n; i++) {
    if (q->flags[i] != VK_QUEUE_VIDEO_DECODE_BIT_KHR)
      continue;
    d->n_family = q->available[i];
    if (!chosen && lane == 1 && q->available[i] > 1) {
      d->lane_family = q->family[i];
      d->lane_queue = 1;
      d->per_thread = q->available[i] - 1;
      q->count[i] = q->available[i];
      break;
    }
    if (!chosen && lane == 0 && q->available[i] > 1) {
      /* another process's lane 0 may decode on queue 0: the queue the
       * fewest claim */
      claimed = gst_avhw_vk_claim (gst_avhw_vk_claim_dir (), d->key,
          q->available[i], -1, &d->claim_fd);
      d->lane_queue = claimed >= 0 ? (guint32) claimed :
          (guint32) getpid () % q->available[i];
      GST_DEBUG ("lane 0 decodes on queue %u of %u%s", d->lane_queue,
          q->available[i], claimed >= 0 ? " (claimed)" :
          " (every queue claimed: one by the process id)");
    } else {
      d->lane_queue = gst_avhw_vk_lane_queue_index (lane, q->available[i]);
    }
    /* the queues up to the one it decodes on; lane 0's queue is known to
     * the lane-1 threads' claims even where it is queue 0 */
    if (d->lane_queue > 0 || (!chosen && lane == 0))
      d->lane_family = q->family[i];
    if (d->lane_queue > 0)
      q->count[i] = d->lane_queue + 1;
    break;
  }
}

/* @d's key: the claims' name of physical device @phys. */
static void
set_key (VkDev * d, VkPhysicalDevice phys)
{
  VkPhysicalDeviceIDProperties id = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
  };
  VkPhysicalDeviceProperties2 props = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id,
  };
  guint i;

  G_STATIC_ASSERT (GST_AVHW_VK_KEY_LEN == 2 * VK_UUID_SIZE + 1);
  vkGetPhysicalDeviceProperties2 (phys, &props);
  for (i = 0; i < VK_UUID_SIZE; i++)
    g_snprintf (d->key + 2 * i, 3, "%02x", id.deviceUUID[i]);
}

/* Creates @d's device for physical device @index, on the process's
 * instance, for device lane @lane; the device context's fields in @hwctx.
 * NULL, or why not. */
static gchar *
create (VkDev * d, guint index, guint lane, AVVulkanDeviceContext * hwctx,
    GstAvhwVkPicked * q)
{
  VkDeviceQueueCreateInfo qinfo[G_N_ELEMENTS (q->family)];
  VkDeviceCreateInfo dinfo = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, };
  VkPhysicalDeviceProperties props;
  VkPhysicalDevice *devs;
  float prio[64];
  uint32_t n = 0, version = 0, i;
  VkResult res = VK_SUCCESS;
  VkInstance inst = vk_instance_get (&version, &res);

  if (inst == VK_NULL_HANDLE)
    return g_strdup_printf ("vkCreateInstance: VkResult %d", res);
  if (version < VK_API_VERSION_1_3)
    return g_strdup ("the Vulkan loader is older than 1.3; FFmpeg asks 1.3");
  vkEnumeratePhysicalDevices (inst, &n, NULL);
  if (index >= n)
    return g_strdup_printf ("no physical device %u (%u listed)", index, n);
  devs = g_new0 (VkPhysicalDevice, n);
  vkEnumeratePhysicalDevices (inst, &n, devs);
  hwctx->phys_dev = devs[index];
  g_free (devs);
  vkGetPhysicalDeviceProperties (hwctx->phys_dev, &props);
  if (props.apiVersion < VK_API_VERSION_1_3)
    return g_strdup_printf ("%s supports Vulkan %u.%u", props.deviceName,
        VK_API_VERSION_MAJOR (props.apiVersion),
        VK_API_VERSION_MINOR (props.apiVersion));

  d->exts = pick_extensions (hwctx->phys_dev);
  if (!pick_features (d, hwctx->phys_dev, &hwctx->device_features))
    return g_strdup_printf ("%s has no timeline semaphores", props.deviceName);
  pick_queues (hwctx->phys_dev, d->exts, q);
  if (q->n == 0)
    return g_strdup ("no queue family to use");
  set_key (d, hwctx->phys_dev);
  pick_lane_queue (d, lane, q);
  for (i = 0; i < G_N_ELEMENTS (prio); i++)
    prio[i] = 1.0f;
  for (i = 0; i < q->n; i++) {
    qinfo[i] = (VkDeviceQueueCreateInfo) {
    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,.queueFamilyIndex =
          q->family[i],.queueCount =
          MIN (q->count[i], G_N_ELEMENTS (prio)),.pQueuePriorities = prio,};
    q->count[i] = qinfo[i].queueCount;
  }
  dinfo.pNext = &hwctx->device_features;
  dinfo.queueCreateInfoCount = q->n;
  dinfo.pQueueCreateInfos = qinfo;
  dinfo.enabledExtensionCount = g_strv_length (d->exts);
  dinfo.ppEnabledExtensionNames = (const char *const *) d->exts;
  d->create_us = g_get_monotonic_time ();
  res = vkCreateDevice (hwctx->phys_dev, &dinfo, NULL, &d->dev);
  d->create_us = g_get_monotonic_time () - d->create_us;
  if (res != VK_SUCCESS)
    return g_strdup_printf ("vkCreateDevice on %s: VkResult %d",
        props.deviceName, res);

  hwctx->get_proc_addr = vkGetInstanceProcAddr;
  hwctx->inst = inst;
  hwctx->act_dev = d->dev;
  hwctx->enabled_dev_extensions = (const char *const *) d->exts;
  hwctx->nb_enabled_dev_extensions = dinfo.enabledExtensionCount;
  for (i = 0; i < q->n; i++) {
    if (i == 0)
      gst_avhw_vk_set_queues (hwctx, q->family[0], q->count[0],
          q->flags[0] & ~GST_AVHW_VK_VIDEO_BITS);
    else
      gst_avhw_vk_add_queues (hwctx, q->family[i], q->count[i], q->flags[i], 0);
  }
  /* the first family's video abilities, set_queues() leaves out */
  if (q->flags[0] & GST_AVHW_VK_VIDEO_BITS)
    gst_avhw_vk_add_queues (hwctx, q->family[0], q->count[0],
        q->flags[0] & GST_AVHW_VK_VIDEO_BITS, 0);
  return NULL;
}

#endif

/* NVIDIA's driver decodes on one engine for a queue index, whichever
 * VkDevice the queue belongs to, and FFmpeg 7.1 must run each decoder on
 * one queue (gstavhwvulkanqueues.h); a VkDevice of the backend's costs
 * 80-90 ms with one decode queue, 130-170 with seven, and the driver makes
 * one device at a time (run 105). So where the backend makes its devices
 * and the device has several decode queues, the cache may open two
 * contexts: lane 0 with one decode queue (a lone pipeline opens fastest)
 * and, once lane 0 has a session, lane 1 with every decode queue, each
 * thread's decoders on one of the queues lane 0 does not use
 * (gstavhwvulkanlanequeue.c), so lane 1 runs that many sessions at full
 * speed. FFmpeg's own devices (older FFmpeg) take most of a second each
 * and decode nothing: one. */
guint
vk_get_default_lanes (GstAvhwBackend * backend, guint index)
{
#if VK_OWN_DEVICE
  return vk_decode_queue_count (index) > 1 ? 2 : 1;
#else
  return 1;
#endif
}

guint
vk_get_lane_sessions (GstAvhwBackend * backend, guint index, guint lane)
{
  guint n = vk_decode_queue_count (index);

  return lane == 1 && n > 1 ? n - 1 : 1;
}

/* A vulkan device context for physical device @index, FFmpeg's own where
 * @options for FFmpeg are given or this FFmpeg has no queue-family list
 * (see the top). Each call makes a VkDevice of its own, so a lane of the
 * device cache (GST_AVHW_OPTION_LANE) needs nothing more. */
AVBufferRef *
vk_open_device (GstAvhwBackend * backend, guint index,
    const GstStructure * options, GError ** error)
{
#if VK_OWN_DEVICE
  GstAvhwBackendClass *parent = g_type_class_peek_parent
      (GST_AVHW_BACKEND_GET_CLASS (backend));
  AVBufferRef *ref;
  AVHWDeviceContext *dctx;
  VkDev *d;
  GstAvhwVkPicked q;
  gchar *why;
  char err[AV_ERROR_MAX_STRING_SIZE];
  gint64 init_us;
  int ret;

  if (gst_avhw_options_has_creation_fields (options))
    return parent->open_device (backend, index, options, error);
  ref = av_hwdevice_ctx_alloc (AV_HWDEVICE_TYPE_VULKAN);
  if (!ref)
    return parent->open_device (backend, index, options, error);
  d = g_new0 (VkDev, 1);
  d->claim_fd = -1;
  dctx = (AVHWDeviceContext *) ref->data;
  dctx->free = vk_dev_free;
  dctx->user_opaque = d;
  why = create (d, index, gst_avhw_options_get_lane (options), dctx->hwctx, &q);
  if (why) {
    GST_INFO ("vulkan:%u: FFmpeg makes the device: %s", index, why);
    g_free (why);
    av_buffer_unref (&ref);
    return parent->open_device (backend, index, options, error);
  }
  gst_avhw_vk_sem_fix_install (dctx, gst_avhw_vk_sem_fix_needed
      (((AVVulkanDeviceContext *) dctx->hwctx)->phys_dev));
  if (d->lane_family >= 0)
    gst_avhw_vk_lane_queue_install (dctx, d->lane_family, d->lane_queue,
        d->per_thread, d->n_family, d->key);
  if (has_ext (d->exts, "VK_KHR_video_decode_queue"))
    gst_avhw_vk_extent_install (dctx);
  init_us = g_get_monotonic_time ();
  ret = av_hwdevice_ctx_init (ref);
  init_us = g_get_monotonic_time () - init_us;
  if (ret < 0) {
    av_buffer_unref (&ref);
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "vulkan: FFmpeg could not initialise a vulkan device context on "
        "device %u: %s", index, av_make_error_string (err, sizeof (err), ret));
    return NULL;
  }
  {
    GString *fams = g_string_new (NULL);
    guint i;

    for (i = 0; i < q.n; i++)
      g_string_append_printf (fams, "%s%u x%u (0x%x)", i ? ", " : "",
          q.family[i], q.count[i], (guint) q.flags[i]);
    GST_INFO ("vulkan:%u: made VkDevice %p for FFmpeg, %u extensions, queue "
        "families %s; vkCreateDevice %.1f ms, av_hwdevice_ctx_init %.1f ms",
        index, (gpointer) d->dev, g_strv_length (d->exts), fams->str,
        d->create_us / 1e3, init_us / 1e3);
    g_string_free (fams, TRUE);
  }
  return ref;
#else
  GstAvhwBackendClass *parent = g_type_class_peek_parent
      (GST_AVHW_BACKEND_GET_CLASS (backend));

  return parent->open_device (backend, index, options, error);
#endif
}
