/* gst-avhw: the backend contract, for those who implement a backend (and
 * the elements): the class struct and the calls that take FFmpeg types
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend.h>
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavcodec/avcodec.h>

G_BEGIN_DECLS

/**
 * GST_AVHW_BACKEND_CONTRACT_VERSION:
 *
 * The version of the backend contract this library speaks. A backend stores
 * the value it was compiled against in #GstAvhwBackendClass.contract_version
 * (gst_avhw_backend_class_init_contract() does that); the registry refuses a
 * backend whose version differs, with a message naming both versions.
 */
#define GST_AVHW_BACKEND_CONTRACT_VERSION 2

/**
 * GstAvhwBackendClass:
 * @parent_class: the parent class
 * @contract_version: GST_AVHW_BACKEND_CONTRACT_VERSION as the backend was
 *   built. Required; set it with gst_avhw_backend_class_init_contract().
 * @name: short lower-case name used in device strings ("vulkan", "cuda").
 *   Required.
 * @description: one line for humans. Optional.
 * @hw_device_type: FFmpeg's name of the hardware device type, resolved at
 *   run time with av_hwdevice_find_type_by_name() ("vulkan", "cuda", or a
 *   vendor fork's own). Required.
 * @hw_pix_fmt: FFmpeg's name of the hardware pixel format of the backend's
 *   frames, resolved with av_get_pix_fmt() ("vulkan", "cuda"). Required.
 * @caps_feature: caps feature of the backend's device memory
 *   ("memory:AVHWVulkan"). Required.
 * @rank: preference when a user asks for `auto`: the present backend with
 *   the highest rank wins (a #GstRank value). Optional, defaults to 0.
 * @get_n_devices: cheap enumeration that must not create a device context or
 *   wake the device. Returns the number of devices; when it returns 0 it may
 *   set @reason to a newly allocated string saying why. Required.
 * @get_device_description: a one-line description of device @index ("llvmpipe
 *   (LLVM 15)"). Optional; the default is "<name>:<index>".
 * @get_device_string: the `device` argument handed to
 *   av_hwdevice_ctx_create() for device @index. Optional; the default is the
 *   index in decimal.
 * @open_device: creates the FFmpeg device context for device @index, with
 *   @options as av_hwdevice_ctx_create() options. Returns a new reference or
 *   %NULL with @error set. Optional; the default calls
 *   av_hwdevice_ctx_create() with @get_device_string. When the device cache
 *   spreads sessions over several device contexts of one device
 *   (`GST_AVHW_DEVICE_LANES`), @options carry #GST_AVHW_OPTION_LANE (1 and
 *   up) and the context returned must be independent of the device's
 *   others (its own CUDA context, its own VkDevice); the field is not an
 *   FFmpeg option (gst_avhw_options_to_dict() leaves it out).
 * @wrap_device: wraps a native device handle that someone else owns (a
 *   CUcontext, a VkDevice...) into a new FFmpeg device context (alloc, fill
 *   hwctx, init). The meaning of @native is backend specific and documented
 *   by the backend. Optional; absent means wrapping is not supported.
 * @get_decoders: the ordered FFmpeg decoder candidates for @codec_id that
 *   decode on this backend's devices: a native decoder with an FFmpeg hwaccel
 *   for the device type, or a wrapper decoder (h264_cuvid,
 *   h264_<vendor>dec). Add `const AVCodec *` to @candidates. Optional; the
 *   default adds every decoder whose hardware configuration names the
 *   backend's device type, native decoders first.
 * @get_encoders: the same for encoders. Optional; same default.
 * @upload: copies the system-memory frame @src into the device frame @dst.
 *   Optional; the default is av_hwframe_transfer_data().
 * @download: copies the device frame @src into the system-memory frame
 *   @dst, which has planes (the library gives a frame without any planes
 *   in the device frames' format and @src's size first, as
 *   av_hwframe_transfer_data() does). Optional; the default is
 *   av_hwframe_transfer_data().
 * @copy: device-to-device copy of @src into @dst. Optional; absent means
 *   such a copy fails with a clear "not supported" error.
 * @get_sw_formats: the software formats (`enum AVPixelFormat` as gint) the
 *   frames of the device @device_ctx can hold, as a new array. Optional;
 *   the default is FFmpeg's frame constraints. The library keeps only those
 *   it can really allocate.
 * @query_decoder: what device @index decodes of @codec_id in hardware,
 *   in one answer (#GstAvhwDecoderCaps), from the driver's own capability
 *   query (cuvidGetDecoderCaps, vkGetPhysicalDeviceVideoCapabilitiesKHR),
 *   cheap: asked once per device and kept. The library fills @caps with
 *   gst_avhw_decoder_caps_init() first and asks only where the backend has
 *   decoder candidates for @codec_id; the backend changes what it knows (a
 *   no with its @reason; slots, engines, limits and their reasons). An
 *   answer that breaks gst_avhw_decoder_caps_check()'s rules counts as a
 *   no. Used to register autoplugging decoders, by avhwdec (software
 *   straight away, parallel=0, H.264 slots, field-coded streams, frame
 *   threads) and by gst-avhw-info. Optional; absent: every codec with
 *   candidates decodes, nothing more known.
 * @query_encoder: the same for encoding, in a #GstAvhwEncoderCaps
 *   (gst_avhw_encoder_caps_init(): not supported), asked cheaply (no
 *   encoder session where it can be avoided), only where the backend has
 *   encoder candidates. Where it says yes, an autoplugging encoder
 *   `avhw<backend><codec>enc` is registered for encodebin and transcodebin.
 *   Optional; absent: not known, nothing is registered (avhwenc still
 *   tries the backend's encoders when it opens).
 * @scale_filter: FFmpeg's name of the libavfilter filter that scales and
 *   converts this backend's hardware frames on the device ("scale_cuda",
 *   "scale_vulkan", a vendor's own), looked up at run time with
 *   avfilter_get_by_name(). It must take the options `w`, `h` and `format`
 *   (an output software format name). The library describes it, with the
 *   three calls below, as converters (#GstAvhwConverterCaps, one per input
 *   format and filter) after those of @query_converter. Optional; %NULL
 *   with no @query_converter: the backend's devices do not scale, and
 *   avhwconvertscale says so.
 * @get_scale_formats: adds to @out_formats (`enum AVPixelFormat` as gint)
 *   the software formats @scale_filter makes from frames of @in_format on
 *   the device @device_ctx, @in_format itself included where the filter
 *   scales it; none when it does not take @in_format. Optional; the
 *   default is @in_format alone (scaling without conversion).
 * @get_scale_method_args: the @scale_filter options ("interp_algo=bicubic")
 *   that select @method, "" for the filter's default, %NULL when the filter
 *   cannot scale that way. Optional; the default accepts
 *   %GST_AVHW_SCALE_METHOD_DEFAULT only.
 * @get_scale_filter_for: for a backend with more than one filter (Vulkan:
 *   scale_vulkan, and libplacebo for what scale_vulkan cannot make), the
 *   filter that makes @out_format from @in_format (one @get_scale_formats
 *   lists), and in @options its options for @method ("" for its default;
 *   %NULL when it cannot scale that way); the filter takes `w`, `h` and
 *   `format` like @scale_filter. Returns %NULL for @scale_filter with
 *   @get_scale_method_args. Optional; %NULL: @scale_filter for every conversion.
 * @frames_get_buffer: a new frame of the frames context @frames_ctx into
 *   @frame, as av_hwframe_get_buffer() (its return value). For a backend
 *   whose FFmpeg hwcontext uses a device queue while allocating, so that
 *   allocations must not overlap its own transfers (FFmpeg 5.1's Vulkan
 *   frames submit a layout transition from each new frame). Every device
 *   frame avhw allocates comes through it. Optional; the default is
 *   av_hwframe_get_buffer().
 * @wait_frame: blocks until the device work that writes @frame (a frame
 *   of this backend's) is done. For backends whose FFmpeg filters return
 *   frames before the device has drawn them (FFmpeg's Vulkan filters,
 *   libplacebo): avhw calls it before it frees what that work may still
 *   use (a filter graph). Optional; absent: frames are done when they are
 *   returned.
 * @query_converter: describes converter @index of the device @device_ctx
 *   (%NULL: what the backend says without a device, for caps before one
 *   is open) in @caps, which the library filled with
 *   gst_avhw_converter_caps_init(); returns %FALSE, leaving @caps alone,
 *   past the last one. Asked once per device from index 0 up and kept; the
 *   answers are the device's converters in the order avhwconvertscale
 *   prefers them, before those of @scale_filter. A converter is a
 *   libavfilter filter (#GstAvhwConverterCaps.filter) or one the backend
 *   runs itself (no filter: @converter_open, @convert, @converter_close).
 *   An answer that breaks gst_avhw_converter_caps_check()'s rules converts
 *   nothing. Optional; absent: the converters of @scale_filter only.
 * @converter_open: opens a session of the backend's own converter @index
 *   for the conversion @setup on the device @device_ctx: everything that
 *   can be done once per negotiation (kernels loaded, parameters
 *   computed). Returns the session, or %NULL with @error set; a setup the
 *   converter cannot do (a colour matrix it lacks) is refused here, and
 *   avhwconvertscale refuses the caps with @error's message. Optional
 *   (with @convert and @converter_close).
 * @convert: converts the device frame @src (of the setup's input) into
 *   @dst, a frame the library allocated with @frames_get_buffer from the
 *   device's frames of the setup's output format and size: queued on the
 *   device in order with the frames' other work (on CUDA, the device
 *   context's stream), not waited for. Returns %FALSE with @error set.
 * @converter_close: frees a session of @converter_open.
 * @get_default_lanes: how many device contexts the device cache may open
 *   on device @index for sessions that run at once, where the application
 *   did not choose (gst_avhw_cache_set_lanes(), `GST_AVHW_DEVICE_LANES`):
 *   more than 1 where the device's driver serialises work per context and
 *   each context is cheap. Optional (added in version 2 from the padding);
 *   absent or 0: 1.
 * @get_lane_sessions: how many sessions lane @lane (0 to get_default_lanes
 *   - 1) of device @index runs at full speed: the cache places a session
 *   on the open lane where one more makes the fewest for that many, and
 *   opens the next lane only when every open one has that many. Asked
 *   only for the lanes get_default_lanes chose. Optional (added in
 *   version 2 from the padding); absent or 0: 1.
 * @prepare_decode: called when a hardware decoder on one of the backend's
 *   devices (@ctx's hw_device_ctx) has chosen the device's pixel format in
 *   FFmpeg's get_format, on the thread that sets up FFmpeg's hwaccel right
 *   after it returns: @ctx's codec, profile and coded size are those of
 *   the stream. A backend may note what that set-up is for (the vulkan
 *   backend sizes the decode session for that coded size instead of the
 *   largest the device takes). Optional (added in version 2 from the
 *   padding).
 *
 * Interop with GStreamer's own device types (CUDA, Vulkan, VA: contexts
 * and memory) is not in the class: a backend that has it implements the
 * optional #GstAvhwForeignInteropInterface.
 *
 * A backend is one subclass of #GstAvhwBackend living in its own plugin; it
 * registers its type with gst_avhw_backend_register(). One instance per
 * backend type exists per process, made by the registry. Every vfunc gets
 * the device context (`AVBufferRef` whose data is an #AVHWDeviceContext)
 * where it needs one; backends keep no per-device state of their own.
 */
struct _GstAvhwBackendClass
{
  GstObjectClass parent_class;

  guint contract_version;
  const gchar *name;
  const gchar *description;
  const gchar *hw_device_type;
  const gchar *hw_pix_fmt;
  const gchar *caps_feature;
  guint rank;

  guint (*get_n_devices) (GstAvhwBackend * backend, gchar ** reason);
  gchar *(*get_device_description) (GstAvhwBackend * backend, guint index);
  gchar *(*get_device_string) (GstAvhwBackend * backend, guint index);
  AVBufferRef *(*open_device) (GstAvhwBackend * backend, guint index,
      const GstStructure * options, GError ** error);
  AVBufferRef *(*wrap_device) (GstAvhwBackend * backend, gpointer native,
      GError ** error);
  void (*get_decoders) (GstAvhwBackend * backend, enum AVCodecID codec_id,
      GPtrArray * candidates);
  void (*get_encoders) (GstAvhwBackend * backend, enum AVCodecID codec_id,
      GPtrArray * candidates);
  gboolean (*upload) (GstAvhwBackend * backend, AVFrame * dst,
      const AVFrame * src, GError ** error);
  gboolean (*download) (GstAvhwBackend * backend, AVFrame * dst,
      const AVFrame * src, GError ** error);
  gboolean (*copy) (GstAvhwBackend * backend, AVFrame * dst,
      const AVFrame * src, GError ** error);
  GArray *(*get_sw_formats) (GstAvhwBackend * backend,
      AVBufferRef * device_ctx);
  int (*frames_get_buffer) (GstAvhwBackend * backend, AVBufferRef * frames_ctx,
      AVFrame * frame);

  void (*query_decoder) (GstAvhwBackend * backend, guint index,
      enum AVCodecID codec_id, GstAvhwDecoderCaps * caps);
  void (*query_encoder) (GstAvhwBackend * backend, guint index,
      enum AVCodecID codec_id, GstAvhwEncoderCaps * caps);

  const gchar *scale_filter;
  void (*get_scale_formats) (GstAvhwBackend * backend,
      AVBufferRef * device_ctx, enum AVPixelFormat in_format,
      GArray * out_formats);
  const gchar *(*get_scale_method_args) (GstAvhwBackend * backend,
      GstAvhwScaleMethod method);
  const gchar *(*get_scale_filter_for) (GstAvhwBackend * backend,
      enum AVPixelFormat in_format, enum AVPixelFormat out_format,
      GstAvhwScaleMethod method, const gchar ** options);

  /* Added in version 2 from the padding: a backend built before them has
   * NULL here. */
  gboolean (*wait_frame) (GstAvhwBackend * backend, const AVFrame * frame,
      GError ** error);
  gboolean (*query_converter) (GstAvhwBackend * backend,
      AVBufferRef * device_ctx, guint index, GstAvhwConverterCaps * caps);
  gpointer (*converter_open) (GstAvhwBackend * backend,
      AVBufferRef * device_ctx, guint index,
      const GstAvhwConvertSetup * setup, GError ** error);
  gboolean (*convert) (GstAvhwBackend * backend, gpointer session,
      AVFrame * dst, const AVFrame * src, GError ** error);
  void (*converter_close) (GstAvhwBackend * backend, gpointer session);
  guint (*get_default_lanes) (GstAvhwBackend * backend, guint index);
  guint (*get_lane_sessions) (GstAvhwBackend * backend, guint index,
      guint lane);
  void (*prepare_decode) (GstAvhwBackend * backend,
      const AVCodecContext * ctx);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING_LARGE - 8];
};

/**
 * gst_avhw_backend_class_init_contract:
 * @klass: the backend class being initialised
 *
 * Stamps @klass with the contract version the backend is compiled against.
 * Call it first in every backend's class_init.
 */
#define gst_avhw_backend_class_init_contract(klass) \
  (GST_AVHW_BACKEND_CLASS (klass)->contract_version = \
      GST_AVHW_BACKEND_CONTRACT_VERSION)

GST_AVHW_API
gboolean gst_avhw_backend_register (GstPlugin * plugin, GType type);

GST_AVHW_API
gboolean gst_avhw_backend_wait_frame (GstAvhwBackend * backend,
    const AVFrame * frame, GError ** error);

GST_AVHW_API
enum AVHWDeviceType gst_avhw_backend_get_hw_device_type (GstAvhwBackend * backend);

GST_AVHW_API
enum AVPixelFormat gst_avhw_backend_get_hw_pix_fmt (GstAvhwBackend * backend);

GST_AVHW_API
AVBufferRef * gst_avhw_backend_open_device (GstAvhwBackend * backend,
    guint index, const GstStructure * options, GError ** error);

GST_AVHW_API
AVBufferRef * gst_avhw_backend_wrap_device (GstAvhwBackend * backend,
    gpointer native, GError ** error);

GST_AVHW_API
GPtrArray * gst_avhw_backend_get_decoders (GstAvhwBackend * backend,
    enum AVCodecID codec_id);

GST_AVHW_API
void gst_avhw_backend_query_decoder (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, GstAvhwDecoderCaps * caps);

GST_AVHW_API
void gst_avhw_backend_query_encoder (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, GstAvhwEncoderCaps * caps);

GST_AVHW_API
gboolean gst_avhw_backend_device_decodes (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id, gchar ** reason);

GST_AVHW_API
gchar * gst_avhw_backend_get_decode_description (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id);

GST_AVHW_API
guint gst_avhw_backend_get_decode_engines (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id);

GST_AVHW_API
int gst_avhw_backend_frames_get_buffer (GstAvhwBackend * backend,
    AVBufferRef * frames_ctx, AVFrame * frame);

GST_AVHW_API
void gst_avhw_backend_prepare_decode (GstAvhwBackend * backend,
    const AVCodecContext * ctx);

GST_AVHW_API
guint gst_avhw_backend_get_decode_slots (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id);

GST_AVHW_API
gboolean gst_avhw_backend_decodes_field_coded (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id, gchar ** reason);

GST_AVHW_API
guint gst_avhw_backend_get_decode_frame_threads (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id, gchar ** reason);

GST_AVHW_API
gboolean gst_avhw_backend_device_encodes (GstAvhwBackend * backend,
    guint index, enum AVCodecID codec_id, gchar ** reason);

GST_AVHW_API
GPtrArray * gst_avhw_backend_get_encoders (GstAvhwBackend * backend,
    enum AVCodecID codec_id);

GST_AVHW_API
gboolean gst_avhw_backend_upload (GstAvhwBackend * backend, AVFrame * dst,
    const AVFrame * src, GError ** error);

GST_AVHW_API
gboolean gst_avhw_backend_download (GstAvhwBackend * backend, AVFrame * dst,
    const AVFrame * src, GError ** error);

GST_AVHW_API
gboolean gst_avhw_backend_copy (GstAvhwBackend * backend, AVFrame * dst,
    const AVFrame * src, GError ** error);

GST_AVHW_API
GArray * gst_avhw_backend_get_sw_formats (GstAvhwBackend * backend,
    AVBufferRef * device_ctx);

GST_AVHW_API
void gst_avhw_options_to_dict (const GstStructure * options,
    AVDictionary ** dict);

/**
 * GST_AVHW_OPTION_LANE:
 *
 * The device option field (unsigned) by which the device cache asks a
 * backend's open_device for another, independent device context on a
 * hardware device: lane 1, 2, ... (lane 0 is the device's usual context,
 * opened without the field).
 */
#define GST_AVHW_OPTION_LANE "lane"

GST_AVHW_API
guint gst_avhw_options_get_lane (const GstStructure * options);

GST_AVHW_API
gboolean gst_avhw_options_has_creation_fields (const GstStructure * options);

GST_AVHW_API
AVBufferRef * gst_avhw_wrap_device_ctx (enum AVHWDeviceType type,
    const gchar * what, gpointer native,
    void (*fill) (void *hwctx, gpointer native),
    void (*free_cb) (AVHWDeviceContext * dctx), void *user_opaque,
    GError ** error);

GST_AVHW_API
GArray * gst_avhw_backend_get_scale_formats (GstAvhwBackend * backend,
    AVBufferRef * device_ctx, enum AVPixelFormat in_format);

GST_AVHW_API
GPtrArray * gst_avhw_backend_get_converters (GstAvhwBackend * backend,
    GstAvhwDevice * device);

GST_AVHW_API
gpointer gst_avhw_backend_open_converter (GstAvhwBackend * backend,
    AVBufferRef * device_ctx, guint index, const GstAvhwConvertSetup * setup,
    GError ** error);

GST_AVHW_API
gboolean gst_avhw_backend_convert (GstAvhwBackend * backend, gpointer session,
    AVFrame * dst, const AVFrame * src, GError ** error);

GST_AVHW_API
void gst_avhw_backend_close_converter (GstAvhwBackend * backend,
    gpointer session);

GST_AVHW_API
const gchar * gst_avhw_backend_choose_scale_filter (GstAvhwBackend * backend,
    enum AVPixelFormat in_format, enum AVPixelFormat out_format,
    GstAvhwScaleMethod method, const gchar ** options);

G_END_DECLS
