/* gst-avhw: avhwconvertscale
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-avhwconvertscale
 * @title: avhwconvertscale
 *
 * Resizes frames in avhw device memory and converts their format, on the
 * device, with the FFmpeg filter the device's backend names (scale_cuda,
 * scale_vulkan, scale_vaapi or a vendor's own). Size and format come from
 * the caps. Only conversions that filter makes are offered: asking for
 * another one fails negotiation with an error saying what it makes, and
 * nothing is ever done on the CPU. Passthrough when the caps stay the same.
 * With `device=auto` it takes the device of its input.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=640,height=360 ! avhwupload device=vulkan ! avhwconvertscale ! "video/x-raw(memory:AVHWVulkan),width=320,height=180" ! avhwdownload ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwconvertscale.h"
#include "gstavhwcapsutils.h"
#include "gstavhwelementutils.h"
#include "gstavhwscalecaps.h"
#include "gstavhwscalegraph.h"

GST_DEBUG_CATEGORY_STATIC (gst_avhw_convert_scale_debug);
#define GST_CAT_DEFAULT gst_avhw_convert_scale_debug

#define DEFAULT_PROP_METHOD GST_AVHW_SCALE_METHOD_DEFAULT
#define DEFAULT_PROP_ADD_BORDERS FALSE

enum
{
  PROP_METHOD = GST_AVHW_ELEMENT_PROP_LAST,
  PROP_ADD_BORDERS,
  PROP_ACTIVE_FILTER,
};

struct _GstAvhwConvertScale
{
  GstAvhwBaseTransform parent;

  GstAvhwScaleMethod method;
  gboolean add_borders;

  GstVideoInfo in_info, out_info;
  GstAvhwBackend *backend;      /* of the negotiated device memory */
  const gchar *filter;          /* the filter for this conversion */
  const gchar *active_filter;   /* the active-filter property (object lock) */
  const gchar *method_args;
  GstAvhwScaleGraph *graph;
  /* the graph was made in set_caps on a frames context of the cache, to
   * check the caps: the first frame's own replaces it */
  gconstpointer checked_frames;
  GQueue pending;               /* input buffers whose frames are in it */
  gboolean explained;           /* a negotiation error was posted */
};

G_DEFINE_TYPE (GstAvhwConvertScale, gst_avhw_convert_scale,
    GST_TYPE_AVHW_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (avhwconvertscale, "avhwconvertscale",
    GST_RANK_NONE, GST_TYPE_AVHW_CONVERT_SCALE);

#define DEVICE(s) gst_avhw_base_transform_get_device (GST_AVHW_BASE_TRANSFORM (s))
#define FMT(info) gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info))

static void
gst_avhw_convert_scale_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAvhwConvertScale *self = GST_AVHW_CONVERT_SCALE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_ADD_BORDERS:
      self->add_borders = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_avhw_convert_scale_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAvhwConvertScale *self = GST_AVHW_CONVERT_SCALE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_ADD_BORDERS:
      g_value_set_boolean (value, self->add_borders);
      break;
    case PROP_ACTIVE_FILTER:
      g_value_set_string (value, self->active_filter);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Frames in the graph and the graph itself: gone at a flush, a caps change
 * or stop. */
static void
clear_stream (GstAvhwConvertScale * self)
{
  g_clear_pointer (&self->graph, gst_avhw_scale_graph_free);
  g_queue_clear_full (&self->pending, (GDestroyNotify) gst_buffer_unref);
}

/* device=auto opened none at READY: take the device upstream shares (it
 * has one once caps flow) when it is of @backend (any, for %NULL). */
static GstAvhwDevice *
ensure_device (GstAvhwConvertScale * self, GstAvhwBackend * backend)
{
  GstQuery *query;
  GstContext *context = NULL;
  GstAvhwDevice *found = NULL;

  if (DEVICE (self))
    return DEVICE (self);
  query = gst_query_new_context (GST_AVHW_DEVICE_CONTEXT_TYPE);
  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query)) {
    gst_query_parse_context (query, &context);
    if (context && gst_avhw_context_get_device (context, &found)) {
      if (!backend || gst_avhw_device_get_backend (found) == backend)
        gst_avhw_base_transform_adopt_device (GST_AVHW_BASE_TRANSFORM (self),
            found);
      gst_object_unref (found);
    }
  }
  gst_query_unref (query);
  return DEVICE (self);
}

/* Posts, once per negotiation, why @in cannot become @out, when the caps
 * say for sure. Returns TRUE when it did. */
static gboolean
explain (GstAvhwConvertScale * self, GstCaps * in, GstCaps * out)
{
  gchar *msg;

  if (self->explained)
    return TRUE;
  ensure_device (self, NULL);
  msg = gst_avhw_scale_explain (DEVICE (self), in, out);
  if (!msg)
    return FALSE;
  self->explained = TRUE;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", msg),
      ("input %" GST_PTR_FORMAT ", output %" GST_PTR_FORMAT, in, out));
  g_free (msg);
  return TRUE;
}

static GstCaps *
gst_avhw_convert_scale_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *res = gst_avhw_scale_transform_caps (DEVICE (trans), direction,
      caps);

  res = gst_avhw_caps_apply_filter (res, filter);
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* A caps query whose whole offer (its filter) meets nothing the other
 * side takes: negotiation cannot succeed, and the source would only report
 * not-negotiated, so say why here. */
static gboolean
gst_avhw_convert_scale_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstAvhwConvertScale *self = GST_AVHW_CONVERT_SCALE (trans);
  GstCaps *filter = NULL, *result = NULL, *other;
  gboolean ret = GST_BASE_TRANSFORM_CLASS
      (gst_avhw_convert_scale_parent_class)->query (trans, direction, query);

  if (!ret || GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return ret;
  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &result);
  if (!filter || gst_caps_is_empty (filter) || gst_caps_is_any (filter)
      || !result || !gst_caps_is_empty (result))
    return ret;
  other = gst_pad_peer_query_caps (direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans),
      NULL);
  if (direction == GST_PAD_SINK)
    explain (self, filter, other);
  else
    explain (self, other, filter);
  gst_caps_unref (other);
  return ret;
}

static GstCaps *
gst_avhw_convert_scale_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  othercaps = gst_avhw_scale_fixate_caps (caps, othercaps);
  GST_DEBUG_OBJECT (trans, "fixated to %" GST_PTR_FORMAT, othercaps);
  return othercaps;
}

static gboolean
build_graph (GstAvhwConvertScale * self, AVBufferRef * in_frames,
    GError ** error)
{
  GstAvhwScaleGraphParams p = {
    .backend = gst_avhw_device_get_backend (DEVICE (self)),
    .filter = self->filter,
    .method_args = self->method_args,
    .in_frames = in_frames,
    .in_width = GST_VIDEO_INFO_WIDTH (&self->in_info),
    .in_height = GST_VIDEO_INFO_HEIGHT (&self->in_info),
    .sar = {GST_VIDEO_INFO_PAR_N (&self->in_info),
        GST_VIDEO_INFO_PAR_D (&self->in_info)},
    .out_width = GST_VIDEO_INFO_WIDTH (&self->out_info),
    .out_height = GST_VIDEO_INFO_HEIGHT (&self->out_info),
    .out_format = gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT
        (&self->out_info)),
  };

  self->checked_frames = NULL;
  self->graph = gst_avhw_scale_graph_new (&p, error);
  return self->graph != NULL;
}

/* The methods the filter making @out from @in has, for a message. */
static gchar *
list_methods (GstAvhwBackend * backend, enum AVPixelFormat in,
    enum AVPixelFormat out)
{
  GEnumClass *klass = g_type_class_ref (GST_TYPE_AVHW_SCALE_METHOD);
  GString *s = g_string_new (NULL);
  const gchar *args;
  guint i;

  for (i = 0; i < klass->n_values; i++)
    if (gst_avhw_backend_choose_scale_filter (backend, in, out,
            klass->values[i].value, &args) && args)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "",
          klass->values[i].value_nick);
  g_type_class_unref (klass);
  return g_string_free (s, FALSE);
}

/* Posts @msg (owned) as the negotiation error, unless one was posted. */
static gboolean
refuse (GstAvhwConvertScale * self, gchar * msg, const gchar * debug)
{
  if (!self->explained)
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", msg), ("%s", debug ?
            debug : "caps refused in set_caps"));
  self->explained = TRUE;
  g_free (msg);
  return FALSE;
}

static gboolean
same_memory (GstCaps * a, GstCaps * b)
{
  return gst_caps_features_is_equal (gst_caps_get_features (a, 0),
      gst_caps_get_features (b, 0));
}

/* The active-filter property: @filter (FFmpeg's static name) converts the
 * negotiated caps; NULL in passthrough. */
static void
set_active_filter (GstAvhwConvertScale * self, const gchar * filter)
{
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = g_strcmp0 (self->active_filter, filter) != 0;
  self->active_filter = filter;
  GST_OBJECT_UNLOCK (self);
  if (changed)
    g_object_notify (G_OBJECT (self), "active-filter");
}

/* Checks what set_caps needs beyond the caps transform: the filter, the
 * method, the borders, the fields, the range. */
static gboolean
check_conversion (GstAvhwConvertScale * self, GstAvhwScaleMethod method,
    gboolean add_borders)
{
  GstAvhwBackend *b = self->backend;
  GstVideoInfo *in = &self->in_info, *out = &self->out_info;
  enum AVPixelFormat av_in = gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (in));
  enum AVPixelFormat av_out =
      gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (out));
  const gchar *name = DEVICE (self) ? gst_avhw_device_get_name (DEVICE (self))
      : gst_avhw_backend_get_name (b);
  const gchar *filter = gst_avhw_backend_get_scale_filter (b);
  gchar *why = NULL, *what, *msg;
  GEnumValue *v;

  if (!gst_avhw_scale_filter_usable (b, &why)) {
    msg = g_strdup_printf ("Device %s cannot scale or convert frames: %s. "
        "Scale on another device, or on the CPU (avhwdownload ! "
        "videoconvertscale ! avhwupload).", name, why);
    g_free (why);
    return refuse (self, msg, NULL);
  }
  if (!gst_avhw_scale_converts (b, DEVICE (self), GST_VIDEO_INFO_FORMAT (in),
          GST_VIDEO_INFO_FORMAT (out))) {
    what = gst_avhw_scale_list_outputs (b, DEVICE (self),
        GST_VIDEO_INFO_FORMAT (in));
    msg = g_strdup_printf ("%s on %s cannot make %s from %s (from %s it "
        "makes %s).", filter, name, FMT (out), FMT (in), FMT (in), what);
    g_free (what);
    return refuse (self, msg, NULL);
  }
  self->filter = filter = gst_avhw_backend_choose_scale_filter (b, av_in,
      av_out, method, &self->method_args);
  if (!self->method_args) {
    v = g_enum_get_value (g_type_class_peek (GST_TYPE_AVHW_SCALE_METHOD),
        method);
    what = list_methods (b, av_in, av_out);
    msg = g_strdup_printf ("%s on %s has no %s scaling; set method to one "
        "it has: %s.", filter, name, v ? v->value_nick : "such", what);
    g_free (what);
    return refuse (self, msg, NULL);
  }
  if (add_borders && gst_avhw_scale_needs_borders (in, out))
    return refuse (self, g_strdup_printf ("%s on %s cannot add borders: "
            "%dx%d (pixel aspect %d/%d) does not fit %dx%d (pixel aspect "
            "%d/%d) without them. Set add-borders=false to stretch the "
            "picture, or leave the output's pixel-aspect-ratio open.",
            filter, name, GST_VIDEO_INFO_WIDTH (in),
            GST_VIDEO_INFO_HEIGHT (in), GST_VIDEO_INFO_PAR_N (in),
            GST_VIDEO_INFO_PAR_D (in), GST_VIDEO_INFO_WIDTH (out),
            GST_VIDEO_INFO_HEIGHT (out), GST_VIDEO_INFO_PAR_N (out),
            GST_VIDEO_INFO_PAR_D (out)), NULL);
  if (GST_VIDEO_INFO_IS_INTERLACED (in)
      && GST_VIDEO_INFO_HEIGHT (in) != GST_VIDEO_INFO_HEIGHT (out))
    return refuse (self, g_strdup_printf ("%s on %s scales whole frames and "
            "would mix the fields of this interlaced video; keep the height "
            "(%d) or deinterlace first.", filter, name,
            GST_VIDEO_INFO_HEIGHT (in)), NULL);
  if (GST_VIDEO_INFO_IS_RGB (in) && GST_VIDEO_INFO_IS_YUV (out)
      && out->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255)
    return refuse (self, g_strdup ("avhwconvertscale makes limited-range "
            "YUV from RGB; ask for a limited-range colorimetry (or none) on "
            "its output."), NULL);
  return TRUE;
}

static gboolean
gst_avhw_convert_scale_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAvhwConvertScale *self = GST_AVHW_CONVERT_SCALE (trans);
  GstAvhwScaleMethod method;
  gboolean add_borders;
  AVBufferRef *frames;
  GError *err = NULL;

  clear_stream (self);
  if (!gst_video_info_from_caps (&self->in_info, incaps)
      || !gst_video_info_from_caps (&self->out_info, outcaps))
    return FALSE;
  gst_clear_object (&self->backend);
  self->backend = gst_avhw_scale_backend_for_caps (incaps, 0);
  if (!self->backend) {
    explain (self, incaps, outcaps);
    return FALSE;
  }
  if (!same_memory (incaps, outcaps)) {
    if (!explain (self, incaps, outcaps))
      refuse (self, g_strdup_printf ("avhwconvertscale gives frames in the "
              "memory it takes (%s); downstream asks for %s. Put "
              "avhwdownload after it for system memory, or avhwupload for "
              "another device.", gst_caps_features_get_nth
              (gst_caps_get_features (incaps, 0), 0), gst_caps_features_is_equal
              (gst_caps_get_features (outcaps, 0),
                  GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY) ? "system memory" :
              gst_caps_features_get_nth (gst_caps_get_features (outcaps, 0),
                  0)), NULL);
    return FALSE;
  }
  if (gst_base_transform_is_passthrough (trans))
    goto done;
  GST_OBJECT_LOCK (self);
  method = self->method;
  add_borders = self->add_borders;
  GST_OBJECT_UNLOCK (self);
  ensure_device (self, self->backend);
  if (!check_conversion (self, method, add_borders))
    return FALSE;
  /* With the device known, make the graph now, so that a filter refusing
   * these caps fails negotiation; else it is made on the first frame. */
  if (!DEVICE (self))
    goto done;
  frames = gst_avhw_device_get_frames_ctx (DEVICE (self),
      gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (&self->in_info)),
      GST_VIDEO_INFO_WIDTH (&self->in_info),
      GST_VIDEO_INFO_HEIGHT (&self->in_info), 0, &err);
  if (frames && build_graph (self, frames, &err))
    self->checked_frames = frames->data;
  av_buffer_unref (&frames);
  if (!self->graph) {
    refuse (self, g_strdup_printf ("Device %s cannot make %dx%d %s from "
            "%dx%d %s: %s", gst_avhw_device_get_name (DEVICE (self)),
            GST_VIDEO_INFO_WIDTH (&self->out_info),
            GST_VIDEO_INFO_HEIGHT (&self->out_info), FMT (&self->out_info),
            GST_VIDEO_INFO_WIDTH (&self->in_info),
            GST_VIDEO_INFO_HEIGHT (&self->in_info), FMT (&self->in_info),
            err->message), NULL);
    g_clear_error (&err);
    return FALSE;
  }
done:
  self->explained = FALSE;      /* a later caps change may fail anew */
  set_active_filter (self, gst_base_transform_is_passthrough (trans) ? NULL :
      self->filter);
  return TRUE;
}

/* The filter allocates the output frames: no pool from downstream. */
static gboolean
gst_avhw_convert_scale_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  return TRUE;
}

/* Tags a frame going into the filter with the YUV matrix of the
 * conversion (for RGB in, the output's: what a filter making YUV from RGB
 * reads) and the input's range. */
static void
tag_frame (GstAvhwConvertScale * self, AVFrame * frame)
{
  const GstVideoInfo *yuv = GST_VIDEO_INFO_IS_RGB (&self->in_info) ?
      &self->out_info : &self->in_info;

  frame->colorspace = gst_video_color_matrix_to_iso (yuv->colorimetry.matrix);
  if (self->in_info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255)
    frame->color_range = AVCOL_RANGE_JPEG;
  else if (self->in_info.colorimetry.range == GST_VIDEO_COLOR_RANGE_16_235)
    frame->color_range = AVCOL_RANGE_MPEG;
}

static GstFlowReturn
push_input (GstAvhwConvertScale * self, GstBuffer * inbuf)
{
  GstMemory *mem = gst_buffer_n_memory (inbuf) == 1 ?
      gst_buffer_peek_memory (inbuf, 0) : NULL;
  GstAvhwDevice *device;
  AVFrame *frame;
  GError *err = NULL;

  if (!mem || !gst_is_avhw_memory (mem)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
        ("input buffer is not avhw device memory"));
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  device = gst_avhw_memory_get_device (mem);
  gst_avhw_base_transform_adopt_device (GST_AVHW_BASE_TRANSFORM (self), device);
  if (g_strcmp0 (gst_avhw_device_get_name (device),
          gst_avhw_device_get_name (DEVICE (self))) != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Input frames are on %s, "
            "avhwconvertscale runs on %s; set its device to %s or auto.",
            gst_avhw_device_get_name (device),
            gst_avhw_device_get_name (DEVICE (self)),
            gst_avhw_device_get_name (device)), (NULL));
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  frame = av_frame_clone (gst_avhw_memory_get_frame (mem));
  /* The graph takes its input's frames context from the first frame (a
   * decoder's, or the cache's that upload uses: then the checked one). */
  if (frame && self->checked_frames
      && self->checked_frames != frame->hw_frames_ctx->data)
    g_clear_pointer (&self->graph, gst_avhw_scale_graph_free);
  self->checked_frames = NULL;
  if (frame && !self->graph)
    build_graph (self, frame->hw_frames_ctx, &err);
  if (frame && self->graph) {
    tag_frame (self, frame);
    gst_avhw_scale_graph_push (self->graph, frame, &err);
  }
  av_frame_free (&frame);
  if (err || !self->graph) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Scaling on %s failed.",
            gst_avhw_device_get_name (device)),
        ("%s", err ? err->message : "out of memory"));
    g_clear_error (&err);
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  g_queue_push_tail (&self->pending, inbuf);
  return GST_FLOW_OK;
}

/* The next frame out of the graph as a buffer with the metadata of the
 * input it came from (the filters make one frame per input frame). */
static GstFlowReturn
pull_output (GstAvhwConvertScale * self, GstBuffer ** outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GError *err = NULL;
  AVFrame *frame;
  GstBuffer *in;

  *outbuf = NULL;
  if (!self->graph)
    return GST_FLOW_OK;
  frame = gst_avhw_scale_graph_pull (self->graph, &err);
  if (!frame) {
    if (!err)
      return GST_FLOW_OK;
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Scaling on %s failed.",
            gst_avhw_device_get_name (DEVICE (self))), ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
  if (!frame->hw_frames_ctx) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Scaling on %s failed.",
            gst_avhw_device_get_name (DEVICE (self))),
        ("%s gave a frame that is not a hardware frame", self->filter));
    av_frame_free (&frame);
    return GST_FLOW_ERROR;
  }
  *outbuf = gst_avhw_buffer_new (DEVICE (self), frame, &self->out_info);
  in = g_queue_pop_head (&self->pending);
  if (in) {
    GST_BASE_TRANSFORM_GET_CLASS (trans)->copy_metadata (trans, in, *outbuf);
    gst_buffer_unref (in);
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_avhw_convert_scale_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstAvhwConvertScale *self = GST_AVHW_CONVERT_SCALE (trans);
  GstBuffer *inbuf = trans->queued_buf;
  GstFlowReturn ret;

  if (gst_base_transform_is_passthrough (trans))
    return GST_BASE_TRANSFORM_CLASS (gst_avhw_convert_scale_parent_class)
        ->generate_output (trans, outbuf);
  *outbuf = NULL;
  trans->queued_buf = NULL;
  if (inbuf && (ret = push_input (self, inbuf)) != GST_FLOW_OK)
    return ret;
  return pull_output (self, outbuf);
}

/* At EOS and at new caps: what the graph still holds goes downstream
 * first. */
static GstFlowReturn
drain (GstAvhwConvertScale * self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *out = NULL;
  GError *err = NULL;

  if (!self->graph || gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (self)))
    return GST_FLOW_OK;
  if (!gst_avhw_scale_graph_push (self->graph, NULL, &err)) {
    GST_WARNING_OBJECT (self, "drain: %s", err->message);
    g_clear_error (&err);
  } else {
    while ((ret = pull_output (self, &out)) == GST_FLOW_OK && out)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  }
  clear_stream (self);
  return ret;
}

static gboolean
gst_avhw_convert_scale_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstAvhwConvertScale *self = GST_AVHW_CONVERT_SCALE (trans);
  GstCaps *caps = NULL, *peer;
  gboolean ret;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      clear_stream (self);
      break;
    case GST_EVENT_EOS:
      drain (self);
      break;
    case GST_EVENT_CAPS:
      /* A filter that queues (FFmpeg 7's libplacebo holds a frame until
       * the next) gives out what it holds before the graph is rebuilt,
       * under the caps it was made for. */
      drain (self);
      gst_event_parse_caps (event, &caps);
      gst_caps_ref (caps);
      break;
    default:
      break;
  }
  ret = GST_BASE_TRANSFORM_CLASS (gst_avhw_convert_scale_parent_class)
      ->sink_event (trans, event);
  if (caps && !ret) {
    /* Fixed caps no output fits: say why, unless set_caps did. */
    peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans), NULL);
    explain (self, caps, peer);
    gst_caps_unref (peer);
  }
  gst_clear_caps (&caps);
  return ret;
}

static gboolean
gst_avhw_convert_scale_start (GstBaseTransform * trans)
{
  GST_AVHW_CONVERT_SCALE (trans)->explained = FALSE;
  return TRUE;
}

static gboolean
gst_avhw_convert_scale_stop (GstBaseTransform * trans)
{
  GstAvhwConvertScale *self = GST_AVHW_CONVERT_SCALE (trans);

  clear_stream (self);
  gst_clear_object (&self->backend);
  self->explained = FALSE;
  return TRUE;
}

static void
gst_avhw_convert_scale_finalize (GObject * object)
{
  GstAvhwConvertScale *self = GST_AVHW_CONVERT_SCALE (object);

  clear_stream (self);
  gst_clear_object (&self->backend);
  G_OBJECT_CLASS (gst_avhw_convert_scale_parent_class)->finalize (object);
}

static void
gst_avhw_convert_scale_class_init (GstAvhwConvertScaleClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_avhw_convert_scale_set_property;
  gobject_class->get_property = gst_avhw_convert_scale_get_property;
  gobject_class->finalize = gst_avhw_convert_scale_finalize;

  /**
   * GstAvhwConvertScale:method:
   *
   * How the device's scale filter interpolates; `default` is the filter's
   * own default. A method the filter does not have fails negotiation with
   * an error listing those it has.
   */
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "Interpolation of the device's scale filter (default: the "
          "filter's own)", GST_TYPE_AVHW_SCALE_METHOD, DEFAULT_PROP_METHOD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwConvertScale:add-borders:
   *
   * Keep the picture's aspect ratio with borders where the output's does
   * not match. No device scale filter draws borders, so where borders
   * would be needed this fails negotiation with an error saying so; the
   * default, %FALSE, stretches the picture to the output size.
   */
  /**
   * GstAvhwConvertScale:active-filter:
   *
   * The FFmpeg filter that converts the negotiated caps on the device
   * (`scale_cuda`, `scale_vulkan`, `libplacebo`, a vendor backend's own):
   * the backend picks it for the conversion, the method and the formats.
   * %NULL before caps and in passthrough. Notified when it changes.
   */
  g_object_class_install_property (gobject_class, PROP_ACTIVE_FILTER,
      g_param_spec_string ("active-filter", "Active filter",
          "FFmpeg filter converting the negotiated caps (NULL: none, or "
          "passthrough)", NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ADD_BORDERS,
      g_param_spec_boolean ("add-borders", "Add borders",
          "Refuse (no device filter draws borders) rather than stretch "
          "where the aspect ratio would need borders",
          DEFAULT_PROP_ADD_BORDERS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  /* System memory too, never made or taken: so that such a link is made
   * and negotiation says what to do instead of "could not link". */
  gst_avhw_element_class_add_templates (element_class,
      GST_AVHW_TEMPLATE_DEVICE | GST_AVHW_TEMPLATE_SYSTEM,
      GST_AVHW_TEMPLATE_DEVICE | GST_AVHW_TEMPLATE_SYSTEM,
      GST_AVHW_SCALE_FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "avhw scaler and converter", "Filter/Converter/Video/Scaler/Hardware",
      "Resizes and converts avhw device memory on the device with FFmpeg's "
      "scale filters", "gst-avhw developers");

  /* Its input's device: opening the best one at READY, before upstream has
   * its own, could pick another. */
  GST_AVHW_BASE_TRANSFORM_CLASS (klass)->adopt_input_device = TRUE;
  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_avhw_convert_scale_transform_caps;
  trans_class->fixate_caps = gst_avhw_convert_scale_fixate_caps;
  trans_class->query = gst_avhw_convert_scale_query;
  trans_class->set_caps = gst_avhw_convert_scale_set_caps;
  trans_class->decide_allocation = gst_avhw_convert_scale_decide_allocation;
  trans_class->generate_output = gst_avhw_convert_scale_generate_output;
  trans_class->sink_event = gst_avhw_convert_scale_sink_event;
  trans_class->start = gst_avhw_convert_scale_start;
  trans_class->stop = gst_avhw_convert_scale_stop;

  gst_type_mark_as_plugin_api (GST_TYPE_AVHW_SCALE_METHOD, 0);
  GST_DEBUG_CATEGORY_INIT (gst_avhw_convert_scale_debug, "avhwconvertscale",
      0, "avhwconvertscale");
}

static void
gst_avhw_convert_scale_init (GstAvhwConvertScale * self)
{
  self->method = DEFAULT_PROP_METHOD;
  self->add_borders = DEFAULT_PROP_ADD_BORDERS;
  g_queue_init (&self->pending);
}
