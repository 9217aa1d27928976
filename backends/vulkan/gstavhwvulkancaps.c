/* gst-avhw: Vulkan backend, which codecs a device decodes in hardware
 *
 * FFmpeg builds a Vulkan hwaccel for a codec whether or not the device has
 * video queues: without this check lavapipe (no video at all) and NVIDIA
 * (no AV1 decode on the H200) were reported as decoding them, and the
 * autoplug decoders registered for them failed at the first frame.
 *
 * A device decodes a codec when it has all of
 *   - VK_KHR_video_queue and VK_KHR_video_decode_queue,
 *   - the codec's decode extension (VK_KHR_video_decode_h264...),
 *   - a queue family with VK_QUEUE_VIDEO_DECODE_BIT_KHR whose
 *     VkQueueFamilyVideoPropertiesKHR lists the codec's operation,
 *   - vkGetPhysicalDeviceVideoCapabilitiesKHR success for the codec's main
 *     profile at 8-bit 4:2:0 (H.264 High, else Main; H.265 Main; AV1 Main).
 * The 10-bit 4:2:0 profiles (H.265 Main 10, AV1 Main) and the maximum coded
 * size are recorded for gst-avhw-info; a 10-bit stream on a device without
 * them is refused by FFmpeg's hwaccel when it opens (avhwdec's get_format
 * then falls back to software or fails with fallback=false).
 *
 * Everything is asked once per process, for every physical device and
 * codec at once, on an instance of its own: no VkDevice is created.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <vulkan/vulkan.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavcodec/avcodec.h>

#include "gstavhwvulkanbackend.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

/* The codecs a Vulkan device may decode. AV1 decode structs exist only in
 * headers newer than Debian 12's 1.3.239: without them AV1 is never
 * claimed, and the reason says so. */
typedef enum
{
  AVHW_VK_H264,
  AVHW_VK_H265,
  AVHW_VK_AV1,
  AVHW_VK_N_CODECS
} AvhwVkCodec;

static const struct
{
  enum AVCodecID id;
  const gchar *extension;
  gboolean known;               /* this build's headers have its structs */
  VkVideoCodecOperationFlagsKHR op;
} vk_codecs[AVHW_VK_N_CODECS] = {
  [AVHW_VK_H264] = {AV_CODEC_ID_H264, "VK_KHR_video_decode_h264", TRUE,
      VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR},
  [AVHW_VK_H265] = {AV_CODEC_ID_HEVC, "VK_KHR_video_decode_h265", TRUE,
      VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR},
#ifdef VK_KHR_video_decode_av1
  [AVHW_VK_AV1] = {AV_CODEC_ID_AV1, "VK_KHR_video_decode_av1", TRUE,
      VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR},
#else
  [AVHW_VK_AV1] = {AV_CODEC_ID_AV1, "VK_KHR_video_decode_av1", FALSE, 0},
#endif
};

/* The profiles asked about, all 4:2:0, in order of preference per depth:
 * the first 8-bit one that the device takes decides. */
static const struct
{
  AvhwVkCodec codec;
  const gchar *name;
  gint std_profile;             /* StdVideo<Codec>Profile(Idc) */
  guint depth;
} vk_profiles[] = {
  {AVHW_VK_H264, "High", STD_VIDEO_H264_PROFILE_IDC_HIGH, 8},
  {AVHW_VK_H264, "Main", STD_VIDEO_H264_PROFILE_IDC_MAIN, 8},
  {AVHW_VK_H265, "Main", STD_VIDEO_H265_PROFILE_IDC_MAIN, 8},
  {AVHW_VK_H265, "Main 10", STD_VIDEO_H265_PROFILE_IDC_MAIN_10, 10},
#ifdef VK_KHR_video_decode_av1
  {AVHW_VK_AV1, "Main", STD_VIDEO_AV1_PROFILE_MAIN, 8},
  {AVHW_VK_AV1, "Main", STD_VIDEO_AV1_PROFILE_MAIN, 10},
#endif
};

/* What one device does for one codec. */
typedef struct
{
  gboolean extension;
  gboolean queue;               /* a decode queue family does its operation */
  VkResult result8;             /* the 8-bit query that decided */
  const gchar *profile8;        /* its profile's name */
  guint depths;                 /* bit (depth - 8): 4:2:0 profiles taken */
  VkExtent2D max_extent;        /* of the 8-bit profile */
  guint32 max_dpb_slots;        /* of the 8-bit profile */
  gboolean field_layout;        /* H.264: the 8-bit profile with fields
                                 * interleaved (what FFmpeg asks for them) */
} AvhwVkCodecCaps;

typedef struct
{
  gboolean decode_ext;          /* VK_KHR_video_queue + _decode_queue */
  gboolean decode_queue;        /* any VK_QUEUE_VIDEO_DECODE_BIT_KHR family */
  guint decode_queues;          /* the queues of the largest such family */
  VkVideoCodecOperationFlagsKHR queue_ops;      /* of those families */
  AvhwVkCodecCaps codecs[AVHW_VK_N_CODECS];
} AvhwVkDeviceCaps;

static GMutex caps_lock;
static GArray *caps_devices;    /* AvhwVkDeviceCaps, per device index */

static const gchar *
vk_result_name (VkResult res)
{
  switch (res) {
    case VK_SUCCESS:
      return "VK_SUCCESS";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
      return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR:
      return "VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR";
    case VK_ERROR_VIDEO_PICTURE_LAYOUT_NOT_SUPPORTED_KHR:
      return "VK_ERROR_VIDEO_PICTURE_LAYOUT_NOT_SUPPORTED_KHR";
    case VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR:
      return "VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR";
    case VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR:
      return "VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR";
    case VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR:
      return "VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR";
    case VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR:
      return "VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR";
    default:
      return NULL;
  }
}

static VkVideoComponentBitDepthFlagsKHR
vk_depth_flag (guint depth)
{
  switch (depth) {
    case 8:
      return VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR;
    case 10:
      return VK_VIDEO_COMPONENT_BIT_DEPTH_10_BIT_KHR;
    default:
      return VK_VIDEO_COMPONENT_BIT_DEPTH_12_BIT_KHR;
  }
}

/* vkGetPhysicalDeviceVideoCapabilitiesKHR for profile @p at 4:2:0, with
 * the decode and codec capability structs the call requires chained. */
/* Profile @p's capabilities into @out; @fields: H.264 with fields
 * interleaved in the picture (FFmpeg's layout for field-coded streams). */
static VkResult
vk_query_profile (PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR get_caps,
    VkPhysicalDevice dev, guint p, gboolean fields,
    VkVideoCapabilitiesKHR * out)
{
  VkVideoDecodeH264ProfileInfoKHR h264 = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_PROFILE_INFO_KHR,
    .stdProfileIdc = (StdVideoH264ProfileIdc) vk_profiles[p].std_profile,
    .pictureLayout = fields ?
        VK_VIDEO_DECODE_H264_PICTURE_LAYOUT_INTERLACED_INTERLEAVED_LINES_BIT_KHR
        : VK_VIDEO_DECODE_H264_PICTURE_LAYOUT_PROGRESSIVE_KHR,
  };
  VkVideoDecodeH264CapabilitiesKHR h264_caps = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_CAPABILITIES_KHR,
  };
  VkVideoDecodeH265ProfileInfoKHR h265 = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_PROFILE_INFO_KHR,
    .stdProfileIdc = (StdVideoH265ProfileIdc) vk_profiles[p].std_profile,
  };
  VkVideoDecodeH265CapabilitiesKHR h265_caps = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_CAPABILITIES_KHR,
  };
#ifdef VK_KHR_video_decode_av1
  VkVideoDecodeAV1ProfileInfoKHR av1 = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_AV1_PROFILE_INFO_KHR,
    .stdProfile = (StdVideoAV1Profile) vk_profiles[p].std_profile,
    .filmGrainSupport = VK_FALSE,
  };
  VkVideoDecodeAV1CapabilitiesKHR av1_caps = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_AV1_CAPABILITIES_KHR,
  };
#endif
  VkVideoDecodeCapabilitiesKHR decode_caps = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_CAPABILITIES_KHR,
  };
  VkVideoCapabilitiesKHR caps = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_CAPABILITIES_KHR,
    .pNext = &decode_caps,
  };
  VkVideoProfileInfoKHR profile = {
    .sType = VK_STRUCTURE_TYPE_VIDEO_PROFILE_INFO_KHR,
    .videoCodecOperation = (VkVideoCodecOperationFlagBitsKHR)
        vk_codecs[vk_profiles[p].codec].op,
    .chromaSubsampling = VK_VIDEO_CHROMA_SUBSAMPLING_420_BIT_KHR,
    .lumaBitDepth = vk_depth_flag (vk_profiles[p].depth),
    .chromaBitDepth = vk_depth_flag (vk_profiles[p].depth),
  };
  VkResult res;

  switch (vk_profiles[p].codec) {
    case AVHW_VK_H264:
      profile.pNext = &h264;
      decode_caps.pNext = &h264_caps;
      break;
    case AVHW_VK_H265:
      profile.pNext = &h265;
      decode_caps.pNext = &h265_caps;
      break;
#ifdef VK_KHR_video_decode_av1
    case AVHW_VK_AV1:
      profile.pNext = &av1;
      decode_caps.pNext = &av1_caps;
      break;
#endif
    default:
      return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  res = get_caps (dev, &profile, &caps);
  if (res == VK_SUCCESS)
    *out = caps;
  return res;
}

/* The device's decode queue families: whether any exists and the codec
 * operations they do together. */
static void
vk_query_queues (VkPhysicalDevice dev, AvhwVkDeviceCaps * dc)
{
  VkQueueFamilyProperties2 *props;
  VkQueueFamilyVideoPropertiesKHR *video;
  uint32_t n = 0, i;

  vkGetPhysicalDeviceQueueFamilyProperties2 (dev, &n, NULL);
  props = g_new0 (VkQueueFamilyProperties2, n);
  video = g_new0 (VkQueueFamilyVideoPropertiesKHR, n);
  for (i = 0; i < n; i++) {
    props[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2;
    props[i].pNext = &video[i];
    video[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_VIDEO_PROPERTIES_KHR;
  }
  vkGetPhysicalDeviceQueueFamilyProperties2 (dev, &n, props);
  for (i = 0; i < n; i++) {
    if (!(props[i].queueFamilyProperties.queueFlags &
            VK_QUEUE_VIDEO_DECODE_BIT_KHR))
      continue;
    dc->decode_queue = TRUE;
    dc->decode_queues = MAX (dc->decode_queues,
        props[i].queueFamilyProperties.queueCount);
    dc->queue_ops |= video[i].videoCodecOperations;
    GST_DEBUG ("queue family %u: %u video decode queue(s), operations 0x%x",
        i, props[i].queueFamilyProperties.queueCount,
        video[i].videoCodecOperations);
  }
  g_free (video);
  g_free (props);
}

static void
vk_query_codec (PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR get_caps,
    VkPhysicalDevice dev, GHashTable * exts, AvhwVkDeviceCaps * dc,
    AvhwVkCodec c)
{
  AvhwVkCodecCaps *cc = &dc->codecs[c];
  gboolean decided = FALSE;
  VkVideoCapabilitiesKHR vc;
  guint p;

  cc->extension = g_hash_table_contains (exts, vk_codecs[c].extension);
  cc->queue = (dc->queue_ops & vk_codecs[c].op) != 0;
  cc->result8 = VK_ERROR_FORMAT_NOT_SUPPORTED;
  if (!dc->decode_ext || !cc->extension || !cc->queue || !get_caps)
    return;
  for (p = 0; p < G_N_ELEMENTS (vk_profiles); p++) {
    VkResult res;

    if (vk_profiles[p].codec != c || (vk_profiles[p].depth == 8 && decided))
      continue;
    res = vk_query_profile (get_caps, dev, p, FALSE, &vc);
    GST_DEBUG ("%s %s %u-bit 4:2:0: %s (%d)", avcodec_get_name
        (vk_codecs[c].id), vk_profiles[p].name, vk_profiles[p].depth,
        vk_result_name (res), res);
    if (vk_profiles[p].depth == 8 && (res == VK_SUCCESS || !cc->profile8)) {
      cc->result8 = res;
      cc->profile8 = vk_profiles[p].name;
      decided = res == VK_SUCCESS;
      if (decided) {
        cc->max_extent = vc.maxCodedExtent;
        cc->max_dpb_slots = vc.maxDpbSlots;
        cc->field_layout = c == AVHW_VK_H264
            && vk_query_profile (get_caps, dev, p, TRUE, &vc) == VK_SUCCESS;
        GST_DEBUG ("%s %s: %u DPB slots, fields interleaved: %s",
            avcodec_get_name (vk_codecs[c].id), vk_profiles[p].name,
            cc->max_dpb_slots, cc->field_layout ? "yes" : "no");
      }
    }
    if (res == VK_SUCCESS)
      cc->depths |= 1u << (vk_profiles[p].depth - 8);
  }
}

/* caps_lock held: every device and codec, once. */
static void
vk_query_all_locked (void)
{
  PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR get_caps;
  VkInstance instance = vk_instance_get (NULL, NULL);
  VkPhysicalDevice *devs = NULL;
  uint32_t n = 0, i, j;
  guint c;

  caps_devices = g_array_new (FALSE, TRUE, sizeof (AvhwVkDeviceCaps));
  if (instance == VK_NULL_HANDLE)
    return;
  get_caps = (PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR)
      vkGetInstanceProcAddr (instance,
      "vkGetPhysicalDeviceVideoCapabilitiesKHR");
  if (vkEnumeratePhysicalDevices (instance, &n, NULL) == VK_SUCCESS && n > 0) {
    devs = g_new0 (VkPhysicalDevice, n);
    if (vkEnumeratePhysicalDevices (instance, &n, devs) < 0)
      n = 0;
  }
  g_array_set_size (caps_devices, n);
  for (i = 0; i < n; i++) {
    AvhwVkDeviceCaps *dc = &g_array_index (caps_devices, AvhwVkDeviceCaps, i);
    GHashTable *exts = g_hash_table_new_full (g_str_hash, g_str_equal,
        g_free, NULL);
    VkExtensionProperties *props = NULL;
    uint32_t m = 0;

    if (vkEnumerateDeviceExtensionProperties (devs[i], NULL, &m,
            NULL) == VK_SUCCESS && m > 0) {
      props = g_new0 (VkExtensionProperties, m);
      if (vkEnumerateDeviceExtensionProperties (devs[i], NULL, &m, props) < 0)
        m = 0;
      for (j = 0; j < m; j++)
        g_hash_table_add (exts, g_strdup (props[j].extensionName));
    }
    g_free (props);
    dc->decode_ext = g_hash_table_contains (exts, "VK_KHR_video_queue")
        && g_hash_table_contains (exts, "VK_KHR_video_decode_queue");
    /* VkQueueFamilyVideoPropertiesKHR is VK_KHR_video_queue's */
    if (dc->decode_ext)
      vk_query_queues (devs[i], dc);
    for (c = 0; c < AVHW_VK_N_CODECS; c++)
      vk_query_codec (get_caps, devs[i], exts, dc, c);
    g_hash_table_unref (exts);
  }
  g_free (devs);
}

static gboolean
vk_codec_of (enum AVCodecID id, AvhwVkCodec * c)
{
  guint i;

  for (i = 0; i < AVHW_VK_N_CODECS; i++) {
    if (vk_codecs[i].id == id) {
      *c = i;
      return TRUE;
    }
  }
  return FALSE;
}

/* A copy of what device @index does for @c (zeroes for an unknown index). */
static AvhwVkDeviceCaps
vk_device_caps (guint index)
{
  AvhwVkDeviceCaps dc = { 0, };

  g_mutex_lock (&caps_lock);
  if (!caps_devices)
    vk_query_all_locked ();
  if (index < caps_devices->len)
    dc = g_array_index (caps_devices, AvhwVkDeviceCaps, index);
  g_mutex_unlock (&caps_lock);
  return dc;
}

guint
vk_decode_queue_count (guint index)
{
  return vk_device_caps (index).decode_queues;
}

/* NULL when device @index decodes @id, else why not. */
static gchar *
vk_why_not (guint index, enum AVCodecID id)
{
  const gchar *name = avcodec_get_name (id), *res_name;
  AvhwVkDeviceCaps dc = vk_device_caps (index);
  AvhwVkCodecCaps *cc;
  AvhwVkCodec c;

  if (!vk_codec_of (id, &c))
    return g_strdup_printf ("this backend asks Vulkan Video about no %s "
        "decode profile", name);
  if (!vk_codecs[c].known)
    return g_strdup_printf ("the Vulkan headers this backend was built with "
        "(VK_HEADER_VERSION %d) have no %s: %s is not asked about",
        VK_HEADER_VERSION, vk_codecs[c].extension, name);
  cc = &dc.codecs[c];
  if (!dc.decode_ext)
    return g_strdup ("the device has no video decode queue "
        "(no VK_KHR_video_queue and VK_KHR_video_decode_queue)");
  if (!dc.decode_queue)
    return g_strdup ("the device has no video decode queue "
        "(no queue family with VK_QUEUE_VIDEO_DECODE_BIT_KHR)");
  if (!cc->extension)
    return g_strdup_printf ("the device does not decode %s (no %s)", name,
        vk_codecs[c].extension);
  if (!cc->queue)
    return g_strdup_printf ("no video decode queue family of the device "
        "does %s (videoCodecOperations 0x%x)", name, dc.queue_ops);
  if (cc->result8 != VK_SUCCESS) {
    res_name = vk_result_name (cc->result8);
    return g_strdup_printf ("the device does not decode %s %s 8-bit 4:2:0: "
        "vkGetPhysicalDeviceVideoCapabilitiesKHR returned %s (%d)", name,
        cc->profile8 ? cc->profile8 : "(no profile asked)",
        res_name ? res_name : "VkResult", cc->result8);
  }
  return NULL;
}

/* Field-coded H.264. FFmpeg's Vulkan hwaccel (up to 7.1, libavcodec 61)
 * picks the picture layout of its video session once, from the first
 * picture's field order, and gives fields of one frame the slot of the
 * frame; on the H200 (driver 580) such streams came out wrong (HCAFF1_HHI)
 * or failed a submission and then crashed or hung, ffmpeg -hwaccel vulkan
 * included (FRExt4_Panasonic, tests/gpu/results run 48). They are decoded
 * in software until a newer FFmpeg is measured. */
static gboolean
vk_decodes_field_coded (const AvhwVkDeviceCaps * dc, AvhwVkCodec c,
    gchar ** reason)
{
  if (c != AVHW_VK_H264)
    return TRUE;
  if (!dc->codecs[c].field_layout) {
    if (reason)
      *reason = g_strdup ("the device decodes no H.264 fields (no "
          "VK_VIDEO_DECODE_H264_PICTURE_LAYOUT_INTERLACED_INTERLEAVED_LINES "
          "profile)");
    return FALSE;
  }
  /* the FFmpeg in use, not the one built against */
  if (avcodec_version () < AV_VERSION_INT (62, 0, 0)) {
    unsigned v = avcodec_version ();

    if (reason)
      *reason = g_strdup_printf ("FFmpeg's Vulkan H.264 decoder (libavcodec "
          "%u.%u) decodes field-coded streams wrongly or fails on them",
          AV_VERSION_MAJOR (v), AV_VERSION_MINOR (v));
    return FALSE;
  }
  return TRUE;
}

/* Frame threads. Two faults of FFmpeg's Vulkan hwaccel with frame
 * threads, up to FFmpeg 7.1 (libavcodec 61):
 *
 * - H.264: the hwaccel keeps its video session parameters (the stream's
 *   SPS and PPS) per frame thread, and a thread takes the previous
 *   thread's at each packet only when that thread has some
 *   (ff_vk_update_thread_context()). A thread that has just read new
 *   parameter sets drops its own and makes new ones only after it has let
 *   the next thread start (ff_thread_finish_setup() comes before the
 *   hwaccel's start_frame): a next thread that looks in between keeps the
 *   parameters of the stream before and decodes with them. Same IDs, other
 *   contents (a kept decoder given the next clip) gave whole clips of wrong
 *   pictures with no error: once in 672 decodes on the H200 (issue 30).
 * - Both codecs: the hwaccel is marked thread-safe and async-safe, so
 *   FFmpeg runs the frame threads' end_frame calls at once; each locks its
 *   output frame, then its reference frames one by one
 *   (ff_vk_exec_add_dep_frame(), AVVulkanFramesContext.lock_frame), in
 *   reference-list order, and holds them to its submission. Two threads
 *   that need the same two frames in the other order wait for each other
 *   for ever: seven H.265 pipelines on vulkan in one process, the first
 *   with four frame threads, stalled on the H200 and on an H100 (runs 77
 *   and 79; the four threads' stacks in ff_vk_exec_add_dep_frame()'s
 *   lock, no thread in a Vulkan call). Nothing orders a thread's end_frame
 *   after its references' either (H.265 reports a frame's progress after
 *   end_frame, but with a hwaccel waits for none).
 *
 * So both codecs keep to one frame thread up to FFmpeg 7.1. Later FFmpeg
 * (libavcodec 62) is not checked and keeps what avhwdec asks. */
static guint
vk_decode_frame_threads (enum AVCodecID codec_id, gchar ** reason)
{
  unsigned v = avcodec_version ();      /* the FFmpeg in use */

  if (v >= AV_VERSION_INT (62, 0, 0) || (codec_id != AV_CODEC_ID_H264
          && codec_id != AV_CODEC_ID_HEVC))
    return 0;
  if (reason)
    *reason = g_strdup_printf ("FFmpeg's Vulkan %s decoder (libavcodec "
        "%u.%u) %s", avcodec_get_name (codec_id), AV_VERSION_MAJOR (v),
        AV_VERSION_MINOR (v), codec_id == AV_CODEC_ID_H264 ?
        "can hand a frame thread the parameter sets of the stream before, "
        "and its frame threads can wait on each other's frames for ever" :
        "frame threads can wait on each other's frames for ever");
  return 1;
}

/* What device @index decodes of @codec_id: the codec's 8-bit 4:2:0 profile
 * (else why not), its depths, largest size and picture slots, and what
 * FFmpeg's Vulkan decoder gets wrong on it (fields, frame threads). */
static void
vk_query_decoder (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, GstAvhwDecoderCaps * caps)
{
  gchar *why = vk_why_not (index, codec_id);
  AvhwVkDeviceCaps dc;
  AvhwVkCodecCaps *cc;
  AvhwVkCodec c = AVHW_VK_H264;

  GST_DEBUG ("vulkan:%u %s: %s", index, avcodec_get_name (codec_id),
      why ? why : "decodes");
  /* no reason: a profile was asked for the codec, so it has one */
  if (!why && !vk_codec_of (codec_id, &c))
    why = g_strdup ("no Vulkan Video codec");
  if (why) {
    caps->supported = FALSE;
    caps->reason = why;
    return;
  }
  dc = vk_device_caps (index);
  cc = &dc.codecs[c];
  caps->bit_depths = cc->depths;        /* bit (depth - 8), as the library's */
  caps->chroma = GST_AVHW_CHROMA_420;
  caps->max_width = cc->max_extent.width;
  caps->max_height = cc->max_extent.height;
  if (!caps->max_width || !caps->max_height)
    caps->max_width = caps->max_height = 0;
  caps->slots = cc->max_dpb_slots;
  /* H.264 answered by its second choice: a Main-only device */
  if (c == AVHW_VK_H264 && strcmp (cc->profile8, "High") != 0)
    caps->note = g_strdup_printf ("%s profile, not High", cc->profile8);
  caps->field_coded = vk_decodes_field_coded (&dc, c,
      &caps->field_coded_reason);
  caps->max_frame_threads = vk_decode_frame_threads (codec_id,
      &caps->frame_threads_reason);
}

void
vk_caps_class_init (GstAvhwBackendClass * bclass)
{
  bclass->query_decoder = vk_query_decoder;
}
