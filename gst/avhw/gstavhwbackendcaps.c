/* gst-avhw: what a backend's devices decode and encode, asked once
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhw-impl.h"

GST_DEBUG_CATEGORY_STATIC (avhw_backend_caps_debug);
#define GST_CAT_DEFAULT avhw_backend_caps_debug

#define KLASS(b) GST_AVHW_BACKEND_GET_CLASS (b)

static void
init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (avhw_backend_caps_debug, "avhwbackendcaps", 0,
        "gst-avhw backend capability queries");
    g_once_init_leave (&once, 1);
  }
}

/* Whether @candidates (transfer full: FFmpeg's decoders or encoders of
 * @what kind for @backend's devices and @codec_id) holds any; else FALSE
 * and @reason says so. */
static gboolean
has_candidates (GstAvhwBackend * backend, GPtrArray * candidates,
    const gchar * what, enum AVCodecID codec_id, gchar ** reason)
{
  gboolean any = candidates->len > 0;

  g_ptr_array_unref (candidates);
  if (!any)
    *reason = g_strdup_printf ("no FFmpeg %s drives %s devices for %s", what,
        KLASS (backend)->name, avcodec_get_name (codec_id));
  return any;
}

/* A backend's answer that breaks the rules counts as a no saying so. */
static gchar *
broken_answer (GstAvhwBackend * backend, const gchar * what,
    enum AVCodecID codec_id, gchar * why)
{
  gchar *reason = g_strdup_printf ("backend %s broke the contract in its "
      "%s answer for %s: %s", KLASS (backend)->name, what,
      avcodec_get_name (codec_id), why);

  GST_WARNING_OBJECT (backend, "%s", reason);
  g_free (why);
  return reason;
}

/**
 * gst_avhw_backend_query_decoder: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 * @caps: (out caller-allocates): the answer; release with
 *   gst_avhw_decoder_caps_clear()
 *
 * What device @index decodes of @codec_id in hardware: a no (with its
 * reason) where the backend has no FFmpeg decoder for it or the backend
 * says so (#GstAvhwBackendClass.query_decoder), else what the backend
 * knows. The answer keeps gst_avhw_decoder_caps_check()'s rules, and
 * every field but @reason is 0 in a no.
 */
void
gst_avhw_backend_query_decoder (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, GstAvhwDecoderCaps * caps)
{
  gchar *reason = NULL, *why = NULL;

  g_return_if_fail (caps != NULL);
  gst_avhw_decoder_caps_init (caps);
  g_return_if_fail (GST_IS_AVHW_BACKEND (backend));
  init_debug ();
  if (!has_candidates (backend, gst_avhw_backend_get_decoders (backend,
              codec_id), "decoder", codec_id, &reason)) {
    caps->supported = FALSE;
  } else if (KLASS (backend)->query_decoder) {
    KLASS (backend)->query_decoder (backend, index, codec_id, caps);
    if (!gst_avhw_decoder_caps_check (caps, &why)) {
      reason = broken_answer (backend, "query_decoder", codec_id, why);
      caps->supported = FALSE;
    } else if (!caps->supported) {
      reason = g_steal_pointer (&caps->reason);
    }
  }
  if (!caps->supported) {
    gst_avhw_decoder_caps_clear (caps);
    caps->reason = reason;
  }
  GST_LOG_OBJECT (backend, "%s:%u %s: %s", KLASS (backend)->name, index,
      avcodec_get_name (codec_id), caps->supported ? "decodes" : caps->reason);
}

/**
 * gst_avhw_backend_query_encoder: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 * @caps: (out caller-allocates): the answer; release with
 *   gst_avhw_encoder_caps_clear()
 *
 * What device @index encodes of @codec_id in hardware, as
 * gst_avhw_backend_query_decoder() for decoders: a no with its reason
 * where FFmpeg has no encoder for the backend's devices, where the backend
 * cannot tell (no #GstAvhwBackendClass.query_encoder) or says no.
 */
void
gst_avhw_backend_query_encoder (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, GstAvhwEncoderCaps * caps)
{
  gchar *reason = NULL, *why = NULL;

  g_return_if_fail (caps != NULL);
  gst_avhw_encoder_caps_init (caps);
  g_return_if_fail (GST_IS_AVHW_BACKEND (backend));
  init_debug ();
  if (!has_candidates (backend, gst_avhw_backend_get_encoders (backend,
              codec_id), "encoder", codec_id, &reason)) {
  } else if (!KLASS (backend)->query_encoder) {
    reason = g_strdup_printf ("backend %s cannot tell before an encoder "
        "opens", KLASS (backend)->name);
  } else {
    KLASS (backend)->query_encoder (backend, index, codec_id, caps);
    if (!gst_avhw_encoder_caps_check (caps, &why)) {
      reason = broken_answer (backend, "query_encoder", codec_id, why);
      caps->supported = FALSE;
    } else if (!caps->supported) {
      reason = g_steal_pointer (&caps->reason);
    }
  }
  if (!caps->supported) {
    gst_avhw_encoder_caps_clear (caps);
    caps->reason = reason;
  }
}

/* @reason (optional) takes @text (transfer full). */
static void
give_reason (gchar ** reason, gchar * text)
{
  if (reason)
    *reason = text;
  else
    g_free (text);
}

/**
 * gst_avhw_backend_device_decodes: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 * @reason: (out) (optional) (transfer full) (nullable): why not
 *
 * #GstAvhwDecoderCaps.supported of gst_avhw_backend_query_decoder().
 *
 * Returns: whether device @index decodes @codec_id in hardware: the backend
 *   has decoder candidates for it and, where the backend can ask its
 *   driver, the device says yes
 */
gboolean
gst_avhw_backend_device_decodes (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, gchar ** reason)
{
  GstAvhwDecoderCaps caps;
  gboolean ok;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  gst_avhw_backend_query_decoder (backend, index, codec_id, &caps);
  ok = caps.supported;
  give_reason (reason, g_steal_pointer (&caps.reason));
  gst_avhw_decoder_caps_clear (&caps);
  return ok;
}

/**
 * gst_avhw_backend_get_decode_description: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 *
 * gst_avhw_decoder_caps_describe() of gst_avhw_backend_query_decoder().
 *
 * Returns: (transfer full) (nullable): what device @index decodes of
 *   @codec_id in hardware, for people ("8-bit 4:2:0, up to 4096x4096"), or
 *   %NULL where it does not decode it or the backend does not say
 */
gchar *
gst_avhw_backend_get_decode_description (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id)
{
  GstAvhwDecoderCaps caps;
  gchar *what;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  gst_avhw_backend_query_decoder (backend, index, codec_id, &caps);
  what = gst_avhw_decoder_caps_describe (&caps);
  gst_avhw_decoder_caps_clear (&caps);
  return what;
}

/**
 * gst_avhw_backend_get_decode_engines: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 *
 * #GstAvhwDecoderCaps.engines of gst_avhw_backend_query_decoder().
 *
 * Returns: how many decoder engines of device @index decode @codec_id at
 *   once, as the driver says; 0 where it does not decode it in hardware or
 *   the backend does not know
 */
guint
gst_avhw_backend_get_decode_engines (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id)
{
  GstAvhwDecoderCaps caps;
  guint n;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), 0);
  gst_avhw_backend_query_decoder (backend, index, codec_id, &caps);
  n = caps.engines;
  gst_avhw_decoder_caps_clear (&caps);
  return n;
}

/**
 * gst_avhw_backend_get_decode_slots: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 *
 * #GstAvhwDecoderCaps.slots of gst_avhw_backend_query_decoder().
 *
 * Returns: how many pictures the hardware decoder of device @index holds at
 *   once for @codec_id (its DPB slots); 0 where it does not decode it in
 *   hardware or no fixed number is known
 */
guint
gst_avhw_backend_get_decode_slots (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id)
{
  GstAvhwDecoderCaps caps;
  guint n;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), 0);
  gst_avhw_backend_query_decoder (backend, index, codec_id, &caps);
  n = caps.slots;
  gst_avhw_decoder_caps_clear (&caps);
  return n;
}

/**
 * gst_avhw_backend_decodes_field_coded: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 * @reason: (out) (optional) (transfer full) (nullable): why not
 *
 * #GstAvhwDecoderCaps.field_coded of gst_avhw_backend_query_decoder().
 *
 * Returns: whether the hardware decoder of device @index decodes @codec_id
 *   streams coded as fields (H.264 frame_mbs_only_flag 0) right; %TRUE
 *   where the backend does not say (and %FALSE, with @reason, where the
 *   device does not decode @codec_id in hardware at all)
 */
gboolean
gst_avhw_backend_decodes_field_coded (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, gchar ** reason)
{
  GstAvhwDecoderCaps caps;
  gboolean ok;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  gst_avhw_backend_query_decoder (backend, index, codec_id, &caps);
  ok = caps.field_coded;
  if (!ok)
    give_reason (reason, caps.supported ?
        g_steal_pointer (&caps.field_coded_reason) :
        g_steal_pointer (&caps.reason));
  gst_avhw_decoder_caps_clear (&caps);
  return ok;
}

/**
 * gst_avhw_backend_get_decode_frame_threads: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 * @reason: (out) (optional) (transfer full) (nullable): why there is a
 *   limit
 *
 * #GstAvhwDecoderCaps.max_frame_threads of
 * gst_avhw_backend_query_decoder().
 *
 * Returns: the most FFmpeg frame threads with which the hardware decoder of
 *   device @index decodes @codec_id right; 0 for any number (also where the
 *   device does not decode @codec_id in hardware)
 */
guint
gst_avhw_backend_get_decode_frame_threads (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id, gchar ** reason)
{
  GstAvhwDecoderCaps caps;
  guint n;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), 0);
  gst_avhw_backend_query_decoder (backend, index, codec_id, &caps);
  n = caps.max_frame_threads;
  if (n)
    give_reason (reason, g_steal_pointer (&caps.frame_threads_reason));
  gst_avhw_decoder_caps_clear (&caps);
  return n;
}

/**
 * gst_avhw_backend_device_encodes: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec_id: the codec
 * @reason: (out) (optional) (transfer full) (nullable): why not
 *
 * #GstAvhwEncoderCaps.supported of gst_avhw_backend_query_encoder().
 *
 * Returns: whether device @index encodes @codec_id in hardware, as the
 *   backend knows from the driver; %FALSE with @reason where it does not,
 *   where FFmpeg has no encoder for the backend's devices, or where the
 *   backend cannot tell
 */
gboolean
gst_avhw_backend_device_encodes (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, gchar ** reason)
{
  GstAvhwEncoderCaps caps;
  gboolean ok;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  gst_avhw_backend_query_encoder (backend, index, codec_id, &caps);
  ok = caps.supported;
  give_reason (reason, g_steal_pointer (&caps.reason));
  gst_avhw_encoder_caps_clear (&caps);
  return ok;
}

/**
 * gst_avhw_backend_device_decodes_codec:
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @codec: FFmpeg's name of the codec ("h264", "hevc", "av1"...)
 * @reason: (out) (optional) (transfer full) (nullable): why not
 *
 * gst_avhw_backend_device_decodes() for bindings, by codec name.
 *
 * Returns: whether device @index decodes @codec in hardware; %FALSE with
 *   @reason for a name FFmpeg does not know
 */
gboolean
gst_avhw_backend_device_decodes_codec (GstAvhwBackend * backend, guint index,
    const gchar * codec, gchar ** reason)
{
  const AVCodecDescriptor *d;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  g_return_val_if_fail (codec != NULL, FALSE);
  d = avcodec_descriptor_get_by_name (codec);
  if (!d) {
    if (reason)
      *reason = g_strdup_printf ("FFmpeg knows no codec named \"%s\"", codec);
    return FALSE;
  }
  return gst_avhw_backend_device_decodes (backend, index, d->id, reason);
}
