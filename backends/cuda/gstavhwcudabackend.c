/* gst-avhw: CUDA backend (FFmpeg's cuda hwcontext)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/pixdesc.h>
#include <libavutil/imgutils.h>

#include "gstavhwcudabackend.h"

GST_DEBUG_CATEGORY_STATIC (cuda_debug);
#define GST_CAT_DEFAULT cuda_debug

/* The CUDA driver API is loaded at run time with ffnvcodec's loader, as
 * FFmpeg itself does: the plugin never links libcuda, so it loads on
 * machines without an NVIDIA driver. The loader reports through two macros,
 * FFNV_LOG_FUNC and FFNV_DEBUG_LOG_FUNC; they land in our debug category,
 * and the first failure, with dlerror()'s text, is kept for the reason
 * get_n_devices gives. */
typedef struct
{
  gchar *failed;
  gchar *dl_error;
} CudaLoadError;

static void
cuda_loader_log (void *logctx, GstDebugLevel level, const char *fmt, ...)
{
  CudaLoadError *load_error = logctx;
  const char *dl = level <= GST_LEVEL_INFO ? dlerror () : NULL;
  va_list args;
  gchar *msg;

  va_start (args, fmt);
  msg = g_strchomp (g_strdup_vprintf (fmt, args));
  va_end (args);
  GST_CAT_LEVEL_LOG (cuda_debug, level, NULL, "ffnvcodec: %s%s%s", msg,
      dl ? ": " : "", dl ? dl : "");
  if (load_error && level <= GST_LEVEL_INFO && !load_error->failed) {
    load_error->failed = msg;
    load_error->dl_error = g_strdup (dl ? dl : "no dlerror() text");
  } else {
    g_free (msg);
  }
}

#define FFNV_LOG_FUNC(logctx, msg, ...) \
  cuda_loader_log (logctx, GST_LEVEL_INFO, msg, __VA_ARGS__)
#define FFNV_DEBUG_LOG_FUNC(logctx, msg, ...) \
  cuda_loader_log (logctx, GST_LEVEL_TRACE, msg, __VA_ARGS__)
#include <ffnvcodec/dynlink_loader.h>
/* ffnvcodec's dynlink_cuda.h defines the CUDA types (and CUDA_VERSION), so
 * FFmpeg's header does not need the CUDA toolkit's cuda.h. */
#include <libavutil/hwcontext_cuda.h>
/* After the loader and its log macros above. */
#include "gstavhwcudainterop.h"

struct _GstAvhwCudaBackend
{
  GstAvhwBackend parent;
};

#ifdef HAVE_GST_CUDA
/* gst.cuda.context and memory:CUDAMemory: one CUcontext and frames with
 * GStreamer's CUDA elements (gstavhwcudainterop.c, gstavhwcudamemory.c). */
G_DEFINE_TYPE_WITH_CODE (GstAvhwCudaBackend, gst_avhw_cuda_backend,
    GST_TYPE_AVHW_BACKEND,
    G_IMPLEMENT_INTERFACE (GST_TYPE_AVHW_FOREIGN_INTEROP,
        cuda_interop_iface_init));
#else
G_DEFINE_TYPE (GstAvhwCudaBackend, gst_avhw_cuda_backend,
    GST_TYPE_AVHW_BACKEND);
#endif

/* ffnvcodec's name for the driver library, which its header #undefs. */
#define CUDA_DRIVER_LIB "libcuda.so.1"

/* Not in ffnvcodec's function table; looked up in the same library. */
typedef CUresult CUDAAPI tcuDeviceTotalMem_v2 (size_t *bytes, CUdevice dev);

/* The driver, probed once per process: functions loaded, cuInit(0) and
 * cuDeviceGetCount(), no context created. cuda_fns stays NULL when the
 * driver is unusable, and cuda_reason says why. Never unloaded. */
static GMutex cuda_lock;
static gboolean cuda_probed;
static CudaFunctions *cuda_fns;
static guint cuda_n_devices;
static gchar *cuda_reason;

/* "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)" */
static gchar *
cuda_result_text (const CudaFunctions * cu, CUresult res)
{
  const char *name = NULL, *desc = NULL;

  if (cu->cuGetErrorName (res, &name) != CUDA_SUCCESS || !name)
    return g_strdup_printf ("CUresult %d", (int) res);
  if (cu->cuGetErrorString (res, &desc) != CUDA_SUCCESS || !desc)
    return g_strdup (name);
  return g_strdup_printf ("%s (%s)", name, desc);
}

gboolean
cuda_check (const CudaFunctions * cu, CUresult res, const gchar * call,
    const gchar * file, gint line, const gchar * func, GError ** error)
{
  gchar *text;

  if (res == CUDA_SUCCESS)
    return TRUE;
  text = cuda_result_text (cu, res);
  gst_debug_log (cuda_debug, GST_LEVEL_WARNING, file, func, line, NULL,
      "%s failed: %s", call, text);
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
      "cuda: %s failed: %s", call, text);
  g_free (text);
  return FALSE;
}

static void
cuda_probe_locked (void)
{
  CudaLoadError load_error = { NULL, NULL };
  CudaFunctions *cu = NULL;
  CUresult res;
  int count = 0;

  cuda_probed = TRUE;
  if (cuda_load_functions (&cu, &load_error) < 0) {
    if (!load_error.failed || g_str_has_prefix (load_error.failed,
            "Cannot load " CUDA_DRIVER_LIB))
      cuda_reason = g_strdup_printf (CUDA_DRIVER_LIB " could not be loaded: "
          "no NVIDIA driver (%s)", load_error.dl_error ? load_error.dl_error :
          "out of memory");
    else
      cuda_reason = g_strdup_printf ("the NVIDIA driver is too old for this "
          "backend: %s (%s)", load_error.failed, load_error.dl_error);
    goto done;
  }
  res = cu->cuInit (0);
  if (res == CUDA_SUCCESS)
    res = cu->cuDeviceGetCount (&count);
  if (res != CUDA_SUCCESS) {
    gchar *text = cuda_result_text (cu, res);

    cuda_reason = g_strdup_printf ("cuInit failed: %s", text);
    g_free (text);
    cuda_free_functions (&cu);
    goto done;
  }
  if (count <= 0) {
    const gchar *visible = g_getenv ("CUDA_VISIBLE_DEVICES");

    cuda_reason = g_strdup_printf ("the NVIDIA driver reports no CUDA "
        "device%s%s%s", visible ? " (CUDA_VISIBLE_DEVICES=\"" : "",
        visible ? visible : "", visible ? "\")" : "");
  }
  cuda_fns = cu;
  cuda_n_devices = MAX (count, 0);

done:
  if (cuda_reason)
    GST_INFO ("no CUDA device: %s", cuda_reason);
  else
    GST_INFO ("%u CUDA device(s)", cuda_n_devices);
  g_free (load_error.failed);
  g_free (load_error.dl_error);
}

/* Returns the driver's functions, NULL with *reason set when unusable. */
const CudaFunctions *
cuda_ensure_probed (gchar ** reason)
{
  g_mutex_lock (&cuda_lock);
  if (!cuda_probed)
    cuda_probe_locked ();
  g_mutex_unlock (&cuda_lock);
  if (!cuda_fns && reason)
    *reason = g_strdup (cuda_reason);
  return cuda_fns;
}

static guint
cuda_get_n_devices (GstAvhwBackend * backend, gchar ** reason)
{
  if (!cuda_ensure_probed (NULL) || cuda_n_devices == 0) {
    if (reason)
      *reason = g_strdup (cuda_reason);
    return 0;
  }
  return cuda_n_devices;
}

static gchar *
cuda_get_device_description (GstAvhwBackend * backend, guint index)
{
  const CudaFunctions *cu = cuda_ensure_probed (NULL);
  tcuDeviceTotalMem_v2 *total_mem;
  char name[256] = "";
  size_t bytes = 0;
  int major = 0, minor = 0;
  CUdevice dev;
  GString *s;

  if (!cu || index >= cuda_n_devices
      || cu->cuDeviceGet (&dev, (int) index) != CUDA_SUCCESS
      || cu->cuDeviceGetName (name, sizeof (name) - 1, dev) != CUDA_SUCCESS)
    return g_strdup_printf ("cuda:%u", index);
  s = g_string_new (name);
  total_mem = (tcuDeviceTotalMem_v2 *) FFNV_SYM_FUNC (cu->lib,
      "cuDeviceTotalMem_v2");
  if (total_mem && total_mem (&bytes, dev) == CUDA_SUCCESS)
    g_string_append_printf (s, ", %.1f GiB", bytes / (double) (1 << 30));
  if (cu->cuDeviceComputeCapability (&major, &minor, dev) == CUDA_SUCCESS)
    g_string_append_printf (s, ", compute %d.%d", major, minor);
  return g_string_free (s, FALSE);
}

static void
cuda_fill_hwctx (void *hwctx, gpointer native)
{
  AVCUDADeviceContext *cuda = hwctx;

  cuda->cuda_ctx = native;
  cuda->stream = NULL;
}

/* Wraps ctx (a reference the caller hands over, released by free_cb, also
 * when this fails) into a new FFmpeg device context. */
AVBufferRef *
cuda_wrap_context (CUcontext ctx, void (*free_cb) (AVHWDeviceContext *),
    void *user_opaque, GError ** error)
{
  return gst_avhw_wrap_device_ctx (AV_HWDEVICE_TYPE_CUDA, "CUcontext", ctx,
      cuda_fill_hwctx, free_cb, user_opaque, error);
}

static void
cuda_release_primary (AVHWDeviceContext * dctx)
{
  CUdevice dev = GPOINTER_TO_INT (dctx->user_opaque);

  if (cuda_fns)
    cuda_fns->cuDevicePrimaryCtxRelease (dev);
}

/* 1 when device index's primary context is active (someone in this process
 * retained it), 0 when not, -1 when the driver cannot say; *flags gets its
 * flags. */
gint
cuda_primary_state (const CudaFunctions * cu, guint index, unsigned int *flags)
{
  int active = 0;
  CUdevice dev;

  *flags = 0;
  if (cu->cuDeviceGet (&dev, (int) index) != CUDA_SUCCESS
      || cu->cuDevicePrimaryCtxGetState (dev, flags, &active) != CUDA_SUCCESS)
    return -1;
  return active ? 1 : 0;
}

/* Sharing the primary context matters more than its scheduling flag: retain
 * it as it is and wrap it; the device context releases it when freed. */
static AVBufferRef *
cuda_wrap_primary (const CudaFunctions * cu, guint index, GError ** error)
{
  CUcontext ctx = NULL;
  CUdevice dev;

  if (!CUDA_CHECK (cu->cuDeviceGet (&dev, (int) index))
      || !CUDA_CHECK (cu->cuDevicePrimaryCtxRetain (&ctx, dev)))
    return NULL;
  GST_INFO ("cuda:%u: primary context %p is already active with flags that "
      "FFmpeg refuses (another CUDA user made it first); sharing it as it is",
      index, ctx);
  return cuda_wrap_context (ctx, cuda_release_primary, GINT_TO_POINTER (dev),
      error);
}

/* TRUE when the options say primary_ctx=0 (a private context), or ask for
 * a lane of the device cache's other than the first: a context of its own,
 * so that its decoders do not share the primary context's. */
static gboolean
cuda_options_ask_private (const GstStructure * options)
{
  const gchar *v;
  gint i;

  if (!options)
    return FALSE;
  if (gst_avhw_options_get_lane (options) > 0)
    return TRUE;
  if (gst_structure_get_int (options, "primary_ctx", &i))
    return i == 0;
  v = gst_structure_get_string (options, "primary_ctx");
  return v && strtol (v, NULL, 10) == 0;
}

/* The driver reserves local memory for the per-thread stack of every
 * thread the GPU can hold (1 KiB each by default: 264 MiB of the 518 MiB
 * a context costs on an H200), kernels or not; NVDEC and copies run none,
 * and the driver raises the limit again for a kernel that needs more. So
 * a context this backend creates starts with no stack reserved;
 * GST_AVHW_CUDA_STACK_SIZE=BYTES asks for another limit (1024: the
 * driver's default). A primary context someone else activated first is
 * left as it is. */
#define CUDA_DEFAULT_STACK_SIZE 0
void
cuda_set_stack_limit (const CudaFunctions * cu, CUcontext ctx, guint index)
{
  const gchar *env = g_getenv ("GST_AVHW_CUDA_STACK_SIZE");
  CUcontext dummy;
  gchar *end = NULL;
  guint64 bytes;
  gboolean ok;

  bytes = CUDA_DEFAULT_STACK_SIZE;
  if (env && *env) {
    bytes = g_ascii_strtoull (env, &end, 10);
    if (!end || *end) {
      GST_WARNING ("GST_AVHW_CUDA_STACK_SIZE=%s is not a number of bytes: "
          "using %d", env, CUDA_DEFAULT_STACK_SIZE);
      bytes = CUDA_DEFAULT_STACK_SIZE;
    }
  }
  if (!CUDA_CHECK_ERR (cu->cuCtxPushCurrent (ctx), NULL))
    return;
  ok = CUDA_CHECK_ERR (cu->cuCtxSetLimit (CU_LIMIT_STACK_SIZE, (size_t) bytes),
      NULL);
  cu->cuCtxPopCurrent (&dummy);
  if (ok)
    GST_INFO ("cuda:%u: per-thread stack limit set to %" G_GUINT64_FORMAT
        " bytes", index, bytes);
}

static AVBufferRef *
cuda_open_device (GstAvhwBackend * backend, guint index,
    const GstStructure * options, GError ** error)
{
  const CudaFunctions *cu;
  AVBufferRef *ref = NULL;
  AVDictionary *dict = NULL;
  char err[AV_ERROR_MAX_STRING_SIZE];
  gchar *devstr = g_strdup_printf ("%u", index);
  gchar *reason = NULL;
  gboolean shared = !cuda_options_ask_private (options), fresh, active;
  unsigned int flags;
  int ret;

  cu = cuda_ensure_probed (&reason);
  if (!cu || index >= cuda_n_devices) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE,
        "cuda:%u: no such CUDA device (%s)", index, reason ? reason :
        "index out of range");
    goto done;
  }
  active = cuda_primary_state (cu, index, &flags) == 1;
  /* FFmpeg (cuda_context_init) refuses a primary context that is already
   * active with flags other than its own CU_CTX_SCHED_BLOCKING_SYNC, e.g.
   * one PyTorch made first. */
  if (shared && active && flags != CU_CTX_SCHED_BLOCKING_SYNC) {
    ref = cuda_wrap_primary (cu, index, error);
    goto done;
  }
  fresh = !shared || !active;
  gst_avhw_options_to_dict (options, &dict);
  /* primary_ctx=N in the options overrides the flag (FFmpeg's
   * cuda_flags_from_opts); a lane has no such option */
  ret = av_hwdevice_ctx_create (&ref, AV_HWDEVICE_TYPE_CUDA, devstr, dict,
      shared ? AV_CUDA_USE_PRIMARY_CONTEXT : 0);
  if (ret == AVERROR (ENOTSUP) && shared) {
    /* Another thread activated it since we looked. */
    ref = cuda_wrap_primary (cu, index, error);
  } else if (ret < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "cuda:%u: FFmpeg could not create a cuda device context on the "
        "device's primary context: %s", index,
        av_make_error_string (err, sizeof (err), ret));
    ref = NULL;
  } else if (fresh) {
    AVHWDeviceContext *dctx = (AVHWDeviceContext *) ref->data;

    cuda_set_stack_limit (cu, ((AVCUDADeviceContext *) dctx->hwctx)->cuda_ctx,
        index);
  }

done:
  /* The device holds the context now (or failed): the capability query's
   * reference is not needed to keep it alive any more. */
  if (cu && index < cuda_n_devices)
    cuda_caps_release_kept (cu, index);
  av_dict_free (&dict);
  g_free (reason);
  g_free (devstr);
  return ref;
}

static AVBufferRef *
cuda_wrap_device (GstAvhwBackend * backend, gpointer native, GError ** error)
{
  const CudaFunctions *cu;
  gchar *reason = NULL;
  CUcontext ctx = native, dummy;

  if (!native) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: the native handle to wrap must be a CUcontext, not NULL");
    return NULL;
  }
  cu = cuda_ensure_probed (&reason);
  if (!cu) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE,
        "cuda: cannot wrap CUcontext %p: %s", native, reason);
    g_free (reason);
    return NULL;
  }
  /* A cheap validity check: a destroyed or foreign pointer fails here. */
  if (!CUDA_CHECK (cu->cuCtxPushCurrent (ctx))
      || !CUDA_CHECK (cu->cuCtxPopCurrent (&dummy)))
    return NULL;
  return cuda_wrap_context (ctx, NULL, NULL, error);
}

static void
gst_avhw_cuda_backend_class_init (GstAvhwCudaBackendClass * klass)
{
  GstAvhwBackendClass *bclass = GST_AVHW_BACKEND_CLASS (klass);

  gst_avhw_backend_class_init_contract (klass);
  GST_DEBUG_CATEGORY_INIT (cuda_debug, "avhwcuda", 0, "gst-avhw CUDA backend");

  bclass->name = "cuda";
  bclass->description = "NVIDIA GPUs (NVDEC, NVENC) through FFmpeg's cuda "
      "hwcontext";
  bclass->hw_device_type = "cuda";
  bclass->hw_pix_fmt = "cuda";
  bclass->caps_feature = "memory:AVHWCUDA";
  bclass->rank = GST_RANK_PRIMARY;
  bclass->get_n_devices = cuda_get_n_devices;
  bclass->get_device_description = cuda_get_device_description;
  bclass->open_device = cuda_open_device;
  bclass->wrap_device = cuda_wrap_device;
  /* Transfers that copy odd sizes whole (FFmpeg's lose a chroma row). */
  cuda_transfer_class_init (bclass);
  /* What each GPU's NVDEC decodes (cuvidGetDecoderCaps). */
  cuda_caps_class_init (bclass);
  /* For avhwconvertscale: the convert-and-scale kernel, then scale_cuda. */
#ifdef HAVE_CUDA_KERNELS
  cuda_converter_class_init (bclass);
#endif
  cuda_scale_class_init (bclass);
}

static void
gst_avhw_cuda_backend_init (GstAvhwCudaBackend * self)
{
}
