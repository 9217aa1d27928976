/* gst-avhw tests: decode sessions sized for their stream
 * (backends/vulkan/gstavhwvulkanextent.c)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FFmpeg makes every Vulkan decode session for the largest coded size the
 * device takes. avhwdec's get_format notes the stream's size for the
 * thread (the backend's prepare_decode), and the backend's
 * vkCreateVideoSessionKHR asks for that size instead, once, for that
 * device and codec only. The last test makes real sessions where the
 * Vulkan device decodes H.265 (an NVIDIA GPU): the sized one must need
 * less memory; without such a device (lavapipe) it checks only that a
 * device without video gets no such function through the backend's
 * lookup, and says so.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanextent.h"

GST_DEBUG_CATEGORY (vk_debug);

#define DEV_A ((VkDevice) GSIZE_TO_POINTER (0x1000))
#define DEV_B ((VkDevice) GSIZE_TO_POINTER (0x2000))
#define H264 VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR
#define H265 VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR

static VkVideoProfileInfoKHR profile_h264 = {
  VK_STRUCTURE_TYPE_VIDEO_PROFILE_INFO_KHR, NULL, H264,
  VK_VIDEO_CHROMA_SUBSAMPLING_420_BIT_KHR,
  VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR,
  VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR
};

static VkVideoProfileInfoKHR profile_h265 = {
  VK_STRUCTURE_TYPE_VIDEO_PROFILE_INFO_KHR, NULL, H265,
  VK_VIDEO_CHROMA_SUBSAMPLING_420_BIT_KHR,
  VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR,
  VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR
};

static VkVideoSessionCreateInfoKHR
session_info (VkVideoProfileInfoKHR * profile, guint32 w, guint32 h)
{
  VkVideoSessionCreateInfoKHR info = {
    VK_STRUCTURE_TYPE_VIDEO_SESSION_CREATE_INFO_KHR,
  };

  info.pVideoProfile = profile;
  info.maxCodedExtent.width = w;
  info.maxCodedExtent.height = h;
  return info;
}

GST_START_TEST (test_take)
{
  VkVideoSessionCreateInfoKHR info = session_info (&profile_h265, 8192, 8192);
  VkExtent2D e = { 0, 0 };

  /* no note: as FFmpeg asked */
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e));

  /* 1080p H.265: 1920x1088 (rounded up to 64), once */
  gst_avhw_vk_extent_note (DEV_A, H265, 1920, 1080);
  fail_unless (gst_avhw_vk_extent_take (DEV_A, &info, &e));
  fail_unless_equals_int (e.width, 1920);
  fail_unless_equals_int (e.height, 1088);
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e), "a note used twice");

  /* another device or codec: not this note, and the note is gone */
  gst_avhw_vk_extent_note (DEV_A, H265, 1280, 720);
  fail_if (gst_avhw_vk_extent_take (DEV_B, &info, &e));
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e));
  gst_avhw_vk_extent_note (DEV_A, H264, 1280, 720);
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e));

  /* odd sizes round up; never past the device's largest */
  gst_avhw_vk_extent_note (DEV_A, H265, 1000, 4000);
  info = session_info (&profile_h265, 4096, 4032);
  fail_unless (gst_avhw_vk_extent_take (DEV_A, &info, &e));
  fail_unless_equals_int (e.width, 1024);
  fail_unless_equals_int (e.height, 4032);

  /* a stream larger than the device takes, or as large: as asked */
  gst_avhw_vk_extent_note (DEV_A, H265, 8192, 4400);
  info = session_info (&profile_h265, 8192, 4352);
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e));
  gst_avhw_vk_extent_note (DEV_A, H265, 4096, 2160);
  info = session_info (&profile_h265, 4096, 2176);
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e));

  /* a session without a profile (not a decoder FFmpeg made) */
  gst_avhw_vk_extent_note (DEV_A, H265, 640, 480);
  info = session_info (&profile_h265, 8192, 8192);
  info.pVideoProfile = NULL;
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e));
}

GST_END_TEST;

static gpointer
note_in_thread (gpointer data)
{
  VkVideoSessionCreateInfoKHR info = session_info (&profile_h264, 4096, 4096);
  VkExtent2D e;

  gst_avhw_vk_extent_note (DEV_A, H264, 320, 240);
  return GINT_TO_POINTER (gst_avhw_vk_extent_take (DEV_A, &info, &e)
      && e.width == 320 && e.height == 256);
}

GST_START_TEST (test_note_is_the_threads)
{
  VkVideoSessionCreateInfoKHR info = session_info (&profile_h264, 4096, 4096);
  VkExtent2D e;
  GThread *t;

  gst_avhw_vk_extent_note (DEV_A, H264, 1920, 1080);
  t = g_thread_new ("note", note_in_thread, NULL);
  fail_unless (g_thread_join (t), "the thread's own note");
  /* the other thread's note is not this one's */
  fail_unless (gst_avhw_vk_extent_take (DEV_A, &info, &e));
  fail_unless_equals_int (e.width, 1920);
  fail_unless_equals_int (e.height, 1088);
}

GST_END_TEST;

/* prepare_decode reads the decoder context as get_format sees it */
GST_START_TEST (test_prepare)
{
  AVBufferRef *ref = av_hwdevice_ctx_alloc (AV_HWDEVICE_TYPE_VULKAN);
  AVCodecContext *ctx = avcodec_alloc_context3 (NULL);
  VkVideoSessionCreateInfoKHR info = session_info (&profile_h264, 4096, 4096);
  VkExtent2D e;

  fail_unless (ref && ctx);
  ((AVVulkanDeviceContext *) ((AVHWDeviceContext *) ref->data)->hwctx)->
      act_dev = DEV_A;
  ctx->hw_device_ctx = ref;
  ctx->codec_id = AV_CODEC_ID_H264;
  ctx->width = 1920;
  ctx->height = 1080;
  ctx->coded_width = 1920;
  ctx->coded_height = 1088;
  gst_avhw_vk_extent_prepare (ctx);
  fail_unless (gst_avhw_vk_extent_take (DEV_A, &info, &e));
  fail_unless_equals_int (e.width, 1920);
  fail_unless_equals_int (e.height, 1088);

  /* a codec without Vulkan decode, or no size yet: no note (and an
   * earlier note is dropped) */
  gst_avhw_vk_extent_note (DEV_A, H264, 640, 480);
  ctx->codec_id = AV_CODEC_ID_MPEG2VIDEO;
  gst_avhw_vk_extent_prepare (ctx);
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e));
  ctx->codec_id = AV_CODEC_ID_H264;
  ctx->width = ctx->height = ctx->coded_width = ctx->coded_height = 0;
  gst_avhw_vk_extent_prepare (ctx);
  fail_if (gst_avhw_vk_extent_take (DEV_A, &info, &e));
  avcodec_free_context (&ctx);  /* unrefs ref */
}

GST_END_TEST;

/* the decode queue family of @phys that decodes H.265, or -1 */
static gint
h265_family (VkPhysicalDevice phys)
{
  VkQueueFamilyProperties2 props[16];
  VkQueueFamilyVideoPropertiesKHR video[16];
  guint32 n = G_N_ELEMENTS (props), i;

  for (i = 0; i < n; i++) {
    video[i] = (VkQueueFamilyVideoPropertiesKHR) {
    VK_STRUCTURE_TYPE_QUEUE_FAMILY_VIDEO_PROPERTIES_KHR};
    props[i] = (VkQueueFamilyProperties2) {
    VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2, &video[i]};
  }
  vkGetPhysicalDeviceQueueFamilyProperties2 (phys, &n, props);
  for (i = 0; i < n; i++) {
    if ((props[i].queueFamilyProperties.queueFlags &
            VK_QUEUE_VIDEO_DECODE_BIT_KHR)
        && (video[i].videoCodecOperations & H265))
      return (gint) i;
  }
  return -1;
}

/* Bytes a session made through @create with @extent needs */
static VkDeviceSize
session_bytes (AVVulkanDeviceContext * hwctx, PFN_vkCreateVideoSessionKHR
    create, VkVideoSessionCreateInfoKHR * info)
{
  PFN_vkGetVideoSessionMemoryRequirementsKHR reqs =
      (PFN_vkGetVideoSessionMemoryRequirementsKHR)
      vkGetDeviceProcAddr (hwctx->act_dev,
      "vkGetVideoSessionMemoryRequirementsKHR");
  PFN_vkDestroyVideoSessionKHR destroy = (PFN_vkDestroyVideoSessionKHR)
      vkGetDeviceProcAddr (hwctx->act_dev, "vkDestroyVideoSessionKHR");
  VkVideoSessionMemoryRequirementsKHR r[32];
  VkVideoSessionKHR session = VK_NULL_HANDLE;
  VkDeviceSize bytes = 0;
  guint32 n = G_N_ELEMENTS (r), i;
  VkResult res;

  res = create (hwctx->act_dev, info, NULL, &session);
  fail_unless (res == VK_SUCCESS, "vkCreateVideoSessionKHR: %d", res);
  for (i = 0; i < n; i++)
    r[i] = (VkVideoSessionMemoryRequirementsKHR) {
    VK_STRUCTURE_TYPE_VIDEO_SESSION_MEMORY_REQUIREMENTS_KHR};
  fail_unless (reqs (hwctx->act_dev, session, &n, r) == VK_SUCCESS);
  for (i = 0; i < n; i++)
    bytes += r[i].memoryRequirements.size;
  destroy (hwctx->act_dev, session, NULL);
  return bytes;
}

GST_START_TEST (test_session_memory)
{
  GError *err = NULL;
  GstAvhwDevice *dev = gst_avhw_device_open ("vulkan", NULL, &err);
  AVVulkanDeviceContext *hwctx;
  AVBufferRef *mine = av_hwdevice_ctx_alloc (AV_HWDEVICE_TYPE_VULKAN);
  AVVulkanDeviceContext *mine_hwctx;
  PFN_vkGetDeviceProcAddr gdpa;
  PFN_vkCreateVideoSessionKHR driver, hooked;
  PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR get_caps;
  VkVideoDecodeH265ProfileInfoKHR h265 = {
    VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_PROFILE_INFO_KHR, NULL,
    STD_VIDEO_H265_PROFILE_IDC_MAIN
  };
  VkVideoProfileInfoKHR profile = profile_h265;
  VkVideoDecodeH265CapabilitiesKHR h265_caps = {
    VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_CAPABILITIES_KHR,
  };
  VkVideoDecodeCapabilitiesKHR dec_caps = {
    VK_STRUCTURE_TYPE_VIDEO_DECODE_CAPABILITIES_KHR, &h265_caps,
  };
  VkVideoCapabilitiesKHR caps = {
    VK_STRUCTURE_TYPE_VIDEO_CAPABILITIES_KHR, &dec_caps,
  };
  VkVideoSessionCreateInfoKHR info;
  VkDeviceSize full, sized;
  gint family;

  fail_unless (dev != NULL, "%s", err ? err->message : "");
  hwctx =
      ((AVHWDeviceContext *) gst_avhw_device_get_device_ctx (dev)->data)->hwctx;
  /* this file's wrapper, through the lookup the backend gives FFmpeg */
  fail_unless (mine != NULL);
  gst_avhw_vk_extent_install ((AVHWDeviceContext *) mine->data);
  mine_hwctx = ((AVHWDeviceContext *) mine->data)->hwctx;
  gdpa = (PFN_vkGetDeviceProcAddr) mine_hwctx->get_proc_addr (hwctx->inst,
      "vkGetDeviceProcAddr");
  fail_unless (gdpa != NULL);
  fail_unless (gdpa (hwctx->act_dev, "vkCreateBuffer") ==
      vkGetDeviceProcAddr (hwctx->act_dev, "vkCreateBuffer"));
  driver = (PFN_vkCreateVideoSessionKHR) vkGetDeviceProcAddr (hwctx->act_dev,
      "vkCreateVideoSessionKHR");
  hooked = (PFN_vkCreateVideoSessionKHR) gdpa (hwctx->act_dev,
      "vkCreateVideoSessionKHR");
  family = h265_family (hwctx->phys_dev);
  if (!driver || family < 0) {
    fail_unless (hooked == NULL, "a device without video decode got a "
        "vkCreateVideoSessionKHR");
    g_print ("SKIP test_session_memory's sessions: %s has no Vulkan H.265 "
        "decode (checked only that it gets no vkCreateVideoSessionKHR)\n",
        gst_avhw_device_get_name (dev));
    goto done;
  }
  fail_unless (hooked != NULL && hooked != driver);

  profile.pNext = &h265;
  get_caps = (PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR)
      vkGetInstanceProcAddr (hwctx->inst,
      "vkGetPhysicalDeviceVideoCapabilitiesKHR");
  fail_unless (get_caps != NULL);
  fail_unless (get_caps (hwctx->phys_dev, &profile, &caps) == VK_SUCCESS);
  info = (VkVideoSessionCreateInfoKHR) {
  VK_STRUCTURE_TYPE_VIDEO_SESSION_CREATE_INFO_KHR, NULL, (guint32) family,
        0, &profile, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, caps.maxCodedExtent,
        VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, caps.maxDpbSlots,
        caps.maxActiveReferencePictures, &caps.stdHeaderVersion};

  full = session_bytes (hwctx, hooked, &info);  /* no note: as asked */
  gst_avhw_vk_extent_note (hwctx->act_dev, H265, 1920, 1080);
  sized = session_bytes (hwctx, hooked, &info);
  g_print ("%s: an H.265 decode session for %ux%u needs %.1f MiB, for "
      "1920x1088 %.1f MiB\n", gst_avhw_device_get_name (dev),
      caps.maxCodedExtent.width, caps.maxCodedExtent.height,
      full / 1048576.0, sized / 1048576.0);
  fail_unless (full == session_bytes (hwctx, driver, &info),
      "without a note the wrapper changed the session");
  if (caps.maxCodedExtent.width > 1920 || caps.maxCodedExtent.height > 1088)
    fail_unless (sized < full, "the 1080p session needs no less memory");

done:
  av_buffer_unref (&mine);
  gst_object_unref (dev);
}

GST_END_TEST;

static Suite *
vkextent_suite (void)
{
  Suite *s = suite_create ("vkextent");
  TCase *tc = tcase_create ("general");

  GST_DEBUG_CATEGORY_INIT (vk_debug, "avhwvulkan-test", 0, "test");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_take);
  tcase_add_test (tc, test_note_is_the_threads);
  tcase_add_test (tc, test_prepare);
  tcase_add_test (tc, test_session_memory);
  return s;
}

GST_CHECK_MAIN (vkextent);
