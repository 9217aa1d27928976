/* gst-avhw: CUDA backend, what each GPU's NVDEC decodes
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwcudainterop.h"

GST_DEBUG_CATEGORY_STATIC (cuda_caps_debug);
#define GST_CAT_DEFAULT cuda_caps_debug

/*
 * FFmpeg's decoder list says which codecs its nvdec hwaccel and cuvid
 * wrappers handle, not which ones a given GPU decodes (an H200 has no AV1
 * NVDEC). cuvidGetDecoderCaps answers per GPU; it needs a current context,
 * so the GPU's primary context is retained for the query (the one FFmpeg
 * uses anyway). Answers are kept per device and codec for the process:
 * asked while the registry is scanned and when a decoder opens.
 */

#define MAX_DEVICES 16

static GMutex caps_lock;
static CuvidFunctions *cuvid;
static gboolean cuvid_tried;
/* per device, a bit per cudaVideoCodec: queried yet; decodable */
static guint32 asked[MAX_DEVICES];
static guint32 decodes[MAX_DEVICES];
/* by cudaVideoCodec (MPEG1 0 .. AV1 11) */
#define CODEC_SLOTS 16
static guint8 engines[MAX_DEVICES][CODEC_SLOTS];
static guint max_size[MAX_DEVICES][CODEC_SLOTS][2];

/* The codecs asked about, FFmpeg's id beside NVDEC's. */
static const struct
{
  enum AVCodecID id;
  cudaVideoCodec codec;
} codecs[] = {
  {AV_CODEC_ID_H264, cudaVideoCodec_H264},
  {AV_CODEC_ID_HEVC, cudaVideoCodec_HEVC},
  {AV_CODEC_ID_VP9, cudaVideoCodec_VP9},
  {AV_CODEC_ID_VP8, cudaVideoCodec_VP8},
  {AV_CODEC_ID_AV1, cudaVideoCodec_AV1},
  {AV_CODEC_ID_MPEG2VIDEO, cudaVideoCodec_MPEG2},
  {AV_CODEC_ID_MPEG4, cudaVideoCodec_MPEG4},
  {AV_CODEC_ID_MJPEG, cudaVideoCodec_JPEG},
};

static gboolean
cuda_codec (enum AVCodecID id, cudaVideoCodec * codec)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (codecs); i++) {
    if (codecs[i].id == id) {
      *codec = codecs[i].codec;
      return TRUE;
    }
  }
  return FALSE;
}

/* When the query had to create the primary context, it is kept for a
 * while: the backend scan that asks is nearly always followed by a device
 * opening on that GPU, which would otherwise create the context a second
 * time (~0.25 s on an H200). It is made as the device would make it (the
 * scheduling flag FFmpeg asks for, the lowered stack limit), and released
 * when the device holds its own reference or after KEEP_SECONDS. */
#define KEEP_SECONDS 10
static gboolean kept[MAX_DEVICES];
static GCond kept_cond;
static gboolean keeper_running;

static gboolean
any_kept_locked (void)
{
  guint i;

  for (i = 0; i < MAX_DEVICES; i++)
    if (kept[i])
      return TRUE;
  return FALSE;
}

static gpointer
release_kept_later (gpointer data)
{
  const CudaFunctions *cu = data;
  gint64 deadline = g_get_monotonic_time () + KEEP_SECONDS * G_TIME_SPAN_SECOND;
  CUdevice dev;
  guint i;

  g_mutex_lock (&caps_lock);
  while (any_kept_locked ()
      && g_cond_wait_until (&kept_cond, &caps_lock, deadline));
  for (i = 0; i < MAX_DEVICES; i++) {
    if (kept[i] && cu->cuDeviceGet (&dev, (int) i) == CUDA_SUCCESS) {
      GST_INFO ("cuda:%u: no device opened within %d s: releasing the "
          "capability query's context", i, KEEP_SECONDS);
      cu->cuDevicePrimaryCtxRelease (dev);
    }
    kept[i] = FALSE;
  }
  keeper_running = FALSE;
  g_mutex_unlock (&caps_lock);
  return NULL;
}

void
cuda_caps_release_kept (const CudaFunctions * cu, guint index)
{
  CUdevice dev;

  if (index >= MAX_DEVICES)
    return;
  g_mutex_lock (&caps_lock);
  if (kept[index] && cu->cuDeviceGet (&dev, (int) index) == CUDA_SUCCESS)
    cu->cuDevicePrimaryCtxRelease (dev);
  kept[index] = FALSE;
  g_cond_broadcast (&kept_cond);
  g_mutex_unlock (&caps_lock);
}

/* lock held. One codec: each cuvidGetDecoderCaps takes ~9 ms on an H200
 * (driver 580), and asking every codec at once made the first pipeline of
 * a process wait 63 ms (run 68). Retaining a primary context nobody holds
 * creates it (100+ ms) and releasing it destroys it, so a context this
 * made is kept for a while (above): the next codec's query, and the
 * device that opens next, find it. 8-bit 4:2:0, the common case: a GPU
 * that lacks it lacks the codec (profiles it cannot do are refused later,
 * in get_format). */
static void
query_locked (const CudaFunctions * cu, guint index, cudaVideoCodec codec)
{
  CUdevice dev;
  CUcontext ctx, dummy;
  unsigned int flags;
  gboolean active;

  asked[index] |= 1u << (guint) codec;
  if (cu->cuDeviceGet (&dev, index) != CUDA_SUCCESS)
    return;
  /* unknown: as if someone held it (query, release, keep nothing) */
  active = cuda_primary_state (cu, index, &flags) != 0;
  if (!active)
    cu->cuDevicePrimaryCtxSetFlags (dev, CU_CTX_SCHED_BLOCKING_SYNC);
  if (cu->cuDevicePrimaryCtxRetain (&ctx, dev) != CUDA_SUCCESS)
    return;
  if (!active)
    cuda_set_stack_limit (cu, ctx, index);
  if (cu->cuCtxPushCurrent (ctx) == CUDA_SUCCESS) {
    CUVIDDECODECAPS caps = { 0, };

    caps.eCodecType = codec;
    caps.eChromaFormat = cudaVideoChromaFormat_420;
    caps.nBitDepthMinus8 = 0;
    if (cuvid->cuvidGetDecoderCaps (&caps) == CUDA_SUCCESS && caps.bIsSupported) {
      decodes[index] |= 1u << (guint) codec;
      if ((guint) codec < CODEC_SLOTS) {
        engines[index][codec] = caps.nNumNVDECs;
        max_size[index][codec][0] = caps.nMaxWidth;
        max_size[index][codec][1] = caps.nMaxHeight;
      }
    }
    cu->cuCtxPopCurrent (&dummy);
  }
  if (active) {
    cu->cuDevicePrimaryCtxRelease (dev);
    return;
  }
  kept[index] = TRUE;
  if (!keeper_running) {
    keeper_running = TRUE;
    g_thread_unref (g_thread_new ("avhw-cuda-keep", release_kept_later,
            (gpointer) cu));
  }
}

/* What NVDEC of device @index decodes of the codec: whether it does (8-bit
 * 4:2:0, asked once per device and codec), how many engines and the
 * largest coded size, as the driver says (0 where it does not fill them). */
static void
cuda_query_decoder (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, GstAvhwDecoderCaps * caps)
{
  const CudaFunctions *cu = cuda_ensure_probed (NULL);
  cudaVideoCodec codec;
  guint bit;

  if (!cu || index >= MAX_DEVICES || !cuda_codec (codec_id, &codec))
    return;                     /* nothing to ask: let FFmpeg try */
  bit = (guint) codec;          /* cudaVideoCodec_MPEG1 (0) .. _AV1 (11) */

  g_mutex_lock (&caps_lock);
  if (!cuvid_tried) {
    cuvid_tried = TRUE;
    if (cuvid_load_functions (&cuvid, NULL) < 0 || !cuvid->cuvidGetDecoderCaps) {
      GST_INFO ("libnvcuvid could not be loaded: no decoder capability query");
      cuvid_free_functions (&cuvid);
    }
  }
  if (cuvid) {
    if (!(asked[index] & (1u << bit)))
      query_locked (cu, index, codec);
    caps->supported = !!(decodes[index] & (1u << bit));
    if (caps->supported && bit < CODEC_SLOTS) {
      caps->bit_depths = GST_AVHW_BIT_DEPTH (8);
      caps->chroma = GST_AVHW_CHROMA_420;
      caps->engines = engines[index][bit];
      if (max_size[index][bit][0] && max_size[index][bit][1]) {
        caps->max_width = max_size[index][bit][0];
        caps->max_height = max_size[index][bit][1];
      }
    }
  }
  g_mutex_unlock (&caps_lock);
  GST_DEBUG ("cuda:%u %s %s in hardware, %u NVDEC engine(s)", index,
      avcodec_get_name (codec_id), caps->supported ? "decodes" :
      "does not decode", caps->engines);
  if (!caps->supported)
    caps->reason = g_strdup_printf ("the GPU's NVDEC does not decode %s "
        "(cuvidGetDecoderCaps)", avcodec_get_name (codec_id));
}

void
cuda_caps_class_init (GstAvhwBackendClass * bclass)
{
  GST_DEBUG_CATEGORY_INIT (cuda_caps_debug, "avhwcudacaps", 0,
      "gst-avhw CUDA backend: NVDEC capabilities");
  bclass->query_decoder = cuda_query_decoder;
}
