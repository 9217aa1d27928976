/* gst-avhw: the backend contract
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/pixdesc.h>

#include "gstavhw-impl.h"
#include "gstavhw-private.h"
#include "gstavhwautodec.h"

GST_DEBUG_CATEGORY_STATIC (avhw_backend_debug);
#define GST_CAT_DEFAULT avhw_backend_debug

/**
 * SECTION:gstavhwbackend
 * @title: GstAvhwBackend
 * @short_description: the contract a device backend implements
 *
 * A backend adapts one kind of FFmpeg hardware device (one AVHWDeviceType)
 * to gst-avhw. It names the device type and pixel format as strings, so a
 * vendor fork of FFmpeg with a device type this library has never heard of
 * works without changes here. Optional vfuncs left %NULL get the default
 * described in #GstAvhwBackendClass.
 */

G_DEFINE_ABSTRACT_TYPE (GstAvhwBackend, gst_avhw_backend, GST_TYPE_OBJECT);

GType
gst_avhw_scale_method_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AVHW_SCALE_METHOD_DEFAULT, "The converter's own default",
        "default"},
    {GST_AVHW_SCALE_METHOD_NEAREST, "Nearest neighbour", "nearest-neighbour"},
    {GST_AVHW_SCALE_METHOD_BILINEAR, "Bilinear", "bilinear"},
    {GST_AVHW_SCALE_METHOD_BICUBIC, "Bicubic", "bicubic"},
    {GST_AVHW_SCALE_METHOD_LANCZOS, "Lanczos", "lanczos"},
    {GST_AVHW_SCALE_METHOD_AREA, "Area (box filter) where it shrinks, "
          "bilinear where it grows", "area"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType t = g_enum_register_static ("GstAvhwScaleMethod", values);
    g_once_init_leave (&id, t);
  }
  return id;
}

static gchar *
default_get_device_string (GstAvhwBackend * backend, guint index)
{
  return g_strdup_printf ("%u", index);
}

/**
 * gst_avhw_options_to_dict: (skip)
 * @options: (nullable): device creation options
 * @dict: the dictionary to add them to
 *
 * Adds every field of @options to @dict as strings, the form
 * av_hwdevice_ctx_create() takes, for backends that open devices
 * themselves; #GST_AVHW_OPTION_LANE is not FFmpeg's and is left out.
 */
void
gst_avhw_options_to_dict (const GstStructure * options, AVDictionary ** dict)
{
  guint i, n;

  if (!options)
    return;
  n = gst_structure_n_fields (options);
  for (i = 0; i < n; i++) {
    const gchar *key = gst_structure_nth_field_name (options, i);
    const GValue *v = gst_structure_get_value (options, key);
    gchar *s;

    if (g_str_equal (key, GST_AVHW_OPTION_LANE))
      continue;
    s = G_VALUE_HOLDS_STRING (v) ? g_value_dup_string (v) :
        gst_value_serialize (v);
    av_dict_set (dict, key, s, 0);
    g_free (s);
  }
}

/**
 * gst_avhw_options_get_lane: (skip)
 * @options: (nullable): device creation options
 *
 * Returns: the #GST_AVHW_OPTION_LANE of @options, 0 without one
 */
guint
gst_avhw_options_get_lane (const GstStructure * options)
{
  guint lane = 0;

  if (options)
    gst_structure_get_uint (options, GST_AVHW_OPTION_LANE, &lane);
  return lane;
}

/**
 * gst_avhw_options_has_creation_fields: (skip)
 * @options: (nullable): device creation options
 *
 * Returns: whether @options has fields for FFmpeg's device creation, i.e.
 *   other than #GST_AVHW_OPTION_LANE
 */
gboolean
gst_avhw_options_has_creation_fields (const GstStructure * options)
{
  guint n;

  if (!options)
    return FALSE;
  n = gst_structure_n_fields (options);
  return n > (gst_structure_has_field (options, GST_AVHW_OPTION_LANE) ? 1 : 0);
}

/**
 * gst_avhw_wrap_device_ctx: (skip)
 * @type: the FFmpeg device type
 * @what: what @native is, for messages ("CUcontext", "VADisplay")
 * @native: the native device someone else owns
 * @fill: writes @native into the type's hwctx (AVCUDADeviceContext...)
 * @free_cb: (nullable): runs with @user_opaque when the device context is
 *   freed, and also when this fails: the way a caller's reference on
 *   @native is released
 * @user_opaque: for @free_cb
 * @error: return location for a #GError
 *
 * FFmpeg's two-step construction of a device context around a native
 * device: alloc, fill the hwctx, init. For backends' wrap_device and
 * wrap_foreign_context.
 *
 * Returns: (transfer full) (nullable): the device context, or %NULL with
 *   @error
 */
AVBufferRef *
gst_avhw_wrap_device_ctx (enum AVHWDeviceType type, const gchar * what,
    gpointer native, void (*fill) (void *hwctx, gpointer native),
    void (*free_cb) (AVHWDeviceContext * dctx), void *user_opaque,
    GError ** error)
{
  const char *name = av_hwdevice_get_type_name (type);
  AVBufferRef *ref = av_hwdevice_ctx_alloc (type);
  AVHWDeviceContext *dctx;
  char err[AV_ERROR_MAX_STRING_SIZE];
  int ret;

  if (!ref) {
    if (free_cb) {
      AVHWDeviceContext fake = {.user_opaque = user_opaque };
      free_cb (&fake);
    }
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "%s: this FFmpeg cannot allocate a %s device context", name, name);
    return NULL;
  }
  dctx = (AVHWDeviceContext *) ref->data;
  fill (dctx->hwctx, native);
  dctx->free = free_cb;
  dctx->user_opaque = user_opaque;
  ret = av_hwdevice_ctx_init (ref);
  if (ret < 0) {
    /* Freeing the context runs free_cb, which releases @native. */
    av_buffer_unref (&ref);
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "%s: FFmpeg could not initialise a %s device context around %s %p: "
        "%s", name, name, what, native, GST_AVHW_ERR2STR (err, ret));
  }
  return ref;
}

static AVBufferRef *
default_open_device (GstAvhwBackend * backend, guint index,
    const GstStructure * options, GError ** error)
{
  GstAvhwBackendClass *klass = GST_AVHW_BACKEND_GET_CLASS (backend);
  enum AVHWDeviceType type = gst_avhw_backend_get_hw_device_type (backend);
  AVBufferRef *ref = NULL;
  AVDictionary *dict = NULL;
  gchar *devstr;
  char err[AV_ERROR_MAX_STRING_SIZE];
  int ret;

  devstr = klass->get_device_string (backend, index);
  gst_avhw_options_to_dict (options, &dict);
  ret = av_hwdevice_ctx_create (&ref, type, devstr, dict, 0);
  av_dict_free (&dict);
  if (ret < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "FFmpeg could not create a %s device context for %s:%u "
        "(device \"%s\"): %s", klass->hw_device_type, klass->name, index,
        devstr, GST_AVHW_ERR2STR (err, ret));
    ref = NULL;
  }
  g_free (devstr);
  return ref;
}

static gboolean
codec_uses_device_type (const AVCodec * codec, enum AVHWDeviceType type)
{
  const AVCodecHWConfig *cfg;
  int i;

  for (i = 0; (cfg = avcodec_get_hw_config (codec, i)); i++) {
    if (cfg->device_type == type && (cfg->methods &
            (AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX |
                AV_CODEC_HW_CONFIG_METHOD_HW_FRAMES_CTX)))
      return TRUE;
  }
  return FALSE;
}

static void
add_candidates (GstAvhwBackend * backend, enum AVCodecID codec_id,
    gboolean encoders, GPtrArray * out)
{
  enum AVHWDeviceType type = gst_avhw_backend_get_hw_device_type (backend);
  const AVCodec *codec;
  void *it;
  int pass;

  if (type == AV_HWDEVICE_TYPE_NONE)
    return;
  /* Pass 0: native codecs that drive the device through an FFmpeg hwaccel;
   * pass 1: wrapper codecs (AV_CODEC_CAP_HARDWARE: h264_cuvid, *_nvenc). */
  for (pass = 0; pass < 2; pass++) {
    it = NULL;
    while ((codec = av_codec_iterate (&it))) {
      gboolean wrapper = !!(codec->capabilities & AV_CODEC_CAP_HARDWARE);
      if (codec->id != codec_id)
        continue;
      if ((encoders ? av_codec_is_encoder (codec) :
              av_codec_is_decoder (codec)) == 0)
        continue;
      if (wrapper != (pass == 1))
        continue;
      if (codec_uses_device_type (codec, type))
        g_ptr_array_add (out, (gpointer) codec);
    }
  }
}

static void
default_get_decoders (GstAvhwBackend * backend, enum AVCodecID codec_id,
    GPtrArray * candidates)
{
  add_candidates (backend, codec_id, FALSE, candidates);
}

static void
default_get_encoders (GstAvhwBackend * backend, enum AVCodecID codec_id,
    GPtrArray * candidates)
{
  add_candidates (backend, codec_id, TRUE, candidates);
}

static gboolean
transfer (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    const gchar * what, GError ** error)
{
  char err[AV_ERROR_MAX_STRING_SIZE];
  int ret = av_hwframe_transfer_data (dst, src, 0);

  if (ret < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "%s: %s of a %dx%d %s frame failed: %s",
        GST_AVHW_BACKEND_GET_CLASS (backend)->name, what, src->width,
        src->height, av_get_pix_fmt_name (src->format),
        GST_AVHW_ERR2STR (err, ret));
    return FALSE;
  }
  return TRUE;
}

static gboolean
default_upload (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  return transfer (backend, dst, src, "upload", error);
}

static gboolean
default_download (GstAvhwBackend * backend, AVFrame * dst,
    const AVFrame * src, GError ** error)
{
  return transfer (backend, dst, src, "download", error);
}

static GArray *
default_get_sw_formats (GstAvhwBackend * backend, AVBufferRef * device_ctx)
{
  GArray *arr = g_array_new (FALSE, FALSE, sizeof (gint));
  AVHWFramesConstraints *c;
  int i;

  g_return_val_if_fail (device_ctx != NULL, arr);
  c = av_hwdevice_get_hwframe_constraints (device_ctx, NULL);
  if (c && c->valid_sw_formats) {
    for (i = 0; c->valid_sw_formats[i] != AV_PIX_FMT_NONE; i++) {
      gint f = c->valid_sw_formats[i];
      g_array_append_val (arr, f);
    }
  }
  av_hwframe_constraints_free (&c);
  return arr;
}

static void
default_get_scale_formats (GstAvhwBackend * backend, AVBufferRef * device_ctx,
    enum AVPixelFormat in_format, GArray * out_formats)
{
  gint f = in_format;

  g_array_append_val (out_formats, f);
}

static const gchar *
default_get_scale_method_args (GstAvhwBackend * backend,
    GstAvhwScaleMethod method)
{
  return method == GST_AVHW_SCALE_METHOD_DEFAULT ? "" : NULL;
}

static void
gst_avhw_backend_class_init (GstAvhwBackendClass * klass)
{
  gst_avhw_init ();
  GST_DEBUG_CATEGORY_INIT (avhw_backend_debug, "avhwbackend", 0,
      "gst-avhw backend contract");

  klass->get_device_string = default_get_device_string;
  klass->open_device = default_open_device;
  klass->get_decoders = default_get_decoders;
  klass->get_encoders = default_get_encoders;
  klass->upload = default_upload;
  klass->download = default_download;
  klass->get_sw_formats = default_get_sw_formats;
}

static void
gst_avhw_backend_init (GstAvhwBackend * backend)
{
}

/* Keeps the backend's memory features in its plugin's registry cache
 * data, where gst_avhw_backend_list_memory_features() reads them without
 * loading the plugin (element classes build their pad templates from them
 * while plugins load, when no other plugin may be loaded). */
static void
remember_memory_features (GstPlugin * plugin, GstAvhwBackendClass * klass)
{
  const GstStructure *old = gst_plugin_get_cache_data (plugin);
  GstAvhwForeignInteropInterface *iface = g_type_interface_peek (klass,
      GST_TYPE_AVHW_FOREIGN_INTEROP);
  GstStructure *data;
  const gchar *fields[] = { "memory-features", "foreign-features" };
  const gchar *values[] = { klass->caps_feature,
    iface ? iface->foreign_memory_feature : NULL
  };
  guint i;

  data = old && gst_structure_has_name (old, GST_AVHW_CACHE_DATA_NAME) ?
      gst_structure_copy (old) : gst_structure_new_empty
      (GST_AVHW_CACHE_DATA_NAME);
  for (i = 0; i < G_N_ELEMENTS (fields); i++) {
    const gchar *have = gst_structure_get_string (data, fields[i]);
    gchar *joined;

    if (!values[i] || (have && gst_avhw_strv_string_contains (have, values[i])))
      continue;
    joined = have ? g_strconcat (have, ";", values[i], NULL) :
        g_strdup (values[i]);
    gst_structure_set (data, fields[i], G_TYPE_STRING, joined, NULL);
    g_free (joined);
  }
  gst_plugin_set_cache_data (plugin, data);
}

/**
 * gst_avhw_backend_register:
 * @plugin: the backend's plugin
 * @type: the backend's #GType, a subclass of #GstAvhwBackend
 *
 * Registers @type with gst_dynamic_type_register() so the library finds it
 * through the GStreamer registry and loads the plugin only when a backend is
 * needed, and registers the backend's autoplugging decoders and encoders
 * (`avhw<backend><codec>dec` and `...enc`, see gst_avhw_autodec_register()
 * and gst_avhw_autoenc_register()) for the codecs its present devices
 * decode or encode in hardware. The type name must be of
 * the form `GstAvhw<Name>Backend`. Call it from the backend plugin's
 * plugin_init.
 *
 * Returns: %TRUE on success
 */
gboolean
gst_avhw_backend_register (GstPlugin * plugin, GType type)
{
  const gchar *name = g_type_name (type);
  GstAvhwBackendClass *klass;

  g_return_val_if_fail (g_type_is_a (type, GST_TYPE_AVHW_BACKEND), FALSE);
  if (!g_str_has_prefix (name, "GstAvhw") || !g_str_has_suffix (name,
          "Backend")) {
    GST_ERROR ("backend type %s is not named GstAvhw<Name>Backend", name);
    return FALSE;
  }
  if (!gst_dynamic_type_register (plugin, type))
    return FALSE;

  /* Probe (no device opened) for the autoplugging decoders, unless the
   * backend was built for another contract: the registry refuses it. */
  klass = g_type_class_ref (type);
  /* A struct of another contract version is not read beyond the version:
   * its members may be elsewhere. */
  if (klass->contract_version == GST_AVHW_BACKEND_CONTRACT_VERSION)
    remember_memory_features (plugin, klass);
  if (klass->contract_version == GST_AVHW_BACKEND_CONTRACT_VERSION
      && klass->name && klass->get_n_devices && !G_TYPE_IS_ABSTRACT (type)) {
    GstAvhwBackend *probe = g_object_new (type, "name", klass->name, NULL);

    gst_object_ref_sink (probe);
    gst_avhw_autodec_register (plugin, probe);
    gst_avhw_autoenc_register (plugin, probe);
    gst_object_unref (probe);
  }
  g_type_class_unref (klass);
  return TRUE;
}

#define KLASS(b) GST_AVHW_BACKEND_GET_CLASS (b)

/**
 * gst_avhw_backend_get_name:
 * @backend: a #GstAvhwBackend
 *
 * Returns: (transfer none): the backend's short name, as used in device
 *   strings
 */
const gchar *
gst_avhw_backend_get_name (GstAvhwBackend * backend)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  return KLASS (backend)->name;
}

/**
 * gst_avhw_backend_get_description:
 * @backend: a #GstAvhwBackend
 *
 * Returns: (transfer none) (nullable): one line describing the backend
 */
const gchar *
gst_avhw_backend_get_description (GstAvhwBackend * backend)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  return KLASS (backend)->description;
}

/**
 * gst_avhw_backend_get_caps_feature:
 * @backend: a #GstAvhwBackend
 *
 * Returns: (transfer none): the caps feature of the backend's device memory
 */
const gchar *
gst_avhw_backend_get_caps_feature (GstAvhwBackend * backend)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  return KLASS (backend)->caps_feature;
}

/**
 * gst_avhw_backend_get_rank:
 * @backend: a #GstAvhwBackend
 *
 * Returns: the backend's preference for `auto` device selection
 */
guint
gst_avhw_backend_get_rank (GstAvhwBackend * backend)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), 0);
  return KLASS (backend)->rank;
}

/* FFmpeg types, resolved by name so a fork's own type works. */
enum AVHWDeviceType
gst_avhw_backend_get_hw_device_type (GstAvhwBackend * backend)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), AV_HWDEVICE_TYPE_NONE);
  return av_hwdevice_find_type_by_name (KLASS (backend)->hw_device_type);
}

enum AVPixelFormat
gst_avhw_backend_get_hw_pix_fmt (GstAvhwBackend * backend)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), AV_PIX_FMT_NONE);
  return av_get_pix_fmt (KLASS (backend)->hw_pix_fmt);
}

/**
 * gst_avhw_backend_is_available:
 * @backend: a #GstAvhwBackend
 * @reason: (out) (optional) (transfer full) (nullable): why not
 *
 * Checks that the FFmpeg this process runs with knows the backend's device
 * type and pixel format. Does not touch any device.
 *
 * Returns: %TRUE when FFmpeg supports the backend's device type
 */
gboolean
gst_avhw_backend_is_available (GstAvhwBackend * backend, gchar ** reason)
{
  GstAvhwBackendClass *klass;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  klass = KLASS (backend);
  if (gst_avhw_backend_get_hw_device_type (backend) == AV_HWDEVICE_TYPE_NONE) {
    if (reason)
      *reason = g_strdup_printf ("this FFmpeg (libavutil %s) has no \"%s\" "
          "hardware device type", AV_STRINGIFY (LIBAVUTIL_VERSION),
          klass->hw_device_type);
    return FALSE;
  }
  if (gst_avhw_backend_get_hw_pix_fmt (backend) == AV_PIX_FMT_NONE) {
    if (reason)
      *reason = g_strdup_printf ("this FFmpeg has no \"%s\" pixel format",
          klass->hw_pix_fmt);
    return FALSE;
  }
  return TRUE;
}

/**
 * gst_avhw_backend_get_n_devices:
 * @backend: a #GstAvhwBackend
 * @reason: (out) (optional) (transfer full) (nullable): why there are none
 *
 * Cheap enumeration: creates no device context.
 *
 * Returns: the number of devices this backend can open
 */
guint
gst_avhw_backend_get_n_devices (GstAvhwBackend * backend, gchar ** reason)
{
  gchar *why = NULL;
  guint n;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), 0);
  if (!gst_avhw_backend_is_available (backend, &why)) {
    n = 0;
  } else {
    n = KLASS (backend)->get_n_devices (backend, &why);
    if (n == 0 && !why)
      why = g_strdup ("the backend found no device");
  }
  if (reason)
    *reason = why;
  else
    g_free (why);
  return n;
}

/**
 * gst_avhw_backend_get_device_description:
 * @backend: a #GstAvhwBackend
 * @index: device index
 *
 * Returns: (transfer full): a one-line description of device @index
 */
gchar *
gst_avhw_backend_get_device_description (GstAvhwBackend * backend, guint index)
{
  GstAvhwBackendClass *klass;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  klass = KLASS (backend);
  if (klass->get_device_description)
    return klass->get_device_description (backend, index);
  return g_strdup_printf ("%s:%u", klass->name, index);
}

/**
 * gst_avhw_backend_open_device: (skip)
 * @backend: a #GstAvhwBackend
 * @index: device index
 * @options: (nullable): creation options
 * @error: return location for a #GError
 *
 * Creates a new FFmpeg device context, bypassing the cache. Elements and
 * applications use gst_avhw_device_open() instead.
 *
 * Returns: (transfer full): a new reference to an AVHWDeviceContext, release
 *   with av_buffer_unref()
 */
AVBufferRef *
gst_avhw_backend_open_device (GstAvhwBackend * backend, guint index,
    const GstStructure * options, GError ** error)
{
  AVBufferRef *ref;
  gint64 start;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  start = g_get_monotonic_time ();
  ref = KLASS (backend)->open_device (backend, index, options, error);
  if (ref) {
    gst_avhw_cache_count_device_open ();
    GST_INFO_OBJECT (backend, "created device context %s:%u in %.1f ms",
        KLASS (backend)->name, index,
        (g_get_monotonic_time () - start) / 1000.0);
  }
  return ref;
}

/**
 * gst_avhw_backend_wrap_device: (skip)
 * @backend: a #GstAvhwBackend
 * @native: the backend's native device handle
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new device context around @native, or %NULL
 */
AVBufferRef *
gst_avhw_backend_wrap_device (GstAvhwBackend * backend, gpointer native,
    GError ** error)
{
  GstAvhwBackendClass *klass;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  klass = KLASS (backend);
  if (!klass->wrap_device) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "backend %s cannot wrap a native device handle", klass->name);
    return NULL;
  }
  return klass->wrap_device (backend, native, error);
}

/**
 * gst_avhw_backend_get_decoders: (skip)
 * @backend: a #GstAvhwBackend
 * @codec_id: the codec
 *
 * Returns: (transfer container): ordered `const AVCodec *` candidates
 */
GPtrArray *
gst_avhw_backend_get_decoders (GstAvhwBackend * backend,
    enum AVCodecID codec_id)
{
  GPtrArray *arr = g_ptr_array_new ();

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), arr);
  KLASS (backend)->get_decoders (backend, codec_id, arr);
  return arr;
}

/**
 * gst_avhw_backend_frames_get_buffer: (skip)
 * @backend: a #GstAvhwBackend
 * @frames_ctx: a frames context on one of @backend's devices
 * @frame: an empty frame to fill
 *
 * A new frame of @frames_ctx, as av_hwframe_get_buffer(), in the way the
 * backend needs (see #GstAvhwBackendClass.frames_get_buffer).
 *
 * Returns: 0 or an FFmpeg error code
 */
int
gst_avhw_backend_frames_get_buffer (GstAvhwBackend * backend,
    AVBufferRef * frames_ctx, AVFrame * frame)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), AVERROR (EINVAL));
  if (KLASS (backend)->frames_get_buffer)
    return KLASS (backend)->frames_get_buffer (backend, frames_ctx, frame);
  return av_hwframe_get_buffer (frames_ctx, frame, 0);
}

/**
 * gst_avhw_backend_prepare_decode: (skip)
 * @backend: a #GstAvhwBackend
 * @ctx: a decoder context on one of @backend's devices, in FFmpeg's
 *   get_format, which has chosen the device's pixel format
 *
 * Lets the backend see what FFmpeg's hwaccel is about to be set up for
 * (see #GstAvhwBackendClass.prepare_decode); nothing where it has no
 * prepare_decode.
 */
void
gst_avhw_backend_prepare_decode (GstAvhwBackend * backend,
    const AVCodecContext * ctx)
{
  g_return_if_fail (GST_IS_AVHW_BACKEND (backend));
  if (KLASS (backend)->prepare_decode)
    KLASS (backend)->prepare_decode (backend, ctx);
}

/**
 * gst_avhw_backend_get_encoders: (skip)
 * @backend: a #GstAvhwBackend
 * @codec_id: the codec
 *
 * Returns: (transfer container): ordered `const AVCodec *` candidates
 */
GPtrArray *
gst_avhw_backend_get_encoders (GstAvhwBackend * backend,
    enum AVCodecID codec_id)
{
  GPtrArray *arr = g_ptr_array_new ();

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), arr);
  KLASS (backend)->get_encoders (backend, codec_id, arr);
  return arr;
}

/* A transfer vfunc's result: a failure always comes with an error, even
 * from a backend that gave none, so callers can print its message. */
static gboolean
transfer_result (GstAvhwBackend * backend, gboolean ok, GError * err,
    const gchar * what, GError ** error)
{
  if (ok) {
    g_clear_error (&err);
    return TRUE;
  }
  if (!err)
    err = g_error_new (GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "backend %s: %s failed and gave no reason", KLASS (backend)->name,
        what);
  g_propagate_error (error, err);
  return FALSE;
}

/**
 * gst_avhw_backend_upload: (skip)
 */
gboolean
gst_avhw_backend_upload (GstAvhwBackend * backend, AVFrame * dst,
    const AVFrame * src, GError ** error)
{
  GError *err = NULL;
  gboolean ok;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  ok = KLASS (backend)->upload (backend, dst, src, &err);
  return transfer_result (backend, ok, err, "upload", error);
}

/* Gives @dst planes when it has none, as av_hwframe_transfer_data() does:
 * in the device frames' format (unless @dst names one) and the source's
 * size, so that a backend's download always has planes to fill. */
static gboolean
download_dst (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  if (dst->buf[0])
    return TRUE;
  if (dst->format == AV_PIX_FMT_NONE && src->hw_frames_ctx)
    dst->format = ((AVHWFramesContext *) src->hw_frames_ctx->data)->sw_format;
  if (!dst->width || !dst->height) {
    dst->width = src->width;
    dst->height = src->height;
  }
  if (dst->format == AV_PIX_FMT_NONE || av_frame_get_buffer (dst, 0) < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "%s: download: no memory for a %dx%d %s frame",
        KLASS (backend)->name, dst->width, dst->height,
        av_get_pix_fmt_name (dst->format));
    return FALSE;
  }
  return TRUE;
}

/**
 * gst_avhw_backend_download: (skip)
 */
gboolean
gst_avhw_backend_download (GstAvhwBackend * backend, AVFrame * dst,
    const AVFrame * src, GError ** error)
{
  GError *err = NULL;
  gboolean ok;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  ok = download_dst (backend, dst, src, &err)
      && KLASS (backend)->download (backend, dst, src, &err);
  return transfer_result (backend, ok, err, "download", error);
}

/**
 * gst_avhw_backend_copy: (skip)
 */
gboolean
gst_avhw_backend_copy (GstAvhwBackend * backend, AVFrame * dst,
    const AVFrame * src, GError ** error)
{
  GstAvhwBackendClass *klass;
  GError *err = NULL;
  gboolean ok;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  klass = KLASS (backend);
  if (!klass->copy) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "backend %s does not support device-to-device copies", klass->name);
    return FALSE;
  }
  ok = klass->copy (backend, dst, src, &err);
  return transfer_result (backend, ok, err, "device copy", error);
}

/**
 * gst_avhw_backend_wait_frame: (skip)
 * @backend: a #GstAvhwBackend
 * @frame: a hardware frame of @backend's
 * @error: where to put a failure
 *
 * Waits until the device work that writes @frame is done
 * (#GstAvhwBackendClass.wait_frame); returns at once for a backend whose
 * frames are done when FFmpeg returns them.
 *
 * Returns: %FALSE with @error set when waiting failed
 */
gboolean
gst_avhw_backend_wait_frame (GstAvhwBackend * backend, const AVFrame * frame,
    GError ** error)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  g_return_val_if_fail (frame != NULL, FALSE);
  if (!KLASS (backend)->wait_frame)
    return TRUE;
  return KLASS (backend)->wait_frame (backend, frame, error);
}

/**
 * gst_avhw_backend_get_sw_formats: (skip)
 * @backend: a #GstAvhwBackend
 * @device_ctx: an open device context of this backend
 *
 * Returns: (transfer full): the `enum AVPixelFormat` (as gint) software
 *   formats the device's frames can hold, as FFmpeg's frame constraints say
 */
GArray *
gst_avhw_backend_get_sw_formats (GstAvhwBackend * backend,
    AVBufferRef * device_ctx)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  g_return_val_if_fail (device_ctx != NULL, NULL);
  return KLASS (backend)->get_sw_formats (backend, device_ctx);
}

/**
 * gst_avhw_backend_get_scale_filter:
 * @backend: a #GstAvhwBackend
 *
 * Returns: (transfer none) (nullable): FFmpeg's name of the filter that
 *   scales and converts the backend's frames on the device, or %NULL when
 *   the backend names none
 */
const gchar *
gst_avhw_backend_get_scale_filter (GstAvhwBackend * backend)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  return KLASS (backend)->scale_filter;
}

/**
 * gst_avhw_backend_get_scale_formats: (skip)
 * @backend: a #GstAvhwBackend
 * @device_ctx: an open device context of this backend
 * @in_format: the software format of the input frames
 *
 * Returns: (transfer full): the `enum AVPixelFormat` (as gint) software
 *   formats the backend's scale filter makes from @in_format frames, as the
 *   backend says (empty when it names no filter); the caller keeps those
 *   the device holds
 */
GArray *
gst_avhw_backend_get_scale_formats (GstAvhwBackend * backend,
    AVBufferRef * device_ctx, enum AVPixelFormat in_format)
{
  GstAvhwBackendClass *klass;
  GArray *arr = g_array_new (FALSE, FALSE, sizeof (gint));

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), arr);
  klass = KLASS (backend);
  if (!klass->scale_filter || in_format == AV_PIX_FMT_NONE)
    return arr;
  (klass->get_scale_formats ? klass->get_scale_formats :
      default_get_scale_formats) (backend, device_ctx, in_format, arr);
  return arr;
}

/**
 * gst_avhw_backend_choose_scale_filter: (skip)
 * @backend: a #GstAvhwBackend
 * @in_format: the software format of the input frames
 * @out_format: the software format wanted, one
 *   gst_avhw_backend_get_scale_formats() lists for @in_format
 * @method: an interpolation
 * @options: (out) (transfer none) (nullable): the filter's options for
 *   @method ("" for its default), %NULL when it cannot scale that way
 *
 * Returns: (transfer none) (nullable): FFmpeg's name of the filter that
 *   makes @out_format from @in_format (#GstAvhwBackendClass.scale_filter,
 *   or one #GstAvhwBackendClass.get_scale_filter_for picks), %NULL when the
 *   backend names none
 */
const gchar *
gst_avhw_backend_choose_scale_filter (GstAvhwBackend * backend,
    enum AVPixelFormat in_format, enum AVPixelFormat out_format,
    GstAvhwScaleMethod method, const gchar ** options)
{
  GstAvhwBackendClass *klass;
  const gchar *name;

  *options = NULL;
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  klass = KLASS (backend);
  if (!klass->scale_filter)
    return NULL;
  if (klass->get_scale_filter_for) {
    name = klass->get_scale_filter_for (backend, in_format, out_format,
        method, options);
    if (name)
      return name;
  }
  *options = gst_avhw_backend_get_scale_method_args (backend, method);
  return klass->scale_filter;
}

/**
 * gst_avhw_backend_get_scale_method_args:
 * @backend: a #GstAvhwBackend
 * @method: an interpolation
 *
 * Returns: (transfer none) (nullable): the scale filter's options for
 *   @method ("" for its default), or %NULL when it has no such
 *   interpolation or the backend names no filter
 */
const gchar *
gst_avhw_backend_get_scale_method_args (GstAvhwBackend * backend,
    GstAvhwScaleMethod method)
{
  GstAvhwBackendClass *klass;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  klass = KLASS (backend);
  if (!klass->scale_filter)
    return NULL;
  return (klass->get_scale_method_args ? klass->get_scale_method_args :
      default_get_scale_method_args) (backend, method);
}
