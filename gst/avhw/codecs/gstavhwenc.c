/* gst-avhw: avhwenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-avhwenc
 * @title: avhwenc
 *
 * Encodes video to H.264, H.265 or AV1 through FFmpeg's hardware encoders
 * on an avhw device: the backend's candidates in order (`h264_nvenc`,
 * `h264_vaapi`, a vendor's `h264_<vendor>enc`...) or the one `encoder`
 * names. The codec is the first of H.264, H.265 and AV1 that downstream
 * accepts; with several accepted, every hardware candidate of each is tried
 * before any `fallback`.
 *
 * Frames in the device's memory go to a hardware encoder as they are: the
 * encoder uses their frames context, nothing is downloaded or re-uploaded.
 * System memory is uploaded into a frames context from the device cache
 * when the encoder takes only device frames.
 *
 * When no hardware encoder opens (a device with no encoder engine, or no
 * FFmpeg encoder for the backend at all), the stream is encoded on the CPU
 * with a warning, by FFmpeg's software encoder for the codec (`fallback`
 * true, the default) or by the ones `fallback` names (`libx264`,
 * `libx265`); device frames are downloaded once each. With
 * `fallback=false` the element fails instead, with an error naming the
 * device, the codec and each encoder tried with FFmpeg's reason.
 *
 * The output links to muxers as it is (avc, hvc1 or AV1 with its
 * codec_data; byte-stream for mpegtsmux), no parser needed.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=60 ! avhwenc ! mp4mux ! filesink location=out.mp4
 * gst-launch-1.0 videotestsrc num-buffers=60 ! video/x-raw,format=NV12 ! avhwupload device=vulkan ! avhwenc device=vulkan fallback=libx264 ! matroskamux ! filesink location=out.mkv
 * gst-launch-1.0 videotestsrc num-buffers=60 ! avhwenc device=cuda:0 bitrate=4000 rate-control=cbr fallback=libx264 ! h264parse ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/pixdesc.h>
#include "gstavhwencprivate.h"
#include "gstavhwcapsutils.h"

GST_DEBUG_CATEGORY (gst_avhw_enc_debug);
#define GST_CAT_DEFAULT gst_avhw_enc_debug

enum
{
  PROP_ENCODER = GST_AVHW_ELEMENT_PROP_LAST,
  PROP_FALLBACK,
  PROP_BITRATE,
  PROP_MAX_BITRATE,
  PROP_RATE_CONTROL,
  PROP_QP,
  PROP_GOP_SIZE,
  PROP_B_FRAMES,
  PROP_PRESET,
  PROP_TUNE,
  PROP_OPTIONS,
  PROP_ACTIVE_ENCODER,
  PROP_HARDWARE,
};

#define DEFAULT_PROP_ENCODER NULL
#define DEFAULT_PROP_FALLBACK "true"
#define DEFAULT_PROP_BITRATE 0
#define DEFAULT_PROP_MAX_BITRATE 0
#define DEFAULT_PROP_RATE_CONTROL GST_AVHW_ENC_RATE_CONTROL_DEFAULT
#define DEFAULT_PROP_QP -1
#define DEFAULT_PROP_GOP_SIZE -1
#define DEFAULT_PROP_B_FRAMES -1
#define DEFAULT_PROP_PRESET NULL
#define DEFAULT_PROP_TUNE NULL
#define DEFAULT_PROP_OPTIONS NULL

static gpointer gst_avhw_enc_parent_class;
static void gst_avhw_enc_class_init (GstAvhwEncClass * klass);
static void gst_avhw_enc_init (GstAvhwEnc * self);

static void
gst_avhw_enc_class_intern_init (gpointer klass, gpointer data)
{
  gst_avhw_enc_parent_class = g_type_class_peek_parent (klass);
  gst_avhw_enc_class_init (klass);
}

static void
gst_avhw_enc_instance_init (GTypeInstance * instance, gpointer klass)
{
  gst_avhw_enc_init ((GstAvhwEnc *) instance);
}

/* Abstract: avhwenc and each avhw<backend><codec>enc are subclasses with
 * their class data (gst_avhw_enc_register()). */
GType
gst_avhw_enc_get_type (void)
{
  static gsize type;

  if (g_once_init_enter (&type)) {
    const GTypeInfo info = { sizeof (GstAvhwEncClass), NULL, NULL,
      gst_avhw_enc_class_intern_init, NULL, NULL, sizeof (GstAvhwEnc), 0,
      gst_avhw_enc_instance_init, NULL
    };
    GType t =
        g_type_register_static (GST_TYPE_VIDEO_ENCODER, "GstAvhwBaseEnc", &info,
        G_TYPE_FLAG_ABSTRACT);

    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---------------------------------------------------------------- caps */

static void
add_format (GValue * list, GstVideoFormat f)
{
  GValue v = G_VALUE_INIT;
  guint i;

  if (f == GST_VIDEO_FORMAT_UNKNOWN)
    return;
  for (i = 0; i < gst_value_list_get_size (list); i++)
    if (g_str_equal (g_value_get_string (gst_value_list_get_value (list, i)),
            gst_video_format_to_string (f)))
      return;
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, gst_video_format_to_string (f));
  gst_value_list_append_and_take_value (list, &v);
}

static GstCaps *
raw_caps (const GValue * formats, const gchar * feature)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw",
      "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
      "height", GST_TYPE_INT_RANGE, 1, G_MAXINT,
      "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1, NULL);

  gst_caps_set_value (caps, "format", formats);
  if (feature)
    gst_caps_set_features (caps, 0, gst_caps_features_new (feature, NULL));
  return caps;
}

/* Adds the software formats @codec takes to @list; says whether it takes
 * frames of hardware format @hw_fmt. */
static gboolean
add_codec_formats (GValue * list, const AVCodec * codec,
    enum AVPixelFormat hw_fmt)
{
  const enum AVPixelFormat *p = gst_avhw_enc_codec_pix_fmts (codec);
  gboolean takes_hw = FALSE;

  for (; p && *p != AV_PIX_FMT_NONE; p++) {
    if (*p == hw_fmt)
      takes_hw = TRUE;
    else if (!(av_pix_fmt_desc_get (*p)->flags & AV_PIX_FMT_FLAG_HWACCEL))
      add_format (list, gst_avhw_format_from_av (*p));
  }
  return takes_hw;
}

static GstCaps *
make_sink_template_caps (const GstAvhwCodecElementData * data)
{
  GValue list = G_VALUE_INIT;
  const AVCodec *c;
  void *it = NULL;
  GstCaps *caps;
  guint i;

  g_value_init (&list, GST_TYPE_LIST);
  add_format (&list, GST_VIDEO_FORMAT_NV12);
  add_format (&list, GST_VIDEO_FORMAT_P010_10LE);
  while ((c = av_codec_iterate (&it))) {
    if (!av_codec_is_encoder (c))
      continue;
    for (i = 0; i < G_N_ELEMENTS (gst_avhw_enc_codec_ids); i++)
      if (c->id == gst_avhw_enc_codec_ids[i]
          && (data->codec == AV_CODEC_ID_NONE || c->id == data->codec))
        add_codec_formats (&list, c, AV_PIX_FMT_NONE);
  }
  caps = gst_avhw_codec_element_raw_caps (data, &list);
  g_value_unset (&list);
  return caps;
}

static GstCaps *
make_src_template_caps (const GstAvhwCodecElementData * data)
{
  GstCaps *caps = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (gst_avhw_enc_codec_ids); i++)
    if ((data->codec == AV_CODEC_ID_NONE
            || data->codec == gst_avhw_enc_codec_ids[i])
        && avcodec_find_encoder (gst_avhw_enc_codec_ids[i]))
      gst_caps_append (caps,
          gst_avhw_enc_codec_src_caps (gst_avhw_enc_codec_ids[i]));
  return caps;
}

/* Device memory of this device, system memory, and device memory of the
 * other backends present (downloaded), in the formats the encoders usable
 * for the codecs downstream accepts take. With no usable encoder, every
 * format: the stream then reaches the encoder and fails there with a
 * message that says why. */
static GstCaps *
make_sink_caps (GstAvhwEnc * self, GstAvhwDevice * device)
{
  GstAvhwBackend *backend = gst_avhw_device_get_backend (device);
  enum AVPixelFormat hw_fmt = gst_avhw_backend_get_hw_pix_fmt (backend);
  GArray *ids = gst_avhw_enc_accepted_codecs (self);
  GPtrArray *encs = gst_avhw_enc_usable_encoders (self, device, ids);
  GValue sys = G_VALUE_INIT, dev = G_VALUE_INIT;
  GArray *dev_fmts = gst_avhw_device_get_sw_formats (device);
  gboolean takes_hw = FALSE;
  GList *backends, *l;
  GstCaps *caps = NULL;
  guint i, j;

  g_value_init (&sys, GST_TYPE_LIST);
  g_value_init (&dev, GST_TYPE_LIST);
  for (i = 0; i < encs->len; i++)
    takes_hw |= add_codec_formats (&sys, g_ptr_array_index (encs, i), hw_fmt);
  for (i = 0; i < dev_fmts->len; i++) {
    GstVideoFormat f = gst_avhw_format_from_av (g_array_index (dev_fmts, gint,
            i));
    gboolean in_sys = FALSE;

    for (j = 0; j < gst_value_list_get_size (&sys) && f; j++)
      in_sys |= g_str_equal (gst_video_format_to_string (f),
          g_value_get_string (gst_value_list_get_value (&sys, j)));
    if (takes_hw || in_sys)
      add_format (&dev, f);
  }
  if (takes_hw)
    for (i = 0; i < gst_value_list_get_size (&dev); i++)
      add_format (&sys, gst_video_format_from_string (g_value_get_string
              (gst_value_list_get_value (&dev, i))));

  if (gst_value_list_get_size (&sys) > 0) {
    caps = gst_caps_new_empty ();
    if (gst_value_list_get_size (&dev) > 0) {
      const gchar *foreign = gst_avhw_backend_device_imports_foreign
          (backend, device) ? gst_avhw_backend_get_foreign_input_feature
          (backend) : NULL;

      gst_caps_append (caps, raw_caps (&dev,
              gst_avhw_backend_get_caps_feature (backend)));
      /* GStreamer's own memory of this device kind (cudaupload's
       * memory:CUDAMemory): imported on the device */
      if (foreign)
        gst_caps_append (caps, raw_caps (&dev, foreign));
    }
    gst_caps_append (caps, raw_caps (&sys, NULL));
    backends = gst_avhw_backend_list ();
    for (l = backends; l; l = l->next) {
      if (l->data == (gpointer) backend
          || gst_avhw_backend_get_n_devices (l->data, NULL) == 0)
        continue;
      gst_caps_append (caps, raw_caps (&sys,
              gst_avhw_backend_get_caps_feature (l->data)));
    }
    g_list_free_full (backends, gst_object_unref);
  }
  g_value_unset (&sys);
  g_value_unset (&dev);
  g_array_unref (dev_fmts);
  g_ptr_array_unref (encs);
  g_array_unref (ids);
  return caps;
}

static GstCaps *
gst_avhw_enc_getcaps (GstVideoEncoder * encoder, GstCaps * filter)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);
  GstAvhwDevice *device = NULL;
  GstCaps *caps = NULL, *res;

  g_mutex_lock (&self->dev.lock);
  if (self->dev.device)
    device = gst_object_ref (self->dev.device);
  g_mutex_unlock (&self->dev.lock);
  if (device) {
    caps = make_sink_caps (self, device);
    gst_object_unref (device);
  }
  res = gst_video_encoder_proxy_getcaps (encoder, caps, filter);
  gst_clear_caps (&caps);
  return res;
}

/* ---------------------------------------------------------------- encode */

/* A bitrate set while playing: into the running encoder where it takes
 * one (libx264, nvenc), else by draining and reopening it. */
static GstFlowReturn
apply_bitrate_change (GstAvhwEnc * self)
{
  guint bitrate, max_bitrate;

  GST_OBJECT_LOCK (self);
  bitrate = self->props.bitrate;
  max_bitrate = self->props.max_bitrate;
  self->bitrate_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (!self->ctx || (bitrate == self->opened.bitrate
          && max_bitrate == self->opened.max_bitrate))
    return GST_FLOW_OK;
  if (gst_avhw_enc_can_change_bitrate_live (self->ctx, &self->opened, bitrate)) {
    self->opened.bitrate = bitrate;
    self->opened.max_bitrate = max_bitrate;
    gst_avhw_enc_set_bitrate (self->ctx, &self->opened);
    GST_INFO_OBJECT (self, "%s: bitrate now %u kbit/s (max %u)",
        self->codec->name, bitrate, max_bitrate);
    return GST_FLOW_OK;
  }
  GST_INFO_OBJECT (self, "%s cannot change its bitrate while running: "
      "draining and reopening it with %u kbit/s", self->codec->name, bitrate);
  return gst_avhw_enc_drain (self);
}

static GstFlowReturn
gst_avhw_enc_handle_frame (GstVideoEncoder * encoder,
    GstVideoCodecFrame * frame)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);
  GstFlowReturn ret = GST_FLOW_OK;
  GError *err = NULL;
  gboolean changed;
  char errbuf[AV_ERROR_MAX_STRING_SIZE];
  guint32 n = frame->system_frame_number;
  int r;

  GST_OBJECT_LOCK (self);
  changed = self->bitrate_changed;
  GST_OBJECT_UNLOCK (self);
  if (changed && (ret = apply_bitrate_change (self)) != GST_FLOW_OK)
    goto out;

  if (!self->ctx) {
    if (!gst_avhw_enc_open (self, frame->input_buffer)) {
      ret = GST_FLOW_ERROR;
      goto out;
    }
    gst_avhw_enc_ts_opened (&self->ts, MAX (self->ctx->has_b_frames, 0));
    if (self->held_frames == 0)
      gst_avhw_enc_update_latency (self, MAX (self->ctx->has_b_frames, 0));
  }
  if (!GST_CLOCK_TIME_IS_VALID (frame->duration)
      && GST_VIDEO_INFO_FPS_N (&self->input_state->info) > 0)
    frame->duration = gst_util_uint64_scale (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&self->input_state->info),
        GST_VIDEO_INFO_FPS_N (&self->input_state->info));

  if (!gst_avhw_enc_prepare_frame (self, frame->input_buffer, self->frame,
          &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not pass frame %u to " "encoder %s on device %s.", n,
            self->codec->name,
            gst_avhw_device_get_name (GST_AVHW_ENC_DEVICE (self))), ("%s",
            err ? err->message : "unknown"));
    g_clear_error (&err);
    ret = GST_FLOW_ERROR;
    goto out;
  }
  self->frame->pts = n;
  self->frame->pict_type = GST_VIDEO_CODEC_FRAME_IS_FORCE_KEYFRAME (frame) ?
      AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
  if (GST_VIDEO_CODEC_FRAME_IS_FORCE_KEYFRAME (frame))
    GST_DEBUG_OBJECT (self, "frame %u: key frame forced", n);
  gst_avhw_enc_ts_add_frame (&self->ts, n, frame->pts, frame->duration);
  self->last_sent = n;

  for (;;) {
    r = avcodec_send_frame (self->ctx, self->frame);
    if (r != AVERROR (EAGAIN))
      break;
    /* The encoder is full: take packets out, then send again. */
    if ((ret = gst_avhw_enc_receive_packets (self)) != GST_FLOW_OK)
      break;
  }
  av_frame_unref (self->frame);
  if (ret != GST_FLOW_OK)
    goto out;
  if (r < 0) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE, ("Encoder %s refused frame %u "
            "on device %s.", self->codec->name, n,
            gst_avhw_device_get_name (GST_AVHW_ENC_DEVICE (self))),
        ("avcodec_send_frame: %s", av_make_error_string (errbuf,
                sizeof (errbuf), r)));
    ret = GST_FLOW_ERROR;
    goto out;
  }
  ret = gst_avhw_enc_receive_packets (self);

out:
  gst_video_codec_frame_unref (frame);
  return ret;
}

/* EOS: every frame comes out; the encoder reopens on the next frame. */
static GstFlowReturn
gst_avhw_enc_finish (GstVideoEncoder * encoder)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);
  GstFlowReturn ret = gst_avhw_enc_drain (self);

  gst_avhw_enc_ts_reset (&self->ts);
  /* At EOS GstVideoEncoder forwards EOS whatever the drain returned: a
   * refusal downstream would end the stream silently with frames lost. */
  if (ret == GST_FLOW_NOT_NEGOTIATED ? !self->caps_refused : ret < GST_FLOW_EOS)
    GST_ELEMENT_FLOW_ERROR (encoder, ret);
  return ret;
}

static gboolean
gst_avhw_enc_flush (GstVideoEncoder * encoder)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);

  /* Frames inside the encoder are dropped with it. */
  gst_avhw_enc_close (self);
  gst_avhw_enc_ts_reset (&self->ts);
  return TRUE;
}

static gboolean
gst_avhw_enc_set_format (GstVideoEncoder * encoder, GstVideoCodecState * state)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);

  if (self->input_state && gst_caps_is_equal (self->input_state->caps,
          state->caps))
    return TRUE;
  if (self->ctx)
    gst_avhw_enc_drain (self);
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  self->input_state = gst_video_codec_state_ref (state);
  /* The encoder is chosen again for the new input, on its first frame. */
  self->codec = NULL;
  self->held_frames = 0;
  /* PTS shifted up so that DTS before the first PTS stay above 0 */
  gst_video_encoder_set_min_pts (encoder, GST_AVHW_ENC_MIN_PTS);
  GST_INFO_OBJECT (self, "input %" GST_PTR_FORMAT, state->caps);
  return TRUE;
}

static gboolean
gst_avhw_enc_propose_allocation (GstVideoEncoder * encoder, GstQuery * query)
{
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return GST_VIDEO_ENCODER_CLASS (gst_avhw_enc_parent_class)
      ->propose_allocation (encoder, query);
}

/* ---------------------------------------------------------------- element */

static gboolean
gst_avhw_enc_start (GstVideoEncoder * encoder)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);

  self->frame = av_frame_alloc ();
  self->pkt = av_packet_alloc ();
  self->warned_fallback = FALSE;
  self->noted_copy = FALSE;
  gst_avhw_enc_ts_reset (&self->ts);
  return self->frame && self->pkt;
}

static gboolean
gst_avhw_enc_stop (GstVideoEncoder * encoder)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);

  gst_avhw_enc_close (self);
  self->codec = NULL;
  av_frame_free (&self->frame);
  av_packet_free (&self->pkt);
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  g_clear_pointer (&self->downstream_profile, g_free);
  gst_clear_caps (&self->out_caps);
  gst_clear_buffer (&self->codec_data);
  return TRUE;
}

static gboolean
gst_avhw_enc_src_query (GstVideoEncoder * encoder, GstQuery * query)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);

  if (gst_avhw_element_device_query (&self->dev, GST_ELEMENT (self), query))
    return TRUE;
  return GST_VIDEO_ENCODER_CLASS (gst_avhw_enc_parent_class)->src_query
      (encoder, query);
}

static gboolean
gst_avhw_enc_sink_query (GstVideoEncoder * encoder, GstQuery * query)
{
  GstAvhwEnc *self = GST_AVHW_ENC (encoder);

  if (gst_avhw_element_device_query (&self->dev, GST_ELEMENT (self), query))
    return TRUE;
  return GST_VIDEO_ENCODER_CLASS (gst_avhw_enc_parent_class)->sink_query
      (encoder, query);
}

static void
gst_avhw_enc_set_context (GstElement * element, GstContext * context)
{
  GstAvhwEnc *self = GST_AVHW_ENC (element);

  gst_avhw_element_device_set_context (&self->dev, element, context);
  GST_ELEMENT_CLASS (gst_avhw_enc_parent_class)->set_context (element, context);
}

/* NULL -> READY: the encoder names and the options' syntax, before any
 * data flows. */
static gboolean
check_settings (GstAvhwEnc * self)
{
  gchar *forced, *options, **fallbacks, **f;
  GError *err = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  forced = g_strdup (self->encoder_name);
  options = g_strdup (self->props.options);
  GST_OBJECT_UNLOCK (self);
  fallbacks = gst_avhw_enc_fallback_names (self, NULL);

  if (forced && !gst_avhw_enc_find_encoder (forced, &err)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("encoder=%s: %s.", forced,
            err->message), (NULL));
    ok = FALSE;
  }
  for (f = fallbacks; ok && *f; f++) {
    if (**f && !gst_avhw_enc_find_encoder (*f, &err)) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("fallback=%s: %s.", *f,
              err->message), (NULL));
      ok = FALSE;
    }
  }
  if (ok && !gst_avhw_enc_check_options (options, &err)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s.", err->message), (NULL));
    ok = FALSE;
  }
  g_clear_error (&err);
  g_strfreev (fallbacks);
  g_free (forced);
  g_free (options);
  return ok;
}

static GstStateChangeReturn
gst_avhw_enc_change_state (GstElement * element, GstStateChange transition)
{
  GstAvhwEnc *self = GST_AVHW_ENC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && (!check_settings (self)
          || !gst_avhw_element_device_ensure (&self->dev, element)))
    return GST_STATE_CHANGE_FAILURE;
  /* Active on the device from READY->PAUSED to PAUSED->READY: what
   * placement by load counts. */
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    gst_avhw_element_device_begin_session (&self->dev, element);
  ret = GST_ELEMENT_CLASS (gst_avhw_enc_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY
      || (transition == GST_STATE_CHANGE_READY_TO_PAUSED
          && ret == GST_STATE_CHANGE_FAILURE))
    gst_avhw_element_device_end_session (&self->dev, element);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    gst_avhw_element_device_release (&self->dev, element);
  return ret;
}

static void
set_string (gchar ** field, const GValue * value)
{
  g_free (*field);
  *field = g_value_dup_string (value);
  if (*field && !**field)
    g_clear_pointer (field, g_free);
}

static void
gst_avhw_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAvhwEnc *self = GST_AVHW_ENC (object);

  if (gst_avhw_element_device_set_property (&self->dev, GST_ELEMENT (self),
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ENCODER:
      set_string (&self->encoder_name, value);
      break;
    case PROP_FALLBACK:
      set_string (&self->fallback, value);
      break;
    case PROP_BITRATE:
      self->props.bitrate = g_value_get_uint (value);
      self->bitrate_changed = TRUE;
      break;
    case PROP_MAX_BITRATE:
      self->props.max_bitrate = g_value_get_uint (value);
      self->bitrate_changed = TRUE;
      break;
    case PROP_RATE_CONTROL:
      self->props.rate_control = g_value_get_enum (value);
      break;
    case PROP_QP:
      self->props.qp = g_value_get_int (value);
      break;
    case PROP_GOP_SIZE:
      self->props.gop_size = g_value_get_int (value);
      break;
    case PROP_B_FRAMES:
      self->props.b_frames = g_value_get_int (value);
      break;
    case PROP_PRESET:
      set_string (&self->props.preset, value);
      break;
    case PROP_TUNE:
      set_string (&self->props.tune, value);
      break;
    case PROP_OPTIONS:
      set_string (&self->props.options, value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_avhw_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAvhwEnc *self = GST_AVHW_ENC (object);

  if (gst_avhw_element_device_get_property (&self->dev, GST_ELEMENT (self),
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ENCODER:
      g_value_set_string (value, self->encoder_name);
      break;
    case PROP_FALLBACK:
      g_value_set_string (value, self->fallback);
      break;
    case PROP_BITRATE:
      g_value_set_uint (value, self->props.bitrate);
      break;
    case PROP_MAX_BITRATE:
      g_value_set_uint (value, self->props.max_bitrate);
      break;
    case PROP_RATE_CONTROL:
      g_value_set_enum (value, self->props.rate_control);
      break;
    case PROP_QP:
      g_value_set_int (value, self->props.qp);
      break;
    case PROP_GOP_SIZE:
      g_value_set_int (value, self->props.gop_size);
      break;
    case PROP_B_FRAMES:
      g_value_set_int (value, self->props.b_frames);
      break;
    case PROP_PRESET:
      g_value_set_string (value, self->props.preset);
      break;
    case PROP_TUNE:
      g_value_set_string (value, self->props.tune);
      break;
    case PROP_OPTIONS:
      g_value_set_string (value, self->props.options);
      break;
    case PROP_ACTIVE_ENCODER:
      g_value_set_string (value, self->active_encoder);
      break;
    case PROP_HARDWARE:
      g_value_set_boolean (value, self->active_hw);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

/* The active-encoder and hardware properties: @codec encodes the stream.
 * They keep the last stream's once it stops. */
void
gst_avhw_enc_set_active (GstAvhwEnc * self, const AVCodec * codec)
{
  gst_avhw_element_set_active (GST_ELEMENT (self), &self->active_encoder,
      &self->active_hw, codec->name, gst_avhw_enc_codec_is_hardware (codec),
      "active-encoder");
}

static void
gst_avhw_enc_finalize (GObject * object)
{
  GstAvhwEnc *self = GST_AVHW_ENC (object);

  gst_avhw_element_device_clear (&self->dev);
  g_free (self->encoder_name);
  g_free (self->fallback);
  gst_avhw_enc_settings_clear (&self->props);
  G_OBJECT_CLASS (gst_avhw_enc_parent_class)->finalize (object);
}

#define PARAM_READY (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

#define PARAM_READY (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

static void
gst_avhw_enc_class_init (GstAvhwEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoEncoderClass *enc_class = GST_VIDEO_ENCODER_CLASS (klass);

  gobject_class->set_property = gst_avhw_enc_set_property;
  gobject_class->get_property = gst_avhw_enc_get_property;
  gobject_class->finalize = gst_avhw_enc_finalize;
  gst_avhw_element_device_install_properties (gobject_class);

  /**
   * GstAvhwEnc:encoder:
   *
   * Force one FFmpeg encoder by name (`h264_nvenc`, `hevc_vaapi`,
   * `libx264`...) instead of the backend's candidates. Its codec must be
   * one downstream accepts. `fallback` still applies when it fails to open.
   */
  g_object_class_install_property (gobject_class, PROP_ENCODER,
      g_param_spec_string ("encoder", "Encoder",
          "FFmpeg encoder to force (e.g. h264_nvenc); empty: the backend's "
          "candidates", DEFAULT_PROP_ENCODER, PARAM_READY));
  /**
   * GstAvhwEnc:fallback:
   *
   * What to encode with, with a warning, when no hardware encoder opens on
   * the device: `true` (the default, as avhwdec's fallback): FFmpeg's
   * software encoder for the negotiated codec (libx264, libx265; SVT-AV1,
   * else rav1e, before libaom for AV1);
   * `false`: none, no hardware encoder is an error; or software encoders
   * by name, e.g. `libx264` or `libx264,libx265` (the one for the
   * negotiated codec is used).
   */
  g_object_class_install_property (gobject_class, PROP_FALLBACK,
      g_param_spec_string ("fallback", "Fallback",
          "When no hardware encoder opens: true (FFmpeg's software encoder "
          "for the codec, with a warning), false (an error), or encoders by "
          "name (e.g. libx264,libx265)", DEFAULT_PROP_FALLBACK, PARAM_READY));
  /**
   * GstAvhwEnc:bitrate:
   *
   * Target bitrate in kbit/s; 0 leaves it to the encoder. Can change while
   * playing: libx264 and nvenc (opened with a bitrate) take the new value
   * at the next frame; other encoders are drained and reopened with it.
   */
  g_object_class_install_property (gobject_class, PROP_BITRATE,
      g_param_spec_uint ("bitrate", "Bitrate",
          "Target bitrate in kbit/s (0: encoder default)", 0, G_MAXINT / 1000,
          DEFAULT_PROP_BITRATE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstAvhwEnc:max-bitrate:
   *
   * Peak bitrate in kbit/s (the VBV rate, with a one second buffer); 0:
   * none. Changes while playing as `bitrate` does.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_BITRATE,
      g_param_spec_uint ("max-bitrate", "Max bitrate",
          "Peak bitrate in kbit/s (0: none)", 0, G_MAXINT / 1000,
          DEFAULT_PROP_MAX_BITRATE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstAvhwEnc:rate-control:
   *
   * Rate control mode: `cqp` needs `qp`, `cbr` and `vbr` need `bitrate`.
   * Mapped to libx264/libx265 (qp, VBV), nvenc (`rc`) and vaapi
   * (`rc_mode`); an encoder without the mode is an error.
   */
  g_object_class_install_property (gobject_class, PROP_RATE_CONTROL,
      g_param_spec_enum ("rate-control", "Rate control", "Rate control mode",
          GST_TYPE_AVHW_ENC_RATE_CONTROL, DEFAULT_PROP_RATE_CONTROL,
          PARAM_READY));
  /**
   * GstAvhwEnc:qp:
   *
   * Quantizer for `rate-control=cqp`; -1: unset.
   */
  g_object_class_install_property (gobject_class, PROP_QP,
      g_param_spec_int ("qp", "QP",
          "Quantizer for rate-control=cqp (-1: unset)", -1, 255,
          DEFAULT_PROP_QP, PARAM_READY));
  /**
   * GstAvhwEnc:gop-size:
   *
   * Frames from one key frame to the next; -1: the encoder's default.
   */
  g_object_class_install_property (gobject_class, PROP_GOP_SIZE,
      g_param_spec_int ("gop-size", "GOP size",
          "Distance between key frames (-1: encoder default)", -1, G_MAXINT,
          DEFAULT_PROP_GOP_SIZE, PARAM_READY));
  /**
   * GstAvhwEnc:b-frames:
   *
   * Most B-frames between reference frames; -1: the encoder's default.
   */
  g_object_class_install_property (gobject_class, PROP_B_FRAMES,
      g_param_spec_int ("b-frames", "B-frames",
          "Most consecutive B-frames (-1: encoder default)", -1, 16,
          DEFAULT_PROP_B_FRAMES, PARAM_READY));
  /**
   * GstAvhwEnc:preset:
   *
   * The encoder's `preset` option (`veryfast` for libx264, `p4` for nvenc);
   * an encoder without one (vaapi) is an error.
   */
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_string ("preset", "Preset",
          "Encoder preset (e.g. veryfast for libx264, p4 for nvenc)",
          DEFAULT_PROP_PRESET, PARAM_READY));
  /**
   * GstAvhwEnc:tune:
   *
   * The encoder's `tune` option (`zerolatency` for libx264, `ll` for
   * nvenc); an encoder without one is an error.
   */
  g_object_class_install_property (gobject_class, PROP_TUNE,
      g_param_spec_string ("tune", "Tune",
          "Encoder tuning (e.g. zerolatency for libx264, ll for nvenc)",
          DEFAULT_PROP_TUNE, PARAM_READY));
  /**
   * GstAvhwEnc:options:
   *
   * Any other AVOption of the encoder (then of AVCodecContext), as
   * `key=value,key2=value2` (`\,` for a comma in a value); applied last.
   * An unknown key or a value the option refuses is an error naming both,
   * when the encoder opens.
   */
  g_object_class_install_property (gobject_class, PROP_OPTIONS,
      g_param_spec_string ("options", "Options",
          "Other FFmpeg encoder options: key=value,key2=value2",
          DEFAULT_PROP_OPTIONS, PARAM_READY));
  /**
   * GstAvhwEnc:active-encoder:
   *
   * The FFmpeg encoder of the current stream (`h264_nvenc`, `libx264`...),
   * or of the last one once stopped; %NULL before the first. Notified
   * when it changes.
   */
  g_object_class_install_property (gobject_class, PROP_ACTIVE_ENCODER,
      g_param_spec_string ("active-encoder", "Active encoder",
          "FFmpeg encoder of the current (or last) stream", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstAvhwEnc:hardware:
   *
   * Whether #GstAvhwEnc:active-encoder is a hardware encoder (%FALSE: a
   * software one, as `fallback` allows). Notified when it changes.
   */
  g_object_class_install_property (gobject_class, PROP_HARDWARE,
      g_param_spec_boolean ("hardware", "Hardware",
          "Whether the active encoder is a hardware encoder", FALSE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  element_class->set_context = gst_avhw_enc_set_context;
  element_class->change_state = gst_avhw_enc_change_state;
  enc_class->start = gst_avhw_enc_start;
  enc_class->stop = gst_avhw_enc_stop;
  enc_class->set_format = gst_avhw_enc_set_format;
  enc_class->handle_frame = gst_avhw_enc_handle_frame;
  enc_class->finish = gst_avhw_enc_finish;
  enc_class->flush = gst_avhw_enc_flush;
  enc_class->getcaps = gst_avhw_enc_getcaps;
  enc_class->propose_allocation = gst_avhw_enc_propose_allocation;
  enc_class->src_query = gst_avhw_enc_src_query;
  enc_class->sink_query = gst_avhw_enc_sink_query;

  gst_type_mark_as_plugin_api (GST_TYPE_AVHW_ENC_RATE_CONTROL, 0);
  GST_DEBUG_CATEGORY_INIT (gst_avhw_enc_debug, "avhwenc", 0, "avhwenc");
}

static void
gst_avhw_enc_init (GstAvhwEnc * self)
{
  gst_avhw_element_device_init (&self->dev);
  self->props.bitrate = DEFAULT_PROP_BITRATE;
  self->props.max_bitrate = DEFAULT_PROP_MAX_BITRATE;
  self->props.rate_control = DEFAULT_PROP_RATE_CONTROL;
  self->props.qp = DEFAULT_PROP_QP;
  self->props.gop_size = DEFAULT_PROP_GOP_SIZE;
  self->props.b_frames = DEFAULT_PROP_B_FRAMES;
  self->fallback = g_strdup (DEFAULT_PROP_FALLBACK);
  gst_avhw_enc_ts_reset (&self->ts);
}

/* The sink pad takes raw video in the element's device memories and system
 * memory, in the formats FFmpeg's encoders take; the source pad makes its
 * codec (all of H.264, H.265, AV1 that FFmpeg encodes for avhwenc). */
static void
add_templates (GstElementClass * klass, const GstAvhwCodecElementData * data)
{
  GstCaps *sink = make_sink_template_caps (data);
  GstCaps *src = make_src_template_caps (data);

  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (sink);
  gst_caps_unref (src);
}

/**
 * gst_avhw_enc_register:
 * @plugin: the plugin the element belongs to
 * @element_name: its factory name (`avhwenc`, `avhwcudah264enc`)
 * @type_name: its type's name (`GstAvhwEnc`, `GstAvhwCudaH264Enc`)
 * @rank: its rank
 * @data: what sets it apart (copied)
 *
 * Registers an encoder element: a subclass of GstAvhwEnc with @data.
 *
 * Returns: whether it was registered
 */
gboolean
gst_avhw_enc_register (GstPlugin * plugin, const gchar * element_name,
    const gchar * type_name, guint rank, const GstAvhwCodecElementData * data)
{
  return gst_avhw_codec_element_register (plugin, GST_TYPE_AVHW_ENC,
      element_name, type_name, rank, "Codec/Encoder/Video/Hardware", data,
      add_templates);
}
