/* gst-avhw tests: the vulkan backend shares GStreamer's VkDevice
 * (gst.vulkan.device) with GStreamer's vulkan elements.
 *
 * GStreamer's device comes from its own vulkanupload (context query on a
 * prerolled pipeline); its VkDevice is read from the public struct. Runs on
 * lavapipe. avhw memory (memory:AVHWVulkan) and GStreamer's
 * memory:VulkanImage are different caps features, so frames pass through
 * system memory between them: these tests check the shared device and
 * bit-exact frames, not zero-copy. They run on every stack: with FFmpeg 7.1
 * a download on GStreamer's VkDevice once gave frames of zeros (FFmpeg's
 * staging-buffer download copies the wrong way, see
 * gstavhwvulkandownload.c); test_gst_device_round_trips checks each format
 * for that with a destination that holds a mark beforehand.
 *
 * From GStreamer 1.24 and FFmpeg 7 (Debian 13) avhwdec on GStreamer's
 * VkDevice hands out memory:VulkanImage wrapping its AVVkFrames: the
 * export tests decode an x264enc clip through vulkandownload and check it
 * bit-exact against avhwdownload, the images wrapped and the one VkDevice.
 * Older stacks (GStreamer 1.22) leave those tests out and say why.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <libavutil/hwcontext_vulkan.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include "gstavhwvulkanqueues.h"
#include "gstavhwvulkanexport.h"
/* Struct layouts only: GST_VULKAN_* casts and calls would need linking. */
#include <gst/vulkan/vulkan.h>
#include "interop-common.c"

#define DEVICE_TYPE "gst.vulkan.device"
#define INSTANCE_TYPE "gst.vulkan.instance"
#define CAPS "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"
#define SRC "videotestsrc num-buffers=5 pattern=smpte ! " CAPS

/* GStreamer's own device and instance, made by its vulkanupload. */
static GstContext *gst_device_ctx, *gst_instance_ctx;

static GstVulkanDevice *
gst_device (GstContext * ctx)
{
  return (GstVulkanDevice *) interop_context_object (ctx, DEVICE_TYPE);
}

static AVVulkanDeviceContext *
vk_hwctx (GstAvhwDevice * device)
{
  return interop_device_ctx (device)->hwctx;
}

/* Mesa's Vulkan runtime (lavapipe 25.0, Debian 13) ends a submission on
 * its submit thread after signalling its fence: it still releases the
 * submission's timeline-semaphore points then. GStreamer 1.26 destroys
 * its images' semaphores as soon as the fence says done (vulkanupload's
 * pool, at NULL), so now and then, under load, that thread uses a freed
 * semaphore: a SIGSEGV in libvulkan_lvp.so (on a debug Mesa, the
 * assertion in vk_sync_timeline_point_install). It happens with no avhw
 * element in the pipeline (videotestsrc ! vulkanupload ! vulkandownload).
 * vkDeviceWaitIdle waits for that thread to finish, so every Vulkan device
 * of a pipeline here, GStreamer's and FFmpeg's, is drained before the
 * pipeline stops. Nothing submits then (EOS or preroll was reached). */
static void
drain_devices (GstElement * pipeline)
{
  GstIterator *it = gst_bin_iterate_elements (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;

  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    GstElementFactory *f = gst_element_get_factory (e);
    GstAvhwDevice *d = NULL;

    if (g_str_has_prefix (GST_OBJECT_NAME (f), "vulkan")) {
      GstPad *pad = gst_element_get_static_pad (e, "src");
      GstQuery *q = gst_query_new_context (DEVICE_TYPE);
      GstContext *ctx = NULL;

      if (pad && gst_pad_query (pad, q))
        gst_query_parse_context (q, &ctx);
      if (ctx)
        vkDeviceWaitIdle (gst_device (ctx)->device);
      gst_query_unref (q);
      gst_clear_object (&pad);
    } else if (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
            "active-device")) {
      g_object_get (e, "active-device", &d, NULL);
      if (d && interop_device_ctx (d)->type == AV_HWDEVICE_TYPE_VULKAN)
        vkDeviceWaitIdle (vk_hwctx (d)->act_dev);
      gst_clear_object (&d);
    }
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

static void
borrow_gst_device (void)
{
  GstElement *helper = interop_start_paused ("videotestsrc num-buffers=1 ! "
      CAPS " ! vulkanupload ! fakesink name=sink", NULL);

  gst_device_ctx = interop_query_upstream_of (helper, "sink", DEVICE_TYPE);
  gst_instance_ctx = interop_query_upstream_of (helper, "sink", INSTANCE_TYPE);
  fail_unless (gst_device_ctx && gst_instance_ctx,
      "vulkanupload does not answer " DEVICE_TYPE " / " INSTANCE_TYPE);
  /* The contexts keep the device and instance. */
  interop_stop (helper);
}

static void
setup (void)
{
  gst_avhw_cache_clear ();
  borrow_gst_device ();
}

static void
teardown (void)
{
  g_clear_pointer (&gst_device_ctx, gst_context_unref);
  g_clear_pointer (&gst_instance_ctx, gst_context_unref);
  gst_avhw_cache_clear ();
}

static gchar *
reference_hash (void)
{
  return interop_run_and_hash (SRC " ! appsink name=sink sync=false", NULL,
      NULL);
}

GST_START_TEST (test_declared)
{
  GstAvhwBackend *b = gst_avhw_backend_find ("vulkan", NULL);

  fail_unless (b != NULL);
  fail_unless_equals_string (gst_avhw_backend_get_foreign_context_type (b),
      DEVICE_TYPE);
  gst_object_unref (b);
}

GST_END_TEST;

/* The avhw device made from GStreamer's context is on its VkDevice, with
 * its instance and physical device; one GstVulkanDevice, one avhw device.
 * FFmpeg's graphics, compute and transfer queues are in a family GStreamer
 * created queues in (the first with compute). */
GST_START_TEST (test_wraps_gst_device)
{
  GstVulkanDevice *vk = gst_device (gst_device_ctx);
  GstAvhwDevice *a, *b, *c;
  AVVulkanDeviceContext *hw;
  GError *err = NULL;
  int n, family;

  a = gst_avhw_device_open_foreign (gst_device_ctx, "vulkan", &err);
  fail_unless (a != NULL, "%s", err ? err->message : "");
  hw = vk_hwctx (a);
  fail_unless (hw->act_dev == vk->device, "act_dev %p, GStreamer's %p",
      (gpointer) hw->act_dev, (gpointer) vk->device);
  fail_unless (hw->phys_dev == vk->physical_device->device);
  fail_unless (hw->inst == vk->instance->instance);
  fail_unless_equals_int (gst_avhw_device_get_index (a),
      vk->physical_device->device_index);
  family = gst_avhw_vk_find_queues (hw, VK_QUEUE_TRANSFER_BIT, &n);
  fail_unless (family >= 0 && n > 0);
  fail_unless (gst_avhw_vk_find_queues (hw, VK_QUEUE_COMPUTE_BIT, &n) ==
      family && n > 0);
  fail_unless (family < (int) vk->physical_device->n_queue_families);
  fail_unless (vk->physical_device->queue_family_props[family].queueFlags
      & VK_QUEUE_COMPUTE_BIT);
  /* lavapipe has no video queue: none is declared */
  if (!(vk->physical_device->queue_family_props[family].queueFlags
          & VK_QUEUE_VIDEO_DECODE_BIT_KHR)
      && vk->physical_device->n_queue_families == 1)
    fail_unless (gst_avhw_vk_find_queues (hw, VK_QUEUE_VIDEO_DECODE_BIT_KHR,
            &n) < 0);

  b = gst_avhw_device_open_foreign (gst_device_ctx, "vulkan:0", NULL);
  fail_unless (a == b, "one GstVulkanDevice must give one avhw device");
  c = gst_avhw_device_open_foreign (gst_device_ctx, "opencl", NULL);
  fail_unless (c == NULL, "a vulkan device does not match device=opencl");
  /* Our own device (FFmpeg's VkDevice) is another one. */
  c = gst_avhw_device_open ("vulkan", NULL, NULL);
  fail_unless (c != NULL && vk_hwctx (c)->act_dev != vk->device);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (c);
}

GST_END_TEST;

/* The device keeps GStreamer's device alive: frames made on it stay valid
 * after every GStreamer object let go. */
GST_START_TEST (test_keeps_gst_device_alive)
{
  GstAvhwDevice *dev;
  AVBufferRef *frames;
  AVFrame *hw = av_frame_alloc ();
  GObject *vk;
  GError *err = NULL;

  dev = gst_avhw_device_open_foreign (gst_device_ctx, "vulkan", &err);
  fail_unless (dev != NULL, "%s", err ? err->message : "");
  vk = g_object_ref (interop_context_object (gst_device_ctx, DEVICE_TYPE));
  frames = gst_avhw_device_get_frames_ctx (dev, AV_PIX_FMT_NV12, 64, 48, 0,
      &err);
  fail_unless (frames != NULL, "%s", err ? err->message : "");
  fail_unless (av_hwframe_get_buffer (frames, hw, 0) == 0);
  g_clear_pointer (&gst_device_ctx, gst_context_unref);
  g_clear_pointer (&gst_instance_ctx, gst_context_unref);
  gst_avhw_cache_clear ();
  gst_object_unref (dev);
  fail_unless (vk->ref_count > 1, "the frame's device context holds it");
  av_buffer_unref (&frames);
  av_frame_free (&hw);
  fail_unless_equals_int (vk->ref_count, 1);
  g_object_unref (vk);
}

GST_END_TEST;

/* The application hands GStreamer's device to a whole pipeline: the avhw
 * elements are made on it, and the vulkan elements upstream, which ask
 * their neighbours for a device, get that same device from avhwupload.
 * Frames stay bit-exact through vulkanupload/vulkandownload and
 * avhwupload/avhwdownload. */
GST_START_TEST (test_pipeline_shares_one_vkdevice)
{
  GstContext *ctxs[] = { gst_instance_ctx, gst_device_ctx, NULL };
  GstVulkanDevice *vk = gst_device (gst_device_ctx);
  GstAvhwDevice *up, *down;
  GstContext *asked;
  GstElement *p;
  gchar *ref = reference_hash (), *out;

  out = interop_run_and_hash (SRC " ! vulkanupload name=vup ! vulkandownload "
      "name=vdown ! " CAPS " ! avhwupload name=up device=vulkan ! "
      "avhwdownload name=down ! " CAPS " ! appsink name=sink sync=false",
      ctxs, &p);
  up = interop_active_device (p, "up");
  down = interop_active_device (p, "down");
  fail_unless (up == down);
  fail_unless (vk_hwctx (up)->act_dev == vk->device,
      "avhwupload's act_dev %p is not GStreamer's VkDevice %p",
      (gpointer) vk_hwctx (up)->act_dev, (gpointer) vk->device);
  /* What vulkandownload (upstream of avhwupload) and vulkanupload use. */
  asked = interop_query_upstream_of (p, "up", DEVICE_TYPE);
  fail_unless (asked != NULL);
  fail_unless (gst_device (asked) == vk, "vulkandownload has another device");
  gst_context_unref (asked);
  asked = interop_query_upstream_of (p, "vdown", DEVICE_TYPE);
  fail_unless (asked != NULL && gst_device (asked) == vk,
      "vulkanupload has another device");
  gst_context_unref (asked);
  gst_object_unref (up);
  gst_object_unref (down);
  interop_stop (p);
  fail_unless_equals_string (out, ref);
  g_free (ref);
  g_free (out);
}

GST_END_TEST;

/* A software frame of @format, @w x @h, every byte set from @seed and its
 * position (bytes past the visible width too: they must not matter). */
static AVFrame *
pattern_frame (enum AVPixelFormat format, int w, int h, int seed)
{
  AVFrame *f = av_frame_alloc ();
  int p, i;

  f->format = format;
  f->width = w;
  f->height = h;
  fail_unless (av_frame_get_buffer (f, 0) == 0);
  for (p = 0; p < 4 && f->buf[p]; p++) {
    for (i = 0; i < (int) f->buf[p]->size; i++)
      f->buf[p]->data[i] = (uint8_t) (seed + i * 7 + p * 31);
  }
  return f;
}

/* Whether the visible bytes of @a and @b are equal. */
static gboolean
frames_equal (const AVFrame * a, const AVFrame * b)
{
  const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get (a->format);
  int bytes[4], p, row;

  fail_unless (av_image_fill_linesizes (bytes, a->format, a->width) >= 0);
  for (p = 0; p < av_pix_fmt_count_planes (a->format); p++) {
    int rows = (p == 1 || p == 2) ? AV_CEIL_RSHIFT (a->height,
        desc->log2_chroma_h) : a->height;

    for (row = 0; row < rows; row++) {
      if (memcmp (a->data[p] + row * a->linesize[p],
              b->data[p] + row * b->linesize[p], bytes[p]))
        return FALSE;
    }
  }
  return TRUE;
}

/* Frames go up to and back from GStreamer's VkDevice unchanged, in every
 * layout FFmpeg's vulkan frames take (one multi-plane image, one image per
 * plane, 16-bit, packed), into a frame that held other bytes before and
 * into one without planes. FFmpeg 7.1's own download on that device left
 * the destination as it was. */
GST_START_TEST (test_gst_device_round_trips)
{
  static const enum AVPixelFormat formats[] = { AV_PIX_FMT_NV12,
    AV_PIX_FMT_YUV420P, AV_PIX_FMT_P010LE, AV_PIX_FMT_YUV444P,
    AV_PIX_FMT_RGBA, AV_PIX_FMT_GRAY8,
  };
  GstAvhwBackend *b = gst_avhw_backend_find ("vulkan", NULL);
  GstAvhwDevice *dev;
  GError *err = NULL;
  guint i, tried = 0;

  dev = gst_avhw_device_open_foreign (gst_device_ctx, "vulkan", &err);
  fail_unless (dev != NULL, "%s", err ? err->message : "");
  fail_unless (vk_hwctx (dev)->act_dev == gst_device (gst_device_ctx)->device);
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    const gchar *name = av_get_pix_fmt_name (formats[i]);
    AVBufferRef *frames;
    AVFrame *src, *hw, *back, *fresh;

    frames = gst_avhw_device_get_frames_ctx (dev, formats[i], 64, 48, 0, &err);
    fail_unless (frames != NULL || formats[i] != AV_PIX_FMT_NV12,
        "no NV12 frames on GStreamer's device: %s", err ? err->message : "");
    if (!frames) {
      /* Not every driver holds every format. */
      GST_INFO ("%s: %s", name, err->message);
      g_clear_error (&err);
      continue;
    }
    tried++;
    src = pattern_frame (formats[i], 64, 48, 1 + i);
    back = pattern_frame (formats[i], 64, 48, 100 + i);
    fresh = av_frame_alloc ();
    hw = av_frame_alloc ();
    fail_unless (av_hwframe_get_buffer (frames, hw, 0) == 0);
    fail_unless (gst_avhw_backend_upload (b, hw, src, &err), "%s: %s", name,
        err ? err->message : "");
    fail_unless (gst_avhw_backend_download (b, back, hw, &err), "%s: %s",
        name, err ? err->message : "");
    fail_unless (frames_equal (src, back), "%s: the downloaded frame is "
        "not the uploaded one", name);
    fail_unless (gst_avhw_backend_download (b, fresh, hw, &err), "%s: %s",
        name, err ? err->message : "");
    fail_unless_equals_int (fresh->format, formats[i]);
    fail_unless (frames_equal (src, fresh), "%s: the frame downloaded "
        "without planes is not the uploaded one", name);
    av_frame_free (&src);
    av_frame_free (&back);
    av_frame_free (&fresh);
    av_frame_free (&hw);
    av_buffer_unref (&frames);
  }
  fail_unless (tried > 0);
  gst_object_unref (dev);
  gst_object_unref (b);
}

GST_END_TEST;

/* The other way round: avhw elements first, GStreamer's after them, with
 * the application's contexts; one VkDevice for all, frames bit-exact. */
GST_START_TEST (test_pipeline_avhw_then_gst_one_vkdevice)
{
  GstContext *ctxs[] = { gst_instance_ctx, gst_device_ctx, NULL };
  GstVulkanDevice *vk = gst_device (gst_device_ctx);
  GstAvhwDevice *up;
  GstContext *asked;
  GstElement *p;
  gchar *ref = reference_hash (), *out;

  out = interop_run_and_hash (SRC " ! avhwupload name=up device=vulkan ! "
      "avhwdownload name=down ! vulkanupload name=vup ! vulkandownload "
      "name=vdown ! " CAPS " ! appsink name=sink sync=false", ctxs, &p);
  up = interop_active_device (p, "up");
  fail_unless (vk_hwctx (up)->act_dev == vk->device,
      "avhwupload's act_dev %p is not GStreamer's VkDevice %p",
      (gpointer) vk_hwctx (up)->act_dev, (gpointer) vk->device);
  /* vulkanupload (upstream of vulkandownload) answers with its device */
  asked = interop_query_upstream_of (p, "vdown", DEVICE_TYPE);
  fail_unless (asked != NULL && gst_device (asked) == vk,
      "vulkanupload has another device");
  gst_context_unref (asked);
  gst_object_unref (up);
  interop_stop (p);
  fail_unless_equals_string (out, ref);
  g_free (ref);
  g_free (out);
}

GST_END_TEST;

/* The avhw device made on GStreamer's device answers gst.vulkan.device
 * queries with it; a device FFmpeg made does not answer (GStreamer 1.22
 * cannot wrap a VkDevice it did not create). */
GST_START_TEST (test_answers_only_for_gst_devices)
{
  GstContext *ctxs[] = { gst_device_ctx, NULL };
  GstElement *p;
  GstContext *answer;

  p = interop_start_paused ("videotestsrc num-buffers=1 ! " CAPS
      " ! avhwupload device=vulkan ! fakesink name=sink", ctxs);
  answer = interop_query_upstream_of (p, "sink", DEVICE_TYPE);
  fail_unless (answer != NULL);
  fail_unless (gst_device (answer) == gst_device (gst_device_ctx));
  gst_context_unref (answer);
  interop_stop (p);

  gst_avhw_cache_clear ();
  p = interop_start_paused ("videotestsrc num-buffers=1 ! " CAPS
      " ! avhwupload device=vulkan ! fakesink name=sink", NULL);
  answer = interop_query_upstream_of (p, "sink", DEVICE_TYPE);
  fail_unless (answer == NULL, "answered with a device GStreamer did not "
      "make");
  interop_stop (p);
}

GST_END_TEST;

/* Without help from the application the two kinds of elements keep their
 * own devices (GStreamer's elements find theirs at READY->PAUSED, after
 * avhw elements took one at NULL->READY); frames are still right. */
GST_START_TEST (test_unshared_pipelines_still_exact)
{
  gchar *ref = reference_hash (), *a, *b;

  a = interop_run_and_hash (SRC " ! vulkanupload ! vulkandownload ! " CAPS
      " ! avhwupload device=vulkan ! avhwdownload ! " CAPS
      " ! appsink name=sink sync=false", NULL, NULL);
  b = interop_run_and_hash (SRC " ! avhwupload device=vulkan ! avhwdownload "
      "! vulkanupload ! vulkandownload ! " CAPS
      " ! appsink name=sink sync=false", NULL, NULL);
  fail_unless_equals_string (a, ref);
  fail_unless_equals_string (b, ref);
  g_free (ref);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

GST_START_TEST (test_empty_context_refused)
{
  GstContext *ctx = gst_context_new (DEVICE_TYPE, TRUE);
  GError *err = NULL;

  fail_unless (gst_avhw_device_open_foreign (ctx, "vulkan", &err) == NULL);
  fail_unless (err != NULL);
  GST_INFO ("refused: %s", err->message);
  g_clear_error (&err);
  gst_context_unref (ctx);
}

GST_END_TEST;


/* Whether this build wraps decoded frames into memory:VulkanImage (the
 * backend's VK_CAN_EXPORT). */
#define CAN_EXPORT (GST_CHECK_VERSION (1, 24, 0) \
    && LIBAVUTIL_VERSION_MAJOR >= 59)
/* and the other way (a device copy: FFmpeg 7.1's frame locks and queues) */
#define CAN_IMPORT (CAN_EXPORT && GST_AVHW_VK_QUEUE_LIST)

/* The caps feature on @element's sink pad now. */
G_GNUC_UNUSED static gboolean
sink_caps_have (GstElement * pipeline, const gchar * name,
    const gchar * feature)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean has = caps && gst_caps_features_contains (gst_caps_get_features
      (caps, 0), feature);

  GST_INFO ("%s sink: %" GST_PTR_FORMAT, name, caps);
  gst_clear_caps (&caps);
  gst_object_unref (pad);
  gst_object_unref (e);
  return has;
}

/* The feature is offered only for GStreamer's device and formats it wraps;
 * never for a VkDevice FFmpeg made. */
GST_START_TEST (test_exports_only_gst_devices)
{
  GstAvhwBackend *b = gst_avhw_backend_find ("vulkan", NULL);
  GstAvhwDevice *shared, *own;
  gchar *why = NULL;

  shared = gst_avhw_device_open_foreign (gst_device_ctx, "vulkan", NULL);
  own = gst_avhw_device_open ("vulkan", NULL, NULL);
  fail_unless (shared && own && shared != own);
  fail_if (gst_avhw_backend_device_exports_foreign (b, own, AV_PIX_FMT_NV12,
          &why), "offered on FFmpeg's own VkDevice");
  fail_unless (why != NULL);
  GST_INFO ("own device: %s", why);
  g_clear_pointer (&why, g_free);
  if (CAN_EXPORT) {
    fail_unless_equals_string (gst_avhw_backend_get_foreign_memory_feature
        (b), "memory:VulkanImage");
    fail_unless (gst_avhw_backend_device_exports_foreign (b, shared,
            AV_PIX_FMT_NV12, NULL));
    fail_unless (gst_avhw_backend_device_exports_foreign (b, shared,
            AV_PIX_FMT_YUV420P, NULL));
    fail_if (gst_avhw_backend_device_exports_foreign (b, shared,
            AV_PIX_FMT_BGRA, &why), "BGRA is not wrapped");
    g_clear_pointer (&why, g_free);
  } else {
    /* GStreamer 1.22: no feature at all, so nothing is negotiated */
    fail_unless (gst_avhw_backend_get_foreign_memory_feature (b) == NULL);
    fail_if (gst_avhw_backend_device_exports_foreign (b, shared,
            AV_PIX_FMT_NV12, NULL));
  }
  /* avhwupload takes memory:VulkanImage on GStreamer's device only */
  fail_if (gst_avhw_backend_device_imports_foreign (b, own),
      "FFmpeg's own VkDevice cannot copy GStreamer's images");
  if (CAN_IMPORT) {
    fail_unless_equals_string (gst_avhw_backend_get_foreign_input_feature
        (b), "memory:VulkanImage");
    fail_unless (gst_avhw_backend_device_imports_foreign (b, shared));
  } else {
    fail_unless (gst_avhw_backend_get_foreign_input_feature (b) == NULL);
    fail_if (gst_avhw_backend_device_imports_foreign (b, shared));
  }
  gst_object_unref (shared);
  gst_object_unref (own);
  gst_object_unref (b);
}

GST_END_TEST;

#if CAN_IMPORT
/* GStreamer's images into avhw frames on the device: vulkanupload !
 * avhwupload negotiates memory:VulkanImage on the application's shared
 * device, or on one made for the pair when there is none, and the frames
 * are bit-exact through avhwdownload. (FFmpeg's own VkDevice does not
 * take them: test_exports_only_gst_devices.) */
GST_START_TEST (test_vulkanimage_into_avhwupload)
{
  GstContext *ctxs[] = { gst_instance_ctx, gst_device_ctx, NULL };
  const gchar *tail = " ! avhwupload name=up device=vulkan ! avhwdownload ! "
      CAPS " ! appsink name=sink sync=false";
  gchar *ref = reference_hash (), *desc, *out;
  GstElement *p;

  desc = g_strconcat (SRC " ! vulkanupload", tail, NULL);
  out = interop_run_and_hash (desc, ctxs, &p);
  fail_unless (sink_caps_have (p, "up", "memory:VulkanImage"),
      "avhwupload did not take GStreamer's images");
  interop_stop (p);
  fail_unless_equals_string (out, ref);
  g_free (out);
  g_free (desc);

  /* another size and picture (the copy's extents are the frame's, not
   * the images') */
  desc = g_strdup ("videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=NV12,width=80,height=50 ! vulkanupload ! "
      "avhwupload name=up device=vulkan ! avhwdownload ! "
      "video/x-raw,format=NV12 ! appsink name=sink sync=false");
  g_free (ref);
  ref = interop_run_and_hash ("videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=NV12,width=80,height=50 ! appsink name=sink "
      "sync=false", NULL, NULL);
  out = interop_run_and_hash (desc, ctxs, &p);
  fail_unless (sink_caps_have (p, "up", "memory:VulkanImage"));
  interop_stop (p);
  fail_unless_equals_string (out, ref);
  g_free (out);
  g_free (desc);
  g_free (ref);

  /* Without the application's device, as gst-launch-1.0 runs it:
   * avhwupload sees an upstream neighbour that gives only its own memory,
   * has GStreamer make the device and shares it (vulkanupload asks it
   * later), so the images are still taken on the device. */
  desc = g_strconcat (SRC " ! vulkanupload name=vup", tail, NULL);
  ref = reference_hash ();
  out = interop_run_and_hash (desc, NULL, &p);
  fail_unless (sink_caps_have (p, "up", "memory:VulkanImage"));
  {
    GstAvhwDevice *up = interop_active_device (p, "up");
    GstContext *asked = interop_query_upstream_of (p, "up", DEVICE_TYPE);

    fail_unless (asked != NULL, "vulkanupload has no device");
    fail_unless (vk_hwctx (up)->act_dev == gst_device (asked)->device,
        "avhwupload and vulkanupload are on different VkDevices");
    gst_context_unref (asked);
    gst_object_unref (up);
  }
  interop_stop (p);
  fail_unless_equals_string (out, ref);
  g_free (out);
  g_free (ref);
  g_free (desc);
}

GST_END_TEST;
#endif

#if GST_CHECK_VERSION (1, 24, 0) && LIBAVUTIL_VERSION_MAJOR >= 59
static gchar *clip;

/* What the pad probe on vulkandownload's sink saw. */
typedef struct
{
  GstVulkanDevice *vk, *mem_device;
  GstPad *pad;
  guint buffers, wrapped, images;
  gchar *problem;
} Seen;

static GstPadProbeReturn
check_wrapped (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Seen *seen = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint i, n = gst_buffer_n_memory (buf);

  seen->buffers++;
  for (i = 0; i < n; i++) {
    GstMemory *m = gst_buffer_peek_memory (buf, i);
    GstVulkanImageMemory *mem = (GstVulkanImageMemory *) m;
    GstAvhwVkExported *e;
    AVVkFrame *vkf;

    if (g_strcmp0 (m->allocator->mem_type, "VulkanImage") != 0) {
      seen->problem = g_strdup_printf ("memory %u is %s", i,
          m->allocator->mem_type);
      continue;
    }
    if (!mem->wrapped || !mem->user_data) {
      seen->problem = g_strdup ("an image GStreamer allocated: a copy");
      continue;
    }
    e = mem->user_data;
    vkf = (AVVkFrame *) e->frame->data[0];
    seen->mem_device = mem->device;
    if (mem->image != vkf->img[i] || (seen->vk && mem->device != seen->vk)) {
      seen->problem = g_strdup_printf ("memory %u wraps VkImage %p, the "
          "AVVkFrame has %p", i, (gpointer) mem->image, (gpointer) vkf->img[i]);
      continue;
    }
    if (((AVVulkanDeviceContext *) ((AVHWFramesContext *)
                e->frame->hw_frames_ctx->data)->device_ctx->hwctx)->act_dev
        != mem->device->device)
      seen->problem = g_strdup ("the frame is not on GStreamer's VkDevice");
    seen->images++;
    if (i == 0)
      seen->wrapped++;
  }
  return GST_PAD_PROBE_OK;
}

static void
probe_vdown (GstElement * pipeline, gpointer data)
{
  Seen *seen = data;
  GstElement *down = gst_bin_get_by_name (GST_BIN (pipeline), "vdown");

  seen->pad = gst_element_get_static_pad (down, "sink");
  gst_pad_add_probe (seen->pad, GST_PAD_PROBE_TYPE_BUFFER, check_wrapped,
      seen, NULL);
  gst_object_unref (down);
}

/* The GstVulkanQueue in a gst.vulkan.queue context, or NULL. */
static GstVulkanQueue *
queue_of (GstContext * ctx)
{
  return ctx ? (GstVulkanQueue *) interop_context_object (ctx,
      GST_VULKAN_QUEUE_CONTEXT_TYPE_STR) : NULL;
}

/* Decodes the clip through avhwdec @caps_filter vulkandownload with
 * @contexts set on the pipeline: bit-exact against avhwdec ! avhwdownload
 * (videoconvert after each download: a hardware decoder gives NV12 where
 * software gives I420),
 * every buffer wraps the decoder's AVVkFrame images (no copy), and one
 * VkDevice: avhwdec's act_dev is vulkandownload's, and @vk's when given.
 * vulkandownload submits on the GstVulkanQueue object avhwdec answers
 * gst.vulkan.queue with, whose submit lock FFmpeg's lock_queue takes. */
static void
check_dec_into_vulkandownload (const gchar * caps_filter,
    GstContext ** contexts, GstVulkanDevice * vk)
{
  GstContext *down_q, *dec_q;
  GstElement *dec;
  GstPad *dec_pad;
  GstQuery *query;
  Seen seen = { vk, NULL, NULL, 0, 0, 0, NULL };
  GstElement *p;
  GstAvhwDevice *dev;
  GstContext *asked;
  GstVulkanDevice *down_vk;
  gchar *desc, *ref, *out;

  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec "
      "device=vulkan ! avhwdownload ! videoconvert ! video/x-raw,format=I420 ! "
      "appsink name=sink sync=false", clip);
  ref = interop_run_and_hash (desc, NULL, NULL);
  g_free (desc);

  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! avhwdec "
      "name=dec device=vulkan ! %s vulkandownload name=vdown ! videoconvert ! "
      "video/x-raw,format=I420 ! appsink name=sink sync=false", clip,
      caps_filter);
  out = interop_run_and_hash_full (desc, contexts, &p, probe_vdown, &seen);
  /* What vulkandownload uses */
  asked = interop_query_upstream_of (p, "sink", DEVICE_TYPE);
  fail_unless (asked != NULL, "vulkandownload has no device");
  down_vk = gst_device (asked);
  fail_unless (!vk || down_vk == vk, "vulkandownload has another device");
  dev = interop_active_device (p, "dec");
  fail_unless (vk_hwctx (dev)->act_dev == down_vk->device,
      "avhwdec's act_dev %p is not vulkandownload's VkDevice %p",
      (gpointer) vk_hwctx (dev)->act_dev, (gpointer) down_vk->device);
  fail_unless (seen.problem == NULL, "%s", seen.problem);
  fail_unless (seen.mem_device == down_vk, "the memory names another "
      "GstVulkanDevice than vulkandownload's");
  fail_unless (seen.buffers > 0 && seen.wrapped == seen.buffers,
      "%u of %u buffers wrap AVVkFrames", seen.wrapped, seen.buffers);
  GST_INFO ("%u buffers, %u VkImages wrapped", seen.buffers, seen.images);
  fail_unless (sink_caps_have (p, "vdown", "memory:VulkanImage"),
      "vulkandownload does not take memory:VulkanImage");
  /* one queue object, so one lock, for FFmpeg and vulkandownload */
  down_q = interop_query_upstream_of (p, "sink",
      GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
  dec = gst_bin_get_by_name (GST_BIN (p), "dec");
  query = gst_query_new_context (GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
  /* avhwdec's own answer (an element query would reach vulkandownload) */
  dec_pad = gst_element_get_static_pad (dec, "src");
  fail_unless (gst_pad_query (dec_pad, query), "avhwdec does not answer "
      GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
  gst_object_unref (dec_pad);
  gst_query_parse_context (query, &dec_q);
  {
    GstVulkanQueue *a = queue_of (down_q), *b = queue_of (dec_q);

    fail_unless (a != NULL && a == b, "vulkandownload submits on queue %p, "
        "avhwdec's (FFmpeg's lock) is %p", a, b);
  }
  gst_query_unref (query);
  gst_context_unref (down_q);
  gst_object_unref (dec);
  gst_context_unref (asked);
  gst_object_unref (dev);
  gst_object_unref (seen.pad);
  interop_stop (p);
  fail_unless_equals_string (out, ref);
  g_free (desc);
  g_free (ref);
  g_free (out);
}

/* The application shares GStreamer's VkDevice (gst.vulkan.device on the
 * pipeline). */
GST_START_TEST (test_dec_into_vulkandownload)
{
  GstContext *ctxs[] = { gst_instance_ctx, gst_device_ctx, NULL };

  check_dec_into_vulkandownload ("video/x-raw(memory:VulkanImage) !", ctxs,
      gst_device (gst_device_ctx));
}

GST_END_TEST;

/* No application code: avhwdec sees vulkandownload downstream, opens its
 * device on a GstVulkanDevice it has GStreamer make, and vulkandownload
 * gets that device when it asks (gst-launch-1.0 ... avhwdec device=vulkan
 * ! vulkandownload ! ...). */
GST_START_TEST (test_dec_into_vulkandownload_alone)
{
  check_dec_into_vulkandownload ("", NULL, NULL);
}

GST_END_TEST;

/* A queue element between them: vulkandownload submits from another
 * thread than FFmpeg, on the same VkQueue; both take one lock (this hung
 * on NVIDIA's driver before, run 39). */
GST_START_TEST (test_dec_queue_vulkandownload)
{
  check_dec_into_vulkandownload ("queue !", NULL, NULL);
}

GST_END_TEST;

/* Makes the H.264 clip the export tests decode (320x240: NVIDIA's Vulkan
 * Video decodes nothing as small as 64x48, and avhwdec would fall back to
 * software); FALSE (and why) when this GStreamer cannot. */
static gboolean
make_clip (void)
{
  GstElementFactory *x264 = gst_element_factory_find ("x264enc");
  gchar *tmp, *desc;
  GstElement *p;
  GstMessage *msg;
  gboolean ok;

  if (!x264) {
    g_print ("export tests left out: they need x264enc (gst-plugins-ugly) "
        "to make a clip\n");
    return FALSE;
  }
  gst_object_unref (x264);
  tmp = g_dir_make_tmp ("avhw-interop-vulkan-XXXXXX", NULL);
  clip = g_build_filename (tmp, "clip.h264", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=10 pattern=smpte ! "
      "video/x-raw,format=I420,width=320,height=240 ! x264enc "
      "speed-preset=ultrafast ! h264parse ! video/x-h264,stream-format="
      "byte-stream ! filesink location=%s", clip);
  p = gst_parse_launch (desc, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok) {
    GError *err = NULL;

    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &err, NULL);
    /* not fail(): the suite is not running yet */
    g_printerr ("could not make the clip: %s\n", err ? err->message :
        "timed out");
    g_clear_error (&err);
    exit (1);
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_free (tmp);
  return ok;
}
#endif

static Suite *
interop_vulkan_suite (void)
{
  Suite *s = suite_create ("avhw-interop-vulkan");
  TCase *tc = tcase_create ("general");
  GstElementFactory *f = gst_element_factory_find ("vulkanupload");

  avhw_test_require_device ("vulkan");
  if (!f) {
    g_print ("SKIP: GStreamer's vulkanupload is not installed "
        "(gstreamer1.0-plugins-bad)\n");
    exit (77);
  }
  gst_object_unref (f);
  interop_before_stop = drain_devices;
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_declared);
  tcase_add_test (tc, test_wraps_gst_device);
  tcase_add_test (tc, test_keeps_gst_device_alive);
  tcase_add_test (tc, test_gst_device_round_trips);
  tcase_add_test (tc, test_pipeline_shares_one_vkdevice);
  tcase_add_test (tc, test_pipeline_avhw_then_gst_one_vkdevice);
  tcase_add_test (tc, test_answers_only_for_gst_devices);
  tcase_add_test (tc, test_unshared_pipelines_still_exact);
  tcase_add_test (tc, test_empty_context_refused);
  tcase_add_test (tc, test_exports_only_gst_devices);
#if CAN_IMPORT
  tcase_add_test (tc, test_vulkanimage_into_avhwupload);
#else
  g_print ("test_vulkanimage_into_avhwupload left out: avhwupload takes "
      "memory:VulkanImage from GStreamer 1.24 and FFmpeg 7.1 (built with "
      "GStreamer %d.%d, libavutil %d)\n", GST_VERSION_MAJOR,
      GST_VERSION_MINOR, LIBAVUTIL_VERSION_MAJOR);
#endif
#if GST_CHECK_VERSION (1, 24, 0) && LIBAVUTIL_VERSION_MAJOR >= 59
  if (make_clip ()) {
    tcase_add_test (tc, test_dec_into_vulkandownload);
    tcase_add_test (tc, test_dec_into_vulkandownload_alone);
    tcase_add_test (tc, test_dec_queue_vulkandownload);
  }
#else
  g_print
      ("test_dec_into_vulkandownload(_alone) left out: avhwdec wraps frames "
      "into memory:VulkanImage from GStreamer 1.24 and FFmpeg 7 (built with "
      "GStreamer %d.%d, libavutil %d)\n", GST_VERSION_MAJOR, GST_VERSION_MINOR,
      LIBAVUTIL_VERSION_MAJOR);
#endif
  return s;
}

GST_CHECK_MAIN (interop_vulkan);
