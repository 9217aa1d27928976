/* avhw-example-backend: a gst-avhw backend built outside gst-avhw
 *
 * What a vendor with its own FFmpeg fork writes: one GstAvhwBackend
 * subclass in its own plugin, built against the installed headers and
 * `pkg-config gstreamer-avhw-1.0`, found through GST_PLUGIN_PATH. Stock
 * avhwupload, avhwdownload and avhwdec then take `device=example`.
 *
 * To run anywhere, this example drives stock FFmpeg's vulkan hwcontext (on
 * lavapipe without a GPU) under its own name and caps feature; a vendor
 * names its fork's device type and pixel format instead ("myhw"), and
 * the names are resolved at run time, so nothing else changes. Its
 * enumeration uses the vendor SDK, here the Vulkan loader.
 *
 * Built for backend contract version 2: the backend contract and the calls
 * with FFmpeg types are in the implementer API, gst/avhw/gstavhw-impl.h
 * (applications include gst/avhw/gstavhw.h, which has none).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <vulkan/vulkan.h>
#include <gst/avhw/gstavhw-impl.h>

GST_DEBUG_CATEGORY_STATIC (example_debug);
#define GST_CAT_DEFAULT example_debug

/* The type name must be GstAvhw<Name>Backend: the library finds backends
 * by that name in the GStreamer registry. */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwExampleBackend;

typedef struct
{
  GstAvhwBackendClass parent_class;
} GstAvhwExampleBackendClass;

GType gst_avhw_example_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwExampleBackend, gst_avhw_example_backend,
    GST_TYPE_AVHW_BACKEND);

/* get_n_devices: cheap, and it must not create a device context. A Vulkan
 * instance creates no logical device; a vendor asks its driver or looks at
 * its device nodes. Listed once per process. */
#define EXAMPLE_MAX_DEVICES 16
static guint example_n_devices;
static gchar *example_reason;
/* per device, from the same listing: the largest image it makes */
static guint example_max_size[EXAMPLE_MAX_DEVICES];

static gpointer
example_list_devices (gpointer unused)
{
  VkApplicationInfo app = {
    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
    .pApplicationName = "avhw-example-backend",
    .apiVersion = VK_API_VERSION_1_1,
  };
  VkInstanceCreateInfo info = {
    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
    .pApplicationInfo = &app,
  };
  VkInstance instance;
  VkPhysicalDevice devices[EXAMPLE_MAX_DEVICES];
  uint32_t n = EXAMPLE_MAX_DEVICES, i;
  VkResult res;

  if (vkCreateInstance (&info, NULL, &instance) != VK_SUCCESS) {
    example_reason = g_strdup ("the example device driver (a Vulkan ICD) "
        "is not installed");
    return NULL;
  }
  res = vkEnumeratePhysicalDevices (instance, &n, devices);
  if (res != VK_SUCCESS && res != VK_INCOMPLETE)
    n = 0;
  for (i = 0; i < n; i++) {
    VkPhysicalDeviceProperties props;

    vkGetPhysicalDeviceProperties (devices[i], &props);
    example_max_size[i] = props.limits.maxImageDimension2D;
  }
  vkDestroyInstance (instance, NULL);
  example_n_devices = n;
  if (n == 0)
    example_reason = g_strdup ("the example driver reports no device");
  GST_INFO ("%u example device(s)", n);
  return NULL;
}

static guint
example_get_n_devices (GstAvhwBackend * backend, gchar ** reason)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, example_list_devices, NULL);
  if (example_n_devices == 0 && reason)
    *reason = g_strdup (example_reason);
  return example_n_devices;
}

/* get_decoders: the vendor's own codec candidates, first to last. A fork
 * registers wrapper decoders named h264_<vendor>dec; stock FFmpeg has none,
 * so here the list is empty and avhwdec decodes in software and uploads to
 * the device. Without this vfunc the library would list every decoder
 * whose hardware configuration names the device type. */
static void
example_get_decoders (GstAvhwBackend * backend, enum AVCodecID codec_id,
    GPtrArray * candidates)
{
  static const struct
  {
    enum AVCodecID id;
    const gchar *name;
  } decoders[] = {
    {AV_CODEC_ID_H264, "h264_exampledec"},
    {AV_CODEC_ID_HEVC, "hevc_exampledec"},
    {AV_CODEC_ID_AV1, "av1_exampledec"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (decoders); i++) {
    const AVCodec *codec;

    if (decoders[i].id != codec_id)
      continue;
    codec = avcodec_find_decoder_by_name (decoders[i].name);
    if (codec)
      g_ptr_array_add (candidates, (gpointer) codec);
    else
      GST_DEBUG ("this FFmpeg has no %s", decoders[i].name);
  }
}

/* query_decoder: what device @index decodes of @codec_id, in one answer
 * from the vendor's driver, asked once (here: the device listing above).
 * The library fills @caps first (decodes, nothing else known) and asks
 * only where get_decoders has candidates; a no sets supported FALSE and a
 * reason. Every limit comes with its reason (field_coded_reason,
 * frame_threads_reason): gst_avhw_decoder_caps_check() states the rules,
 * and the contract suite checks this answer against them. */
static void
example_query_decoder (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, GstAvhwDecoderCaps * caps)
{
  guint max = index < EXAMPLE_MAX_DEVICES ? example_max_size[index] : 0;

  if (codec_id != AV_CODEC_ID_H264 && codec_id != AV_CODEC_ID_HEVC
      && codec_id != AV_CODEC_ID_AV1) {
    caps->supported = FALSE;
    caps->reason = g_strdup_printf ("the example device has no %s decoder",
        avcodec_get_name (codec_id));
    return;
  }
  caps->bit_depths = GST_AVHW_BIT_DEPTH (8);
  if (codec_id != AV_CODEC_ID_H264)
    caps->bit_depths |= GST_AVHW_BIT_DEPTH (10);
  caps->chroma = GST_AVHW_CHROMA_420;
  caps->max_width = caps->max_height = max;
  caps->slots = 16;
  /* a fork's decoder that gets H.264 fields wrong says so */
  if (codec_id == AV_CODEC_ID_H264) {
    caps->field_coded = FALSE;
    caps->field_coded_reason = g_strdup ("the example decoder has no "
        "field pictures");
  }
}

static void
gst_avhw_example_backend_class_init (GstAvhwExampleBackendClass * klass)
{
  GstAvhwBackendClass *bclass = GST_AVHW_BACKEND_CLASS (klass);

  /* First: stamps the contract version this backend is built against. */
  gst_avhw_backend_class_init_contract (klass);
  GST_DEBUG_CATEGORY_INIT (example_debug, "avhwexample", 0,
      "out-of-tree example backend");

  bclass->name = "example";
  bclass->description = "Out-of-tree example: FFmpeg's vulkan hwcontext "
      "under its own name";
  /* FFmpeg's names, resolved at run time: a fork's own type works. */
  bclass->hw_device_type = "vulkan";
  bclass->hw_pix_fmt = "vulkan";
  bclass->caps_feature = "memory:AVHWExample";
  bclass->rank = GST_RANK_MARGINAL;
  bclass->get_n_devices = example_get_n_devices;
  bclass->get_decoders = example_get_decoders;
  bclass->query_decoder = example_query_decoder;
  /* The libavfilter filter that scales these frames on the device, for
   * avhwconvertscale; your fork: "scale_myhw". */
  bclass->scale_filter = "scale_vulkan";
  /* Left to the library's defaults: open_device (av_hwdevice_ctx_create
   * with device string "N"), upload, download (av_hwframe_transfer_data),
   * get_encoders (every encoder naming the device type), get_scale_formats
   * (each format scaled to itself, no conversion) and
   * get_scale_method_args (the filter's default interpolation only). */
}

static void
gst_avhw_example_backend_init (GstAvhwExampleBackend * self)
{
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* Rescan the registry when the driver changes (here: Vulkan ICDs). */
  gst_plugin_add_dependency_simple (plugin, "VK_ICD_FILENAMES:VK_DRIVER_FILES",
      "/usr/share/vulkan/icd.d:/etc/vulkan/icd.d", NULL,
      GST_PLUGIN_DEPENDENCY_FLAG_NONE);
  return gst_avhw_backend_register (plugin,
      gst_avhw_example_backend_get_type ());
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, avhwexample,
    "gst-avhw out-of-tree example backend", plugin_init, "0.1.0", "LGPL",
    "avhw-example-backend", "https://example.invalid/avhw-example-backend")
