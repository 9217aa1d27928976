/* gst-avhw: avhwdownload
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-avhwdownload
 * @title: avhwdownload
 *
 * Downloads frames in avhw device memory into system memory, in the same
 * software format. Any avhw device memory is accepted: each frame carries
 * its own frames context. Passthrough for system memory.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,format=NV12 ! avhwupload ! avhwdownload ! videoconvert ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwdownload.h"
#include "gstavhwcapsutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_avhw_download_debug);
#define GST_CAT_DEFAULT gst_avhw_download_debug

struct _GstAvhwDownload
{
  GstAvhwBaseTransform parent;

  GstVideoInfo out_info;
};

G_DEFINE_TYPE (GstAvhwDownload, gst_avhw_download,
    GST_TYPE_AVHW_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (avhwdownload, "avhwdownload", GST_RANK_NONE,
    GST_TYPE_AVHW_DOWNLOAD);


#define DEVICE(s) gst_avhw_base_transform_get_device (GST_AVHW_BASE_TRANSFORM (s))

static GstCaps *
gst_avhw_download_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstAvhwDevice *device = DEVICE (trans);
  GstCaps *res;

  if (direction == GST_PAD_SRC) {
    /* Every frame carries its own frames context, so any avhw device
     * memory downloads, whichever device this element opened. */
    res = gst_caps_merge (gst_avhw_caps_with_features (caps, NULL),
        gst_caps_ref (caps));
  } else if (device) {
    /* device memory in -> system memory out, or passthrough */
    res = gst_avhw_caps_switch_memory (device, caps, FALSE, FALSE);
  } else {
    /* No device yet (linking before READY): same formats, system memory. */
    res = gst_avhw_caps_with_features (caps,
        GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY);
  }
  res = gst_avhw_caps_apply_filter (res, filter);
  return res;
}

static gboolean
gst_avhw_download_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAvhwDownload *self = GST_AVHW_DOWNLOAD (trans);

  if (!gst_video_info_from_caps (&self->out_info, outcaps))
    return FALSE;
  gst_base_transform_set_passthrough (trans,
      gst_caps_is_equal (incaps, outcaps));
  return TRUE;
}

static gboolean
gst_avhw_download_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size, min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  size = GST_VIDEO_INFO_SIZE (&info);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (!pool)
    pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_set_config (pool, config);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return GST_BASE_TRANSFORM_CLASS (gst_avhw_download_parent_class)
      ->decide_allocation (trans, query);
}

static GstFlowReturn
gst_avhw_download_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstAvhwDownload *self = GST_AVHW_DOWNLOAD (trans);
  GstMemory *mem = gst_buffer_n_memory (inbuf) == 1 ?
      gst_buffer_peek_memory (inbuf, 0) : NULL;
  GstAvhwDevice *device;
  GError *err = NULL;

  if (!mem || !gst_is_avhw_memory (mem)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
        ("input buffer is not avhw device memory"));
    return GST_FLOW_ERROR;
  }
  /* The frame's own device: any avhw memory downloads. With device=auto
   * and none from the context flow, it becomes this element's. */
  device = gst_avhw_memory_get_device (mem);
  if (!DEVICE (self))
    gst_avhw_base_transform_adopt_device (GST_AVHW_BASE_TRANSFORM (self),
        device);
  if (!gst_avhw_transfer_buffer (gst_avhw_device_get_backend (device),
          gst_avhw_memory_get_frame (mem), outbuf, &self->out_info, TRUE,
          &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Download from %s failed.", gst_avhw_device_get_name (device)),
        ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
gst_avhw_download_class_init (GstAvhwDownloadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_avhw_element_class_add_templates (element_class,
      GST_AVHW_TEMPLATE_DEVICE | GST_AVHW_TEMPLATE_SYSTEM,
      GST_AVHW_TEMPLATE_SYSTEM | GST_AVHW_TEMPLATE_DEVICE, NULL);
  gst_element_class_set_static_metadata (element_class, "avhw downloader",
      "Filter/Video/Hardware",
      "Downloads avhw device memory into system memory", "gst-avhw developers");

  /* It needs no device to download: each frame carries its own. Opening
   * the best one at READY, before upstream has its device, would open a
   * second, unused one when upstream picks another. */
  GST_AVHW_BASE_TRANSFORM_CLASS (klass)->adopt_input_device = TRUE;
  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_avhw_download_transform_caps;
  trans_class->set_caps = gst_avhw_download_set_caps;
  trans_class->decide_allocation = gst_avhw_download_decide_allocation;
  trans_class->transform = gst_avhw_download_transform;

  GST_DEBUG_CATEGORY_INIT (gst_avhw_download_debug, "avhwdownload", 0,
      "avhwdownload");
}

static void
gst_avhw_download_init (GstAvhwDownload * self)
{
}
