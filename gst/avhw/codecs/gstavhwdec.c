/* gst-avhw: avhwdec
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-avhwdec
 * @title: avhwdec
 *
 * Decodes H.264, H.265, AV1, VP9, VP8, MPEG-2, MPEG-4 part 2 and MJPEG
 * through FFmpeg on an avhw device: an FFmpeg hwaccel on the native decoder
 * or a backend's wrapper decoder (`h264_cuvid`, `h264_<vendor>dec`), in the
 * order the backend gives. Decoded frames stay on the device
 * (`memory:AVHW<Backend>`, no copy) when downstream takes device memory, and
 * are downloaded once into system memory otherwise.
 *
 * When the device has no hardware decoder for the stream (no decoder in
 * FFmpeg for it, or the hardware refuses the profile), `fallback=true`
 * decodes in software with a warning and uploads when device memory is
 * negotiated; `fallback=false` makes that an error naming the device.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! avhwdec ! avhwdownload ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.h265 ! h265parse ! avhwdec device=cuda:0 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwdec-private.h"
#include "gstavhwcapsutils.h"
#include "gstavhwdecsched.h"
#include "gstavhwdecsession.h"
#include "gstavhwelementutils.h"

GST_DEBUG_CATEGORY (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

enum
{
  PROP_DECODER = GST_AVHW_ELEMENT_PROP_LAST,
  PROP_EXTRA_FRAMES,
  PROP_FALLBACK,
  PROP_THREADS,
  PROP_PARALLEL,
  PROP_MAX_BUFFERED,
  PROP_ACTIVE_DECODER,
  PROP_HARDWARE,
  PROP_STATS,
};

#define DEFAULT_PROP_DECODER NULL
#define DEFAULT_PROP_EXTRA_FRAMES 0
#define DEFAULT_PROP_FALLBACK TRUE
#define DEFAULT_PROP_THREADS 0
#define DEFAULT_PROP_PARALLEL 1
#define DEFAULT_PROP_MAX_BUFFERED 256
/* parallel=0 for non-live seekable input, where the device does not count
 * its decoder engines (software decoding): the CPUs, at most this. */
#define AUTO_MAX_SESSIONS 8

static gpointer gst_avhw_dec_parent_class;
static void gst_avhw_dec_class_init (GstAvhwDecClass * klass);
static void gst_avhw_dec_init (GstAvhwDec * self);

static void
gst_avhw_dec_class_intern_init (gpointer klass, gpointer data)
{
  gst_avhw_dec_parent_class = g_type_class_peek_parent (klass);
  gst_avhw_dec_class_init (klass);
}

static void
gst_avhw_dec_instance_init (GTypeInstance * instance, gpointer klass)
{
  gst_avhw_dec_init ((GstAvhwDec *) instance);
}

/* Abstract: avhwdec and each avhw<backend><codec>dec are subclasses with
 * their class data (gst_avhw_dec_register()). */
GType
gst_avhw_dec_get_type (void)
{
  static gsize type;

  if (g_once_init_enter (&type)) {
    const GTypeInfo info = { sizeof (GstAvhwDecClass), NULL, NULL,
      gst_avhw_dec_class_intern_init, NULL, NULL, sizeof (GstAvhwDec), 0,
      gst_avhw_dec_instance_init, NULL
    };
    GType t =
        g_type_register_static (GST_TYPE_VIDEO_DECODER, "GstAvhwBaseDec", &info,
        G_TYPE_FLAG_ABSTRACT);

    g_once_init_leave (&type, t);
  }
  return type;
}



/* ---------------------------------------------------------------- stream */

/* TRUE when upstream says it is live (as gst-libav's avdec asks, to keep
 * frame threads' latency out of live pipelines). */
static gboolean
upstream_is_live (GstAvhwDec * self)
{
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (GST_VIDEO_DECODER_SINK_PAD (self), q))
    gst_query_parse_latency (q, &live, NULL, NULL);
  gst_query_unref (q);
  return live;
}

/* The sessions' shared view of the element and the stream: the
 * properties as they are now. */
static void
init_stream (GstAvhwDec * self, GstVideoCodecState * state)
{
  GstAvhwDecStream *st = &self->stream;

  memset (st, 0, sizeof (*st));
  st->element = GST_ELEMENT (self);
  st->device = DEVICE (self);
  st->decoder_name = self->decoder_name;
  st->fallback = self->fallback;
  st->threads = self->threads;
  st->live = !self->threads && upstream_is_live (self);
  st->extra_frames = self->extra_frames;
  st->codec_data = state->codec_data;
  st->width = GST_VIDEO_INFO_WIDTH (&state->info);
  st->height = GST_VIDEO_INFO_HEIGHT (&state->info);
  st->h264_reorder = -1;
  st->watch = self->watch;
  st->active_decoder = &self->active_decoder;
  st->active_hw = &self->active_hw;
  st->handovers = &self->handovers;
  st->joins = &self->joins;
}

static void
close_stream (GstAvhwDec * self)
{
  /* the scheduler owns the first session once it is there */
  if (self->sched)
    g_clear_pointer (&self->sched, gst_avhw_dec_sched_free);
  else
    gst_avhw_dec_session_close (self->session);
  self->session = NULL;
  self->codec = NULL;
  g_clear_pointer (&self->stream.fields_why, g_free);
  av_buffer_unref (&self->upload_frames);
  av_buffer_unref (&self->copy_frames);
}

/* The stream's first session; FALSE once an error was posted. */
static gboolean
open_session (GstAvhwDec * self, enum AVCodecID id)
{
  self->session = gst_avhw_dec_session_open (&self->stream, id, -1, FALSE);
  if (!self->session)
    return FALSE;
  self->codec = gst_avhw_dec_session_get_codec (self->session);
  return TRUE;
}

static GstFlowReturn drain (GstAvhwDec * self);

static gboolean
gst_avhw_dec_set_format (GstVideoDecoder * decoder, GstVideoCodecState * state)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);
  enum AVCodecID id = gst_avhw_codec_from_caps (state->caps);

  if (id == AV_CODEC_ID_NONE) {
    GST_ELEMENT_ERROR (self, STREAM, WRONG_TYPE, (NULL),
        ("caps %" GST_PTR_FORMAT " are not a codec avhwdec decodes",
            state->caps));
    return FALSE;
  }
  if (self->input_state && self->session && self->codec->id == id
      && gst_caps_is_equal (self->input_state->caps, state->caps)) {
    gst_video_codec_state_unref (self->input_state);
    self->input_state = gst_video_codec_state_ref (state);
    return TRUE;
  }
  /* Upstream offers refused caps again with every buffer: one error. */
  if (self->refused_caps && gst_caps_is_equal (self->refused_caps, state->caps))
    return FALSE;
  if (self->session)
    drain (self);
  close_stream (self);
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  self->input_state = gst_video_codec_state_ref (state);
  g_clear_pointer (&self->watch, gst_avhw_dec_watch_free);
  self->watch = gst_avhw_dec_watch_new (id, state->caps, state->codec_data);
  self->seq_checked = FALSE;
  g_atomic_int_set (&self->n_sessions, 0);
  init_stream (self, self->input_state);
  if (open_session (self, id))
    return TRUE;
  gst_caps_replace (&self->refused_caps, state->caps);
  return FALSE;
}

/* ---------------------------------------------------------------- input */

/* The SPS of an H.264 stream on a hardware decoder, before the decoder
 * sees it (gstavhwdech264.c): field pictures the device decodes wrongly
 * are watched for; a reorder depth the device's picture slots do not hold
 * reopens the decoder with one that fits.
 * The watcher's first SPS: from codec_data, else from the packets scanned
 * so far, this one included. FALSE after an error was posted. */
static gboolean
check_h264_sequence (GstAvhwDec * self)
{
  GstAvhwBackend *backend = gst_avhw_device_get_backend (DEVICE (self));
  guint index = gst_avhw_device_get_index (DEVICE (self));
  const gchar *devname = gst_avhw_device_get_name (DEVICE (self));
  const AVCodec *codec = self->codec;
  const GstAvhwDecH264Seq *seq = gst_avhw_dec_watch_h264_seq (self->watch);
  guint slots;
  gchar *why = NULL;

  if (!seq)
    return TRUE;
  self->seq_checked = TRUE;

  slots = gst_avhw_backend_get_decode_slots (backend, index, codec->id);
  self->stream.h264_reorder = gst_avhw_dec_h264_reorder_for (seq, slots);
  if (self->stream.h264_reorder >= 0) {
    GST_INFO_OBJECT (self, "%u reference frames and the level's reorder "
        "depth %u do not fit the %u picture slots of %s: reorder depth %d%s",
        seq->refs, seq->level_reorder, slots, devname,
        self->stream.h264_reorder,
        seq->in_order ? " (pictures are shown in decoding order)" : "");
    g_clear_pointer (&self->session, gst_avhw_dec_session_close);
    if (!open_session (self, codec->id))
      return FALSE;
  }

  /* its field pictures, if any, go to software (gstavhwdecsession.c) */
  if (seq->field_coded && !gst_avhw_backend_decodes_field_coded (backend,
          index, codec->id, &why)) {
    GST_INFO_OBJECT (self, "field-coded: watching for field pictures (%s)",
        why);
    self->stream.fields_why = why;
  }
  return TRUE;
}

/* How many sessions decode the stream at once (the parallel property;
 * 0: automatic). */
static guint
resolve_n (GstAvhwDec * self)
{
  GstQuery *q;
  gboolean seekable = FALSE;
  guint engines = 0;

  if (self->parallel)
    return self->parallel;
  if (upstream_is_live (self)) {
    GST_DEBUG_OBJECT (self, "parallel=0: one session: upstream is live");
    return 1;
  }
  q = gst_query_new_seeking (GST_FORMAT_TIME);
  if (gst_pad_peer_query (GST_VIDEO_DECODER_SINK_PAD (self), q))
    gst_query_parse_seeking (q, NULL, &seekable, NULL, NULL);
  gst_query_unref (q);
  if (!seekable) {
    GST_DEBUG_OBJECT (self, "parallel=0: one session: upstream cannot seek");
    return 1;
  }
  /* a hardware decoder: one session per decoder engine, as the driver
   * counts them (NVDEC: 7 on an H200) */
  if (gst_avhw_dec_session_is_hw (self->session))
    engines = gst_avhw_backend_get_decode_engines
        (gst_avhw_device_get_backend (DEVICE (self)),
        gst_avhw_device_get_index (DEVICE (self)), self->codec->id);
  if (engines > 0) {
    GST_DEBUG_OBJECT (self, "parallel=0: %u sessions, the device's decoder "
        "engines", engines);
    return MIN (engines, 64);
  }
  return CLAMP (g_get_num_processors (), 1, AUTO_MAX_SESSIONS);
}

/* The scheduler, at the stream's first frame. */
static void
start_sched (GstAvhwDec * self)
{
  guint n = resolve_n (self);

  self->sched = gst_avhw_dec_sched_new (self, self->session, n);
  g_atomic_int_set (&self->n_sessions, gst_avhw_dec_sched_get_n (self->sched));
}

/* @input read by the stream's watcher: what it is into @unit. TRUE once
 * read. */
static gboolean
scan (GstAvhwDec * self, GstBuffer * input, GstAvhwDecUnit * unit)
{
  GstMapInfo map;

  if (!gst_buffer_map (input, &map, GST_MAP_READ))
    return FALSE;
  gst_avhw_dec_watch_scan (self->watch, map.data, map.size, unit);
  gst_buffer_unmap (input, &map);
  return TRUE;
}

static GstFlowReturn
gst_avhw_dec_handle_frame (GstVideoDecoder * decoder,
    GstVideoCodecFrame * frame)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);
  GstAvhwDecUnit unit = { 0, };
  gboolean scanned = FALSE;

  if (!self->session) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no decoder open: caps were never set"));
    gst_video_decoder_release_frame (decoder, frame);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!self->sched && !self->seq_checked
      && self->codec->id == AV_CODEC_ID_H264
      && gst_avhw_dec_session_is_hw (self->session)) {
    scanned = scan (self, frame->input_buffer, &unit);
    if (!check_h264_sequence (self)) {
      gst_video_decoder_release_frame (decoder, frame);
      return GST_FLOW_ERROR;
    }
  }
  if (!self->sched)
    start_sched (self);
  if (!scanned && gst_avhw_dec_sched_reads_units (self->sched))
    scan (self, frame->input_buffer, &unit);
  return gst_avhw_dec_sched_handle_frame (self->sched, frame, &unit);
}

static GstFlowReturn
drain (GstAvhwDec * self)
{
  if (self->sched)
    return gst_avhw_dec_sched_drain (self->sched);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_avhw_dec_drain (GstVideoDecoder * decoder)
{
  return drain (GST_AVHW_DEC (decoder));
}

static GstFlowReturn
gst_avhw_dec_finish (GstVideoDecoder * decoder)
{
  GstFlowReturn ret = drain (GST_AVHW_DEC (decoder));

  /* At EOS GstVideoDecoder forwards EOS whatever the drain returned: a
   * refusal downstream would end the stream silently with frames lost. */
  if (ret == GST_FLOW_NOT_NEGOTIATED || ret < GST_FLOW_EOS)
    GST_ELEMENT_FLOW_ERROR (decoder, ret);
  return ret;
}

static gboolean
gst_avhw_dec_flush (GstVideoDecoder * decoder)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  if (self->sched)
    gst_avhw_dec_sched_flush (self->sched);
  else if (self->session)
    gst_avhw_dec_session_flush (self->session);
  return TRUE;
}

/* ---------------------------------------------------------------- element */

static gboolean
gst_avhw_dec_start (GstVideoDecoder * decoder)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  self->held = g_new0 (HeldCounter, 1);
  self->held->refs = 1;
  g_atomic_int_set (&self->segments, 0);
  g_atomic_int_set (&self->handovers, 0);
  g_atomic_int_set (&self->joins, 0);
  return TRUE;
}

static gboolean
gst_avhw_dec_stop (GstVideoDecoder * decoder)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  close_stream (self);
  g_clear_pointer (&self->watch, gst_avhw_dec_watch_free);
  if (self->held && g_atomic_int_dec_and_test (&self->held->refs))
    g_free (self->held);
  self->held = NULL;
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  g_clear_pointer (&self->output_state, gst_video_codec_state_unref);
  gst_clear_caps (&self->refused_caps);
  self->out_width = self->out_height = 0;
  return TRUE;
}

static gboolean
gst_avhw_dec_src_query (GstVideoDecoder * decoder, GstQuery * query)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  if (gst_avhw_element_device_query (&self->dev, GST_ELEMENT (self), query))
    return TRUE;
  return GST_VIDEO_DECODER_CLASS (gst_avhw_dec_parent_class)->src_query
      (decoder, query);
}

static gboolean
gst_avhw_dec_sink_query (GstVideoDecoder * decoder, GstQuery * query)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  if (gst_avhw_element_device_query (&self->dev, GST_ELEMENT (self), query))
    return TRUE;
  return GST_VIDEO_DECODER_CLASS (gst_avhw_dec_parent_class)->sink_query
      (decoder, query);
}

static void
gst_avhw_dec_set_context (GstElement * element, GstContext * context)
{
  GstAvhwDec *self = GST_AVHW_DEC (element);

  gst_avhw_element_device_set_context (&self->dev, element, context);
  GST_ELEMENT_CLASS (gst_avhw_dec_parent_class)->set_context (element, context);
}

static GstStateChangeReturn
gst_avhw_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstAvhwDec *self = GST_AVHW_DEC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY
      && !gst_avhw_element_device_ensure (&self->dev, element))
    return GST_STATE_CHANGE_FAILURE;
  /* Active on the device from READY->PAUSED to PAUSED->READY: what
   * placement by load counts. */
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    gst_avhw_element_device_begin_session (&self->dev, element);
  ret = GST_ELEMENT_CLASS (gst_avhw_dec_parent_class)->change_state (element,
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
gst_avhw_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAvhwDec *self = GST_AVHW_DEC (object);

  if (gst_avhw_element_device_set_property (&self->dev, GST_ELEMENT (self),
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DECODER:
      g_free (self->decoder_name);
      self->decoder_name = g_value_dup_string (value);
      if (self->decoder_name && !*self->decoder_name)
        g_clear_pointer (&self->decoder_name, g_free);
      break;
    case PROP_EXTRA_FRAMES:
      self->extra_frames = g_value_get_int (value);
      break;
    case PROP_FALLBACK:
      self->fallback = g_value_get_boolean (value);
      break;
    case PROP_THREADS:
      self->threads = g_value_get_int (value);
      break;
    case PROP_PARALLEL:
      self->parallel = g_value_get_uint (value);
      break;
    case PROP_MAX_BUFFERED:
      self->max_buffered = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_avhw_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAvhwDec *self = GST_AVHW_DEC (object);

  if (gst_avhw_element_device_get_property (&self->dev, GST_ELEMENT (self),
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DECODER:
      g_value_set_string (value, self->decoder_name);
      break;
    case PROP_EXTRA_FRAMES:
      g_value_set_int (value, self->extra_frames);
      break;
    case PROP_FALLBACK:
      g_value_set_boolean (value, self->fallback);
      break;
    case PROP_THREADS:
      g_value_set_int (value, self->threads);
      break;
    case PROP_PARALLEL:
      g_value_set_uint (value, self->parallel);
      break;
    case PROP_MAX_BUFFERED:
      g_value_set_uint (value, self->max_buffered);
      break;
    case PROP_ACTIVE_DECODER:
      g_value_set_string (value, self->active_decoder);
      break;
    case PROP_HARDWARE:
      g_value_set_boolean (value, self->active_hw);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, gst_structure_new ("avhwdec-stats",
              "sessions", G_TYPE_UINT, g_atomic_int_get (&self->n_sessions),
              "segments", G_TYPE_UINT, g_atomic_int_get (&self->segments),
              "handovers", G_TYPE_UINT,
              g_atomic_int_get (&self->handovers), "joins", G_TYPE_UINT,
              g_atomic_int_get (&self->joins), NULL));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_avhw_dec_finalize (GObject * object)
{
  GstAvhwDec *self = GST_AVHW_DEC (object);

  gst_avhw_element_device_clear (&self->dev);
  g_free (self->decoder_name);
  G_OBJECT_CLASS (gst_avhw_dec_parent_class)->finalize (object);
}

/* Sink caps: every codec of the map that this FFmpeg can decode at all. */
static GstCaps *
make_all_codecs_caps (void)
{
  GstCaps *caps = gst_caps_new_empty ();
  const enum AVCodecID *ids;
  guint n, i;

  ids = gst_avhw_codec_list (&n);
  for (i = 0; i < n; i++)
    if (avcodec_find_decoder (ids[i]))
      gst_caps_append (caps, gst_avhw_codec_get_caps (ids[i]));
  return caps;
}

static void
gst_avhw_dec_class_init (GstAvhwDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoDecoderClass *dec_class = GST_VIDEO_DECODER_CLASS (klass);

  gobject_class->set_property = gst_avhw_dec_set_property;
  gobject_class->get_property = gst_avhw_dec_get_property;
  gobject_class->finalize = gst_avhw_dec_finalize;
  gst_avhw_element_device_install_properties (gobject_class);

  /**
   * GstAvhwDec:decoder:
   *
   * Force one FFmpeg decoder by name (`h264`, `h264_cuvid`...) instead of
   * the backend's candidates; no software fallback then.
   */
  g_object_class_install_property (gobject_class, PROP_DECODER,
      g_param_spec_string ("decoder", "Decoder",
          "FFmpeg decoder to force (e.g. h264_cuvid); empty: the backend's "
          "candidates", DEFAULT_PROP_DECODER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:extra-frames:
   *
   * Surfaces added to the decoder's pool for frames held downstream
   * (queues, encoders). One held frame (a sink's last sample) is covered
   * by the spare surfaces FFmpeg gives every hardware decoder; when
   * downstream holds more than extra-frames + 1 of the decoder's frames,
   * further frames are copied on the device instead.
   */
  g_object_class_install_property (gobject_class, PROP_EXTRA_FRAMES,
      g_param_spec_int ("extra-frames", "Extra frames",
          "Extra surfaces in the device pool for frames held downstream "
          "(each costs device memory; past them frames are copied)",
          0, 64, DEFAULT_PROP_EXTRA_FRAMES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:fallback:
   *
   * Decode in software (and upload for device memory output), with a
   * warning, when the device has no hardware decoder for the stream, and
   * when its hardware decoder fails mid-stream (an error that is not the
   * stream's: then from the next key frame on). Off: an error in both
   * cases.
   */
  g_object_class_install_property (gobject_class, PROP_FALLBACK,
      g_param_spec_boolean ("fallback", "Fallback",
          "Decode in software when the device cannot (warning); off: error",
          DEFAULT_PROP_FALLBACK,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:threads:
   *
   * FFmpeg frame threads. 0: automatic, two for a hardware decoder that
   * is alone on its device (the next frame is parsed while the device
   * decodes this one; each thread adds a surface and a frame of latency;
   * with several decoders the device is the limit), one per CPU for
   * software decoding, and none when upstream is live (software: slice
   * threads); 1: decode in the streaming thread only.
   */
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_int ("threads", "Threads",
          "FFmpeg frame threads (0: automatic: 2 for a hardware decoder "
          "alone on its device, none when live; 1: none)", 0, 16,
          DEFAULT_PROP_THREADS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstAvhwDec:parallel:
   *
   * Decoder sessions decoding one stream at once (GOP-parallel): the
   * stream is cut where decoding can start afresh (H.264 IDR; H.265 IDR
   * and BLA; VP9 and AV1 shown key frames) and up to this many segments
   * decode at once, each on its own session on the same device; frames
   * go out in the stream's order with its timestamps, bit-exact to
   * parallel=1. Hardware decoders (NVDEC: one session per engine) and
   * software decoders alike. 0: automatic, for non-live seekable input:
   * a hardware decoder's engine count where the backend knows it, else
   * the host's CPU count (at most 8); 1 otherwise. 1: one session, as
   * before. A stream that cannot be cut (another codec, another
   * alignment) decodes with one session; the debug log says why, and at
   * each end of stream (avhwdec:4) where each session's time went.
   */
  g_object_class_install_property (gobject_class, PROP_PARALLEL,
      g_param_spec_uint ("parallel", "Parallel",
          "Decoder sessions decoding segments of the stream at once (0: "
          "automatic; 1: one, no cutting)", 0, 64, DEFAULT_PROP_PARALLEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:max-buffered:
   *
   * With parallel > 1: decoded frames that may wait for their turn (the
   * segments after the one going out); past it, the sessions of later
   * segments wait. Waiting hardware frames are copies on the device (a
   * 1080p NV12 frame: about 3 MiB), off the decoders' surfaces.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_BUFFERED,
      g_param_spec_uint ("max-buffered", "Max buffered",
          "With parallel > 1: decoded frames waiting for their turn, at "
          "most (then later segments' sessions wait)", 1, G_MAXINT,
          DEFAULT_PROP_MAX_BUFFERED,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:active-decoder:
   *
   * The FFmpeg decoder of the current stream (`h264`, `hevc_cuvid`...), or
   * of the last one once stopped; %NULL before the first. Notified when it
   * changes.
   */
  g_object_class_install_property (gobject_class, PROP_ACTIVE_DECODER,
      g_param_spec_string ("active-decoder", "Active decoder",
          "FFmpeg decoder of the current (or last) stream", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstAvhwDec:hardware:
   *
   * Whether #GstAvhwDec:active-decoder decodes on the device's hardware
   * (%FALSE: in software, as `fallback` allows). For a hwaccel decoder
   * (`h264` on cuda or vulkan) it is settled at the stream's first
   * picture. Notified when it changes.
   */
  g_object_class_install_property (gobject_class, PROP_HARDWARE,
      g_param_spec_boolean ("hardware", "Hardware",
          "Whether the active decoder decodes on the device's hardware",
          FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstAvhwDec:stats:
   *
   * What decoding did since the element last started (READY to PAUSED),
   * as counters: `sessions` (guint: decoder sessions decoding the current
   * or last stream at once; 0 before its first frame), `segments` (guint:
   * segments the input was cut into with parallel > 1; none with one
   * session) and `handovers` (guint: sessions whose hardware decoder
   * failed, or met field pictures the device decodes wrongly, and went on
   * in software) and `joins` (guint: streams, or with parallel > 1
   * segments, that ended by a join rather than a drain and flush, which
   * keeps an H.264 hardware decoder's surfaces).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Stats",
          "Counters since start: sessions (of the current stream), "
          "segments, handovers to software, joins", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  element_class->set_context = gst_avhw_dec_set_context;
  element_class->change_state = gst_avhw_dec_change_state;
  dec_class->start = gst_avhw_dec_start;
  dec_class->stop = gst_avhw_dec_stop;
  dec_class->set_format = gst_avhw_dec_set_format;
  dec_class->handle_frame = gst_avhw_dec_handle_frame;
  dec_class->drain = gst_avhw_dec_drain;
  dec_class->finish = gst_avhw_dec_finish;
  dec_class->flush = gst_avhw_dec_flush;
  dec_class->src_query = gst_avhw_dec_src_query;
  dec_class->sink_query = gst_avhw_dec_sink_query;

  GST_DEBUG_CATEGORY_INIT (gst_avhw_dec_debug, "avhwdec", 0, "avhwdec");
}

static void
gst_avhw_dec_init (GstAvhwDec * self)
{
  gst_avhw_element_device_init (&self->dev);
  self->extra_frames = DEFAULT_PROP_EXTRA_FRAMES;
  self->fallback = DEFAULT_PROP_FALLBACK;
  self->threads = DEFAULT_PROP_THREADS;
  self->parallel = DEFAULT_PROP_PARALLEL;
  self->max_buffered = DEFAULT_PROP_MAX_BUFFERED;
  gst_video_decoder_set_packetized (GST_VIDEO_DECODER (self), TRUE);
  gst_video_decoder_set_needs_format (GST_VIDEO_DECODER (self), TRUE);
}

/* The sink pad takes the element's codec (all of them for avhwdec), the
 * source pad gives raw video in its device memories and system memory. */
static void
add_templates (GstElementClass * klass, const GstAvhwCodecElementData * data)
{
  GstCaps *sink = data->codec == AV_CODEC_ID_NONE ? make_all_codecs_caps () :
      gst_avhw_codec_get_caps (data->codec);
  GstCaps *src = gst_avhw_codec_element_raw_caps (data, NULL);

  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (sink);
  gst_caps_unref (src);
}

/**
 * gst_avhw_dec_register:
 * @plugin: the plugin the element belongs to
 * @element_name: its factory name (`avhwdec`, `avhwcudah264dec`)
 * @type_name: its type's name (`GstAvhwDec`, `GstAvhwCudaH264Dec`)
 * @rank: its rank
 * @data: what sets it apart (copied)
 *
 * Registers a decoder element: a subclass of GstAvhwDec with @data.
 *
 * Returns: whether it was registered
 */
gboolean
gst_avhw_dec_register (GstPlugin * plugin, const gchar * element_name,
    const gchar * type_name, guint rank, const GstAvhwCodecElementData * data)
{
  return gst_avhw_codec_element_register (plugin, GST_TYPE_AVHW_DEC,
      element_name, type_name, rank, "Codec/Decoder/Video/Hardware", data,
      add_templates);
}
