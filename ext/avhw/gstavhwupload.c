/* gst-avhw: avhwupload
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-avhwupload
 * @title: avhwupload
 *
 * Uploads system-memory video frames into frames of an avhw device (the
 * backend's device memory, e.g. `memory:AVHWVulkan`). Passthrough when the
 * input is already in device memory. Frames come from a frames context the
 * device cache shares between elements and pipelines.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,format=NV12 ! avhwupload device=vulkan ! avhwdownload ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwupload.h"
#include "gstavhwcapsutils.h"
#include "gstavhwelementutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_avhw_upload_debug);
#define GST_CAT_DEFAULT gst_avhw_upload_debug

struct _GstAvhwUpload
{
  GstAvhwBaseTransform parent;

  GstVideoInfo in_info;
  gboolean in_foreign;          /* input in GStreamer's own device memory */
  gboolean warned;              /* about a format the device cannot hold */
  /* the output pool, kept across renegotiations that keep format and size */
  GstBufferPool *pool;
  GstVideoInfo pool_info;
  /* GStreamer's device memory taken without a copy: the frames context of
   * such frames, and the output buffer made that way for this input */
  AVBufferRef *wrap_frames;
  GstBuffer *wrapped_out;
  gboolean noted_copy;          /* said that frames cross devices */
};

G_DEFINE_TYPE (GstAvhwUpload, gst_avhw_upload, GST_TYPE_AVHW_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (avhwupload, "avhwupload", GST_RANK_NONE,
    GST_TYPE_AVHW_UPLOAD);


#define DEVICE(s) gst_avhw_base_transform_get_device (GST_AVHW_BASE_TRANSFORM (s))

/* Upstream insists on a format the device's frames cannot hold: negotiation
 * would fail at the source with a bare not-negotiated, so say here, once,
 * what is wrong and what to do. */
static void
warn_unsupported (GstAvhwUpload * self, GstAvhwDevice * device, GstCaps * caps)
{
  GstCaps *held;
  const GValue *list;
  GString *fmts = g_string_new (NULL);
  gchar *formats;
  guint i;

  if (self->warned)
    return;
  self->warned = TRUE;
  held = gst_avhw_device_get_raw_caps (device, FALSE);
  list = gst_structure_get_value (gst_caps_get_structure (held, 0), "format");
  for (i = 0; list && i < gst_value_list_get_size (list); i++)
    g_string_append_printf (fmts, "%s%s", i ? ", " : "",
        g_value_get_string (gst_value_list_get_value (list, i)));
  formats = g_string_free (fmts, FALSE);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("Device %s cannot hold %s frames (it holds %s); put videoconvert "
          "before avhwupload.", gst_avhw_device_get_name (device),
          gst_structure_get_string (gst_caps_get_structure (caps, 0),
              "format"), formats), ("upstream caps %" GST_PTR_FORMAT, caps));
  g_free (formats);
  gst_caps_unref (held);
}

static GstCaps *
gst_avhw_upload_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstAvhwDevice *device = DEVICE (trans);
  GstCaps *res;

  if (!device) {
    /* Linking before READY: the device, hence its memory, is not known. */
    res = gst_caps_merge (gst_avhw_caps_with_features (caps, NULL),
        gst_caps_ref (caps));
  } else if (direction == GST_PAD_SINK) {
    /* upstream system memory (or GStreamer's own device memory of this
     * kind of device) -> our device memory, or passthrough */
    res = gst_avhw_caps_switch_memory (device, caps, TRUE, TRUE);
    if (gst_caps_is_empty (res) && gst_caps_get_size (caps) == 1
        && gst_structure_get_string (gst_caps_get_structure (caps, 0),
            "format"))
      warn_unsupported (GST_AVHW_UPLOAD (trans), device, caps);
  } else {
    GstAvhwBackend *backend = gst_avhw_device_get_backend (device);
    const gchar *foreign = gst_avhw_backend_device_imports_foreign (backend,
        device) ? gst_avhw_backend_get_foreign_input_feature (backend) : NULL;

    res = gst_avhw_caps_switch_memory (device, caps, FALSE, FALSE);
    if (foreign)
      res = gst_caps_merge (gst_avhw_caps_with_features (res, foreign), res);
  }
  res = gst_avhw_caps_apply_filter (res, filter);
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

static gboolean
gst_avhw_upload_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAvhwUpload *self = GST_AVHW_UPLOAD (trans);

  const gchar *foreign;

  if (!gst_video_info_from_caps (&self->in_info, incaps))
    return FALSE;
  foreign = DEVICE (trans) ? gst_avhw_backend_get_foreign_input_feature
      (gst_avhw_device_get_backend (DEVICE (trans))) : NULL;
  self->in_foreign = foreign && gst_caps_features_contains
      (gst_caps_get_features (incaps, 0), foreign);
  av_buffer_unref (&self->wrap_frames);
  gst_base_transform_set_passthrough (trans,
      gst_caps_is_equal (incaps, outcaps));
  return TRUE;
}

static gboolean
same_frames (const GstVideoInfo * a, const GstVideoInfo * b)
{
  return GST_VIDEO_INFO_FORMAT (a) == GST_VIDEO_INFO_FORMAT (b)
      && GST_VIDEO_INFO_WIDTH (a) == GST_VIDEO_INFO_WIDTH (b)
      && GST_VIDEO_INFO_HEIGHT (a) == GST_VIDEO_INFO_HEIGHT (b);
}

static gboolean
gst_avhw_upload_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstAvhwUpload *self = GST_AVHW_UPLOAD (trans);
  GstAvhwDevice *device = DEVICE (trans);
  GstBufferPool *pool;
  GstStructure *config;
  GstCaps *caps;
  GstVideoInfo info;
  guint min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, &max);

  if (self->pool && same_frames (&self->pool_info, &info)
      && gst_avhw_buffer_pool_get_device (GST_AVHW_BUFFER_POOL (self->pool))
      == device) {
    /* Only framerate, colorimetry or the like changed: same frames. */
    pool = gst_object_ref (self->pool);
    GST_DEBUG_OBJECT (self, "keeping the output pool");
  } else {
    pool = gst_avhw_buffer_pool_new (device);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps,
        GST_VIDEO_INFO_SIZE (&info), min, max);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_ELEMENT_ERROR (trans, RESOURCE, SETTINGS,
          ("Device %s cannot hold %s %dx%d frames.",
              gst_avhw_device_get_name (device),
              gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)),
              GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info)),
          ("The frames context could not be made; see the avhwcache debug "
              "log."));
      gst_object_unref (pool);
      return FALSE;
    }
    gst_clear_object (&self->pool);
    self->pool = gst_object_ref (pool);
    self->pool_info = info;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool,
        GST_VIDEO_INFO_SIZE (&info), min, max);
  else
    gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info),
        min, max);
  gst_object_unref (pool);
  return TRUE;
}

static gboolean
gst_avhw_upload_stop (GstBaseTransform * trans)
{
  GST_AVHW_UPLOAD (trans)->warned = FALSE;
  GST_AVHW_UPLOAD (trans)->noted_copy = FALSE;
  gst_clear_object (&GST_AVHW_UPLOAD (trans)->pool);
  av_buffer_unref (&GST_AVHW_UPLOAD (trans)->wrap_frames);
  return TRUE;
}

static gboolean
gst_avhw_upload_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool;
  GstStructure *config;

  if (gst_base_transform_is_passthrough (trans))
    return GST_BASE_TRANSFORM_CLASS (gst_avhw_upload_parent_class)
        ->propose_allocation (trans, decide_query, query);

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return TRUE;
  if (gst_query_get_n_allocation_pools (query) == 0) {
    /* Upstream writes into plain memory we read from once, per frame. */
    pool = gst_video_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps,
        GST_VIDEO_INFO_SIZE (&info), 0, 0);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (gst_buffer_pool_set_config (pool, config))
      gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info),
          0, 0);
    gst_object_unref (pool);
  }
  return TRUE;
}

/* Whether the size is a whole number of chroma samples (odd sizes of
 * 4:2:0 are not, which some devices' frames cannot hold: OpenCL's). */
static gboolean
whole_chroma (const GstVideoInfo * info)
{
  const GstVideoFormatInfo *f = info->finfo;
  guint c;

  for (c = 1; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f); c++)
    if (GST_VIDEO_INFO_WIDTH (info) % (1 << GST_VIDEO_FORMAT_INFO_W_SUB (f, c))
        || GST_VIDEO_INFO_HEIGHT (info) %
        (1 << GST_VIDEO_FORMAT_INFO_H_SUB (f, c)))
      return FALSE;
  return TRUE;
}

/* GStreamer's own device memory the backend can take as it is: a new
 * output buffer on it, no copy; NULL to copy into a pool buffer instead. */
static GstBuffer *
wrap_foreign_input (GstAvhwUpload * self, GstBuffer * input)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstAvhwDevice *device = DEVICE (self);
  GError *err = NULL;
  GstBuffer *out;
  AVFrame *frame;

  if (!self->wrap_frames)
    self->wrap_frames = gst_avhw_device_get_frames_ctx (device,
        gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (&self->in_info)),
        GST_VIDEO_INFO_WIDTH (&self->in_info),
        GST_VIDEO_INFO_HEIGHT (&self->in_info), 0, &err);
  frame = self->wrap_frames ? gst_avhw_backend_wrap_foreign_buffer
      (gst_avhw_device_get_backend (device), device, input, &self->in_info,
      self->wrap_frames, &err) : NULL;
  if (!frame) {
    if (err)
      GST_DEBUG_OBJECT (self, "copying: %s", err->message);
    g_clear_error (&err);
    return NULL;
  }
  out = gst_avhw_buffer_new (device, frame, &self->in_info);
  GST_BASE_TRANSFORM_GET_CLASS (trans)->copy_metadata (trans, input, out);
  return out;
}

static GstFlowReturn
gst_avhw_upload_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * input, GstBuffer ** outbuf)
{
  GstAvhwUpload *self = GST_AVHW_UPLOAD (trans);
  GstFlowReturn ret;

  self->wrapped_out = NULL;
  if (self->in_foreign && !gst_base_transform_is_passthrough (trans)
      && (*outbuf = wrap_foreign_input (self, input))) {
    self->wrapped_out = *outbuf;
    return GST_FLOW_OK;
  }
  ret = GST_BASE_TRANSFORM_CLASS (gst_avhw_upload_parent_class)
      ->prepare_output_buffer (trans, input, outbuf);

  if (ret == GST_FLOW_ERROR && !whole_chroma (&self->in_info)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Device %s cannot hold a %s %dx%d frame: the size is not a "
            "multiple of the format's chroma subsampling; crop or scale to "
            "an even size, or pick another device.",
            gst_avhw_device_get_name (DEVICE (trans)),
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                (&self->in_info)), GST_VIDEO_INFO_WIDTH (&self->in_info),
            GST_VIDEO_INFO_HEIGHT (&self->in_info)),
        ("see the avhwbufferpool debug log for FFmpeg's reason"));
  } else if (ret == GST_FLOW_ERROR) {
    GstAvhwDevice *device = DEVICE (trans);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Device %s could not allocate a %s %dx%d frame; scale the video "
            "down or pick another device.", gst_avhw_device_get_name (device),
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                (&self->in_info)), GST_VIDEO_INFO_WIDTH (&self->in_info),
            GST_VIDEO_INFO_HEIGHT (&self->in_info)),
        ("see the avhwbufferpool debug log for FFmpeg's reason"));
  }
  return ret;
}

static GstFlowReturn
gst_avhw_upload_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstAvhwUpload *self = GST_AVHW_UPLOAD (trans);
  GstAvhwDevice *device = DEVICE (trans);
  AVFrame *hw = gst_avhw_buffer_peek_frame (outbuf);
  GError *err = NULL;

  if (!hw) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("output buffer is not avhw device memory"));
    return GST_FLOW_ERROR;
  }
  if (outbuf == self->wrapped_out)
    return GST_FLOW_OK;         /* made on the input's memory: no copy */
  gst_avhw_element_note_device_copy (GST_ELEMENT (self), &self->noted_copy,
      inbuf, device);
  if (!(self->in_foreign ?
          gst_avhw_backend_import_foreign_buffer (gst_avhw_device_get_backend
              (device), device, inbuf, &self->in_info, hw, &err) :
          gst_avhw_transfer_buffer (gst_avhw_device_get_backend (device), hw,
              inbuf, &self->in_info, FALSE, &err))) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Upload of a %s %dx%d frame to %s failed.",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                (&self->in_info)), GST_VIDEO_INFO_WIDTH (&self->in_info),
            GST_VIDEO_INFO_HEIGHT (&self->in_info),
            gst_avhw_device_get_name (device)), ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
gst_avhw_upload_class_init (GstAvhwUploadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_avhw_element_class_add_templates (element_class,
      GST_AVHW_TEMPLATE_SYSTEM | GST_AVHW_TEMPLATE_FOREIGN |
      GST_AVHW_TEMPLATE_DEVICE, GST_AVHW_TEMPLATE_DEVICE, NULL);
  gst_element_class_set_static_metadata (element_class,
      "avhw uploader", "Filter/Video/Hardware",
      "Uploads system-memory video into avhw device memory",
      "gst-avhw developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_avhw_upload_transform_caps;
  trans_class->set_caps = gst_avhw_upload_set_caps;
  trans_class->decide_allocation = gst_avhw_upload_decide_allocation;
  trans_class->propose_allocation = gst_avhw_upload_propose_allocation;
  trans_class->prepare_output_buffer = gst_avhw_upload_prepare_output_buffer;
  trans_class->transform = gst_avhw_upload_transform;
  trans_class->stop = gst_avhw_upload_stop;

  GST_DEBUG_CATEGORY_INIT (gst_avhw_upload_debug, "avhwupload", 0,
      "avhwupload");
}

static void
gst_avhw_upload_init (GstAvhwUpload * self)
{
}
