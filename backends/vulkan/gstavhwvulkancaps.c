/* gst-avhw: Vulkan backend, which codecs a device decodes in hardware
 *
 * FFmpeg builds a Vulkan hwaccel for a codec whether or not the device has
 * video queues: without this check lavapipe (no video at all) and NVIDIA
 * (no AV1 decode on the H200) were reported as decoding them, and the
 * autoplug decoders registered for them failed at the first frame. A
 * device decodes a codec when it offers VK_KHR_video_decode_queue and the
 * codec's decode extension; this reads device extensions only, without
 * creating a device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <vulkan/vulkan.h>
#include <gst/avhw/gstavhw.h>
#include <libavcodec/avcodec.h>

#include "gstavhwvulkanbackend.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

static const struct
{
  enum AVCodecID codec;
  const gchar *extension;
} vk_decode_exts[] = {
  {AV_CODEC_ID_H264, "VK_KHR_video_decode_h264"},
  {AV_CODEC_ID_HEVC, "VK_KHR_video_decode_h265"},
  {AV_CODEC_ID_AV1, "VK_KHR_video_decode_av1"},
  {AV_CODEC_ID_VP9, "VK_KHR_video_decode_vp9"},
};

static GMutex caps_lock;
static GPtrArray *caps_exts;    /* per device index: GHashTable of names */

static void
vk_list_extensions_locked (void)
{
  VkInstance instance;
  VkPhysicalDevice *devs = NULL;
  uint32_t n = 0, i, j;

  caps_exts = g_ptr_array_new_with_free_func
      ((GDestroyNotify) g_hash_table_unref);
  if (vk_instance_new (&instance) != VK_SUCCESS)
    return;
  if (vkEnumeratePhysicalDevices (instance, &n, NULL) == VK_SUCCESS && n > 0) {
    devs = g_new0 (VkPhysicalDevice, n);
    if (vkEnumeratePhysicalDevices (instance, &n, devs) < 0)
      n = 0;
  }
  for (i = 0; i < n; i++) {
    GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal,
        g_free, NULL);
    VkExtensionProperties *props = NULL;
    uint32_t m = 0;

    if (vkEnumerateDeviceExtensionProperties (devs[i], NULL, &m,
            NULL) == VK_SUCCESS && m > 0) {
      props = g_new0 (VkExtensionProperties, m);
      if (vkEnumerateDeviceExtensionProperties (devs[i], NULL, &m, props) < 0)
        m = 0;
      for (j = 0; j < m; j++)
        g_hash_table_add (names, g_strdup (props[j].extensionName));
    }
    g_free (props);
    g_ptr_array_add (caps_exts, names);
  }
  g_free (devs);
  vkDestroyInstance (instance, NULL);
}

static gboolean
vk_device_decodes (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, gchar ** reason)
{
  const gchar *ext = NULL;
  GHashTable *names;
  gboolean queue, codec;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (vk_decode_exts); i++)
    if (vk_decode_exts[i].codec == codec_id)
      ext = vk_decode_exts[i].extension;
  g_mutex_lock (&caps_lock);
  if (!caps_exts)
    vk_list_extensions_locked ();
  names = index < caps_exts->len ? g_ptr_array_index (caps_exts, index) : NULL;
  queue = names && g_hash_table_contains (names, "VK_KHR_video_decode_queue");
  codec = names && ext && g_hash_table_contains (names, ext);
  g_mutex_unlock (&caps_lock);
  if (queue && codec)
    return TRUE;
  if (reason)
    *reason = !queue ?
        g_strdup ("the device has no video decode queue "
        "(VK_KHR_video_decode_queue)") :
        g_strdup_printf ("the device does not decode %s (no %s)",
        avcodec_get_name (codec_id), ext ? ext : "Vulkan Video extension");
  return FALSE;
}

void
vk_caps_class_init (GstAvhwBackendClass * bclass)
{
  bclass->device_decodes = vk_device_decodes;
}
