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
/* per device: queried yet; bit per cudaVideoCodec set when decodable */
static gboolean asked[MAX_DEVICES];
static guint32 decodes[MAX_DEVICES];

static gboolean
cuda_codec (enum AVCodecID id, cudaVideoCodec * codec)
{
  switch (id) {
    case AV_CODEC_ID_H264:
      *codec = cudaVideoCodec_H264;
      return TRUE;
    case AV_CODEC_ID_HEVC:
      *codec = cudaVideoCodec_HEVC;
      return TRUE;
    case AV_CODEC_ID_VP9:
      *codec = cudaVideoCodec_VP9;
      return TRUE;
    case AV_CODEC_ID_VP8:
      *codec = cudaVideoCodec_VP8;
      return TRUE;
    case AV_CODEC_ID_AV1:
      *codec = cudaVideoCodec_AV1;
      return TRUE;
    case AV_CODEC_ID_MPEG2VIDEO:
      *codec = cudaVideoCodec_MPEG2;
      return TRUE;
    case AV_CODEC_ID_MPEG4:
      *codec = cudaVideoCodec_MPEG4;
      return TRUE;
    case AV_CODEC_ID_MJPEG:
      *codec = cudaVideoCodec_JPEG;
      return TRUE;
    default:
      return FALSE;
  }
}

static const cudaVideoCodec all_codecs[] = {
  cudaVideoCodec_H264, cudaVideoCodec_HEVC, cudaVideoCodec_VP9,
  cudaVideoCodec_VP8, cudaVideoCodec_AV1, cudaVideoCodec_MPEG2,
  cudaVideoCodec_MPEG4, cudaVideoCodec_JPEG,
};

/* lock held. Every codec at once: when nobody holds the primary context
 * yet, retaining it creates a context (100+ ms) and releasing it destroys
 * it again, so one query per codec cost a context each (the first
 * pipeline of a process waited ~0.5 s for them). 8-bit 4:2:0, the common
 * case: a GPU that lacks it lacks the codec (profiles it cannot do are
 * refused later, in get_format). */
static void
query_all_locked (const CudaFunctions * cu, guint index)
{
  CUdevice dev;
  CUcontext ctx, dummy;
  guint i;

  asked[index] = TRUE;
  if (cu->cuDeviceGet (&dev, index) != CUDA_SUCCESS
      || cu->cuDevicePrimaryCtxRetain (&ctx, dev) != CUDA_SUCCESS)
    return;
  if (cu->cuCtxPushCurrent (ctx) == CUDA_SUCCESS) {
    for (i = 0; i < G_N_ELEMENTS (all_codecs); i++) {
      CUVIDDECODECAPS caps = { 0, };

      caps.eCodecType = all_codecs[i];
      caps.eChromaFormat = cudaVideoChromaFormat_420;
      caps.nBitDepthMinus8 = 0;
      if (cuvid->cuvidGetDecoderCaps (&caps) == CUDA_SUCCESS
          && caps.bIsSupported)
        decodes[index] |= 1u << (guint) all_codecs[i];
    }
    cu->cuCtxPopCurrent (&dummy);
  }
  cu->cuDevicePrimaryCtxRelease (dev);
}

static gboolean
cuda_device_decodes (GstAvhwBackend * backend, guint index,
    enum AVCodecID codec_id, gchar ** reason)
{
  const CudaFunctions *cu = cuda_ensure_probed (NULL);
  cudaVideoCodec codec;
  guint bit;
  gboolean ret = TRUE;

  if (!cu || index >= MAX_DEVICES || !cuda_codec (codec_id, &codec))
    return TRUE;                /* nothing to ask: let FFmpeg try */
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
    if (!asked[index])
      query_all_locked (cu, index);
    GST_DEBUG ("cuda:%u %s %s in hardware", index, avcodec_get_name (codec_id),
        (decodes[index] & (1u << bit)) ? "decodes" : "does not decode");
    ret = !!(decodes[index] & (1u << bit));
  }
  g_mutex_unlock (&caps_lock);
  if (!ret && reason)
    *reason = g_strdup_printf ("the GPU's NVDEC does not decode %s "
        "(cuvidGetDecoderCaps)", avcodec_get_name (codec_id));
  return ret;
}

void
cuda_caps_class_init (GstAvhwBackendClass * bclass)
{
  GST_DEBUG_CATEGORY_INIT (cuda_caps_debug, "avhwcudacaps", 0,
      "gst-avhw CUDA backend: NVDEC capabilities");
  bclass->device_decodes = cuda_device_decodes;
}
