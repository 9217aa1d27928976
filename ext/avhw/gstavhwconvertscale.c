/* gst-avhw: avhwconvertscale
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-avhwconvertscale
 * @title: avhwconvertscale
 *
 * Resizes frames in avhw device memory and converts their format, on the
 * device, with one of the converters the device's backend names
 * (#GstAvhwConverterCaps): FFmpeg filters (scale_cuda, scale_vulkan,
 * libplacebo or a vendor's own) and converters of the backend's own (the
 * CUDA backend's `cuda-convert` kernel: NV12, P010 or I420 to packed or
 * planar RGB in one launch). Size and format come from the caps; the
 * element picks the first converter that makes them with the `method`
 * and `add-borders` asked, and `active-converter` names it. Only
 * conversions some converter makes are offered: asking for another one
 * fails negotiation with an error saying what they make, and nothing is
 * ever done on the CPU. Passthrough when the caps stay the same. With
 * `device=auto` it takes the device of its input.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=640,height=360 ! avhwupload device=vulkan ! avhwconvertscale ! "video/x-raw(memory:AVHWVulkan),width=320,height=180" ! avhwdownload ! fakesink
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=1920,height=1080 ! avhwupload device=cuda ! avhwconvertscale method=area add-borders=true ! "video/x-raw(memory:AVHWCUDA),format=RGBP,width=224,height=224,pixel-aspect-ratio=1/1" ! avhwdownload ! fakesink
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
#include "gstavhwscaleown.h"

GST_DEBUG_CATEGORY_STATIC (gst_avhw_convert_scale_debug);
#define GST_CAT_DEFAULT gst_avhw_convert_scale_debug

#define DEFAULT_PROP_METHOD GST_AVHW_SCALE_METHOD_DEFAULT
#define DEFAULT_PROP_ADD_BORDERS FALSE
#define DEFAULT_PROP_BORDER_ARGB 0xff000000

enum
{
  PROP_METHOD = GST_AVHW_ELEMENT_PROP_LAST,
  PROP_ADD_BORDERS,
  PROP_ACTIVE_FILTER,
  PROP_BORDER_ARGB,
  PROP_ACTIVE_CONVERTER,
};

struct _GstAvhwConvertScale
{
  GstAvhwBaseTransform parent;

  GstAvhwScaleMethod method;
  gboolean add_borders;
  guint32 border_argb;

  GstVideoInfo in_info, out_info;
  GstAvhwBackend *backend;      /* of the negotiated device memory */
  /* the converter for this conversion, of the device's (or, before one
   * is known, the backend's) list, and its index there */
  const GstAvhwConverterCaps *converter;
  guint converter_index;
  GstAvhwConvertSetup setup;    /* for a converter of the backend's own */
  const gchar *active;          /* its name, for the properties (object lock) */
  const gchar *method_args;
  GstAvhwScaleGraph *graph;     /* a filter converter's */
  GstAvhwScaleOwn *own;         /* a backend converter's */
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
    case PROP_BORDER_ARGB:
      self->border_argb = g_value_get_uint (value);
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
    case PROP_BORDER_ARGB:
      g_value_set_uint (value, self->border_argb);
      break;
    case PROP_ACTIVE_FILTER:
    case PROP_ACTIVE_CONVERTER:
      g_value_set_string (value, self->active);
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
  g_clear_pointer (&self->own, gst_avhw_scale_own_free);
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
    .filter = self->converter->filter,
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

/* The active-converter (and active-filter) property: @name (the
 * converter's static name) converts the negotiated caps; NULL in
 * passthrough. */
static void
set_active (GstAvhwConvertScale * self, const gchar * name)
{
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = g_strcmp0 (self->active, name) != 0;
  self->active = name;
  GST_OBJECT_UNLOCK (self);
  if (changed) {
    g_object_notify (G_OBJECT (self), "active-converter");
    g_object_notify (G_OBJECT (self), "active-filter");
  }
}

/* Checks what set_caps needs beyond the caps transform, and picks the
 * converter: the formats, the method, the borders, the fields, the
 * range. */
static gboolean
check_conversion (GstAvhwConvertScale * self, GstAvhwScaleMethod method,
    gboolean add_borders)
{
  GstAvhwBackend *b = self->backend;
  GstVideoInfo *in = &self->in_info, *out = &self->out_info;
  GstVideoFormat fin = GST_VIDEO_INFO_FORMAT (in);
  GstVideoFormat fout = GST_VIDEO_INFO_FORMAT (out);
  const gchar *name = DEVICE (self) ? gst_avhw_device_get_name (DEVICE (self))
      : gst_avhw_backend_get_name (b);
  gboolean borders = add_borders && gst_avhw_scale_needs_borders (in, out);
  gchar *why = NULL, *what, *names, *msg;
  GstAvhwScaleMissing missing = GST_AVHW_SCALE_MISSING_FORMATS;
  GEnumValue *v;

  self->converter = NULL;
  if (!gst_avhw_scale_has_converters (b, DEVICE (self), &why)) {
    msg = g_strdup_printf ("Device %s cannot scale or convert frames: %s. "
        "Scale on another device, or on the CPU (avhwdownload ! "
        "videoconvertscale ! avhwupload).", name, why);
    g_free (why);
    return refuse (self, msg, NULL);
  }
  names = gst_avhw_scale_list_converters (b, DEVICE (self));
  self->converter = gst_avhw_scale_choose (b, DEVICE (self), fin, fout,
      method, borders, &self->converter_index, &missing);
  if (!self->converter && missing == GST_AVHW_SCALE_MISSING_FORMATS) {
    what = gst_avhw_scale_list_outputs (b, DEVICE (self), fin);
    msg = g_strdup_printf ("%s on %s cannot make %s from %s (from %s it "
        "makes %s).", names, name, FMT (out), FMT (in), FMT (in), what);
    g_free (what);
    g_free (names);
    return refuse (self, msg, NULL);
  }
  if (!self->converter && missing == GST_AVHW_SCALE_MISSING_METHOD) {
    v = g_enum_get_value (g_type_class_peek (GST_TYPE_AVHW_SCALE_METHOD),
        method);
    what = gst_avhw_scale_list_methods (b, DEVICE (self), fin, fout);
    msg = g_strdup_printf ("%s on %s has no %s scaling from %s to %s; set "
        "method to one it has: %s.", names, name, v ? v->value_nick : "such",
        FMT (in), FMT (out), what);
    g_free (what);
    g_free (names);
    return refuse (self, msg, NULL);
  }
  if (!self->converter) {
    msg = g_strdup_printf ("%s on %s cannot add borders: %dx%d (pixel aspect "
        "%d/%d) does not fit %dx%d (pixel aspect %d/%d) without them. Set "
        "add-borders=false to stretch the picture, or leave the output's "
        "pixel-aspect-ratio open.", names, name, GST_VIDEO_INFO_WIDTH (in),
        GST_VIDEO_INFO_HEIGHT (in), GST_VIDEO_INFO_PAR_N (in),
        GST_VIDEO_INFO_PAR_D (in), GST_VIDEO_INFO_WIDTH (out),
        GST_VIDEO_INFO_HEIGHT (out), GST_VIDEO_INFO_PAR_N (out),
        GST_VIDEO_INFO_PAR_D (out));
    g_free (names);
    return refuse (self, msg, NULL);
  }
  g_free (names);
  name = self->converter->name;
  self->method_args = self->converter->method_options[method];
  if (GST_VIDEO_INFO_IS_INTERLACED (in)
      && GST_VIDEO_INFO_HEIGHT (in) != GST_VIDEO_INFO_HEIGHT (out))
    return refuse (self, g_strdup_printf ("%s on %s scales whole frames and "
            "would mix the fields of this interlaced video; keep the height "
            "(%d) or deinterlace first.", name, DEVICE (self) ?
            gst_avhw_device_get_name (DEVICE (self)) :
            gst_avhw_backend_get_name (b), GST_VIDEO_INFO_HEIGHT (in)), NULL);
  if (GST_VIDEO_INFO_IS_RGB (in) && GST_VIDEO_INFO_IS_YUV (out)
      && out->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255)
    return refuse (self, g_strdup ("avhwconvertscale makes limited-range "
            "YUV from RGB; ask for a limited-range colorimetry (or none) on "
            "its output."), NULL);
  /* What a converter of the backend's own is opened for. */
  memset (&self->setup, 0, sizeof (self->setup));
  self->setup.in_info = *in;
  self->setup.out_info = *out;
  gst_avhw_scale_picture_rect (in, out, borders, &self->setup.dest);
  GST_OBJECT_LOCK (self);
  self->setup.border_argb = self->border_argb;
  GST_OBJECT_UNLOCK (self);
  self->setup.method = method;
  return TRUE;
}

/* The session of a converter of the backend's own, on the device. */
static gboolean
open_own (GstAvhwConvertScale * self, GError ** error)
{
  self->own = gst_avhw_scale_own_new (DEVICE (self), self->converter_index,
      &self->setup, error);
  return self->own != NULL;
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
  /* With the device known, make the graph (or open the backend's
   * converter) now, so that a converter refusing these caps fails
   * negotiation; else it is made on the first frame. */
  if (!DEVICE (self))
    goto done;
  if (!self->converter->filter) {
    if (!open_own (self, &err)) {
      refuse (self, g_strdup_printf ("%s on %s cannot make %dx%d %s from "
              "%dx%d %s: %s", self->converter->name,
              gst_avhw_device_get_name (DEVICE (self)),
              GST_VIDEO_INFO_WIDTH (&self->out_info),
              GST_VIDEO_INFO_HEIGHT (&self->out_info), FMT (&self->out_info),
              GST_VIDEO_INFO_WIDTH (&self->in_info),
              GST_VIDEO_INFO_HEIGHT (&self->in_info), FMT (&self->in_info),
              err->message), NULL);
      g_clear_error (&err);
      return FALSE;
    }
    goto done;
  }
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
  set_active (self, gst_base_transform_is_passthrough (trans) ? NULL :
      self->converter->name);
  return TRUE;
}

/* The converter allocates the output frames (a filter from a frames
 * context of its own, a backend's converter from the device's frames): no
 * pool from downstream. */
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

/* A backend's own converter: one output frame per input, straight away,
 * queued to the next pull_output through the pending list. */
static GstFlowReturn
convert_own (GstAvhwConvertScale * self, GstBuffer * inbuf, const AVFrame * src)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GError *err = NULL;
  AVFrame *frame = NULL;
  GstBuffer *out;

  if (self->own || open_own (self, &err))
    frame = gst_avhw_scale_own_convert (self->own, src, &err);
  if (!frame) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Converting on %s failed.",
            gst_avhw_device_get_name (DEVICE (self))), ("%s: %s",
            self->converter->name, err ? err->message : "out of memory"));
    g_clear_error (&err);
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  out = gst_avhw_buffer_new (DEVICE (self), frame, &self->out_info);
  GST_BASE_TRANSFORM_GET_CLASS (trans)->copy_metadata (trans, inbuf, out);
  gst_buffer_unref (inbuf);
  g_queue_push_tail (&self->pending, out);
  return GST_FLOW_OK;
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
  if (!self->converter->filter)
    return convert_own (self, inbuf, gst_avhw_memory_get_frame (mem));
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
  if (self->converter && !self->converter->filter) {
    /* a backend's converter: the buffers made by convert_own */
    *outbuf = g_queue_pop_head (&self->pending);
    return GST_FLOW_OK;
  }
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
        ("%s gave a frame that is not a hardware frame",
            self->converter->filter));
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
   * How the converter interpolates; `default` is the converter's own
   * default (the CUDA backend's cuda-convert: area where it shrinks,
   * bilinear where it grows). The element picks a converter that has the
   * method; where none has it, negotiation fails with an error listing
   * those they have.
   */
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "Interpolation of the device's converter (default: the "
          "converter's own)", GST_TYPE_AVHW_SCALE_METHOD, DEFAULT_PROP_METHOD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwConvertScale:add-borders:
   *
   * Keep the picture's aspect ratio with borders (`border-argb`) where the
   * output's does not match, in the rectangle videoconvertscale's
   * add-borders draws it in. Only converters that draw borders do it (the
   * CUDA backend's cuda-convert; no FFmpeg filter): where borders would be
   * needed and none of the device's converters for the formats draws
   * them, negotiation fails with an error saying so. The default, %FALSE,
   * stretches the picture to the output size.
   */
  g_object_class_install_property (gobject_class, PROP_ADD_BORDERS,
      g_param_spec_boolean ("add-borders", "Add borders",
          "Keep the aspect ratio with borders (where the converter draws "
          "them; else refuse) rather than stretch", DEFAULT_PROP_ADD_BORDERS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwConvertScale:border-argb:
   *
   * The colour of the borders `add-borders` draws, as videoconvertscale's
   * border-argb: 0xAARRGGBB (alpha only where the output has it).
   */
  g_object_class_install_property (gobject_class, PROP_BORDER_ARGB,
      g_param_spec_uint ("border-argb", "Border ARGB",
          "Border colour (0xAARRGGBB)", 0, G_MAXUINT32,
          DEFAULT_PROP_BORDER_ARGB, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwConvertScale:active-converter:
   *
   * The converter that converts the negotiated caps on the device, by
   * its #GstAvhwConverterCaps name: an FFmpeg filter (`scale_cuda`,
   * `scale_vulkan`, `libplacebo`, a vendor's own) or a converter of the
   * backend's own (`cuda-convert`). The element picks the first of the
   * device's converters that makes the formats with the method and the
   * borders asked. %NULL before caps and in passthrough. Notified when it
   * changes.
   */
  g_object_class_install_property (gobject_class, PROP_ACTIVE_CONVERTER,
      g_param_spec_string ("active-converter", "Active converter",
          "Converter of the device converting the negotiated caps (NULL: "
          "none, or passthrough)", NULL, G_PARAM_READABLE |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstAvhwConvertScale:active-filter:
   *
   * The same as `active-converter`, under its older name (a converter
   * that is no FFmpeg filter, `cuda-convert`, is named too).
   */
  g_object_class_install_property (gobject_class, PROP_ACTIVE_FILTER,
      g_param_spec_string ("active-filter", "Active filter",
          "The same as active-converter (its older name)", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /* System memory too, never made or taken: so that such a link is made
   * and negotiation says what to do instead of "could not link". */
  gst_avhw_element_class_add_templates (element_class,
      GST_AVHW_TEMPLATE_DEVICE | GST_AVHW_TEMPLATE_SYSTEM,
      GST_AVHW_TEMPLATE_DEVICE | GST_AVHW_TEMPLATE_SYSTEM,
      GST_AVHW_SCALE_FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "avhw scaler and converter", "Filter/Converter/Video/Scaler/Hardware",
      "Resizes and converts avhw device memory on the device with the "
      "device's converters (FFmpeg filters, the backend's own kernels)",
      "gst-avhw developers");

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
  self->border_argb = DEFAULT_PROP_BORDER_ARGB;
  g_queue_init (&self->pending);
}
