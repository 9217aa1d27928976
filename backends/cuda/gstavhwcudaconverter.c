/* gst-avhw: CUDA backend, its convert-and-scale kernel as a converter
 *
 * Registers kernels/avhw-convert.cu (gstavhwcudaconvert.c) with the
 * backend contract as the converter `cuda-convert`: NV12, P010 and I420
 * in; RGB, BGR, RGBA, BGRA, RGBx, BGRx, RGBP and BGRP out at any size
 * (as far as the device's frames hold them: FFmpeg's CUDA frames hold no
 * 24-bit packed RGB); bilinear, or area where the picture shrinks (the
 * default: antialiased at large ratios); the input's colour matrix and
 * range from its caps (BT.601, BT.709, BT.2020, limited or full); the
 * picture letterboxed into the output with borders (add-borders). It
 * comes before scale_cuda, which makes no RGB from YUV.
 *
 * A session (one negotiation) loads the kernels in the device's
 * CUcontext (the embedded cubin for the GPU, else the PTX) and computes
 * the kernel's parameters; each frame is then one launch on the device
 * context's stream (AVCUDADeviceContext.stream, the one FFmpeg's own
 * transfers and filters use), not waited for: what reads the output later
 * on that stream (a download, an encoder) comes after it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwcudainterop.h"
#include "gstavhwcudaconvert.h"

GST_DEBUG_CATEGORY_STATIC (cuda_converter_debug);
#define GST_CAT_DEFAULT cuda_converter_debug

#define CUDA_CONVERTER_NAME "cuda-convert"

typedef struct
{
  const CudaFunctions *cu;
  CudaKernels *kernels;
  CudaConvert *convert;
  CUstream stream;
} CudaConverterSession;

static const GstVideoFormat cuda_converter_in[] = { GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420
};

static const GstVideoFormat cuda_converter_out[] = { GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGBP,
  GST_VIDEO_FORMAT_BGRP
};

static gboolean
cuda_query_converter (GstAvhwBackend * backend, AVBufferRef * device_ctx,
    guint index, GstAvhwConverterCaps * caps)
{
  guint i;

  if (index > 0)
    return FALSE;
  caps->name = CUDA_CONVERTER_NAME;
  for (i = 0; i < G_N_ELEMENTS (cuda_converter_in); i++)
    gst_avhw_converter_caps_add_in_format (caps, cuda_converter_in[i]);
  for (i = 0; i < G_N_ELEMENTS (cuda_converter_out); i++)
    gst_avhw_converter_caps_add_out_format (caps, cuda_converter_out[i]);
  caps->methods = GST_AVHW_SCALE_METHOD_FLAG (GST_AVHW_SCALE_METHOD_DEFAULT) |
      GST_AVHW_SCALE_METHOD_FLAG (GST_AVHW_SCALE_METHOD_BILINEAR) |
      GST_AVHW_SCALE_METHOD_FLAG (GST_AVHW_SCALE_METHOD_AREA);
  caps->borders = TRUE;
  caps->colorimetry = TRUE;
  caps->note = g_strdup ("one kernel launch per frame: YUV to RGB, "
      "scaled, letterboxed");
  return TRUE;
}

static void
cuda_converter_free (CudaConverterSession * s)
{
  cuda_convert_free (s->convert);
  cuda_kernels_free (s->kernels);
  g_free (s);
}

/* The matrix and range the caps say, those GStreamer assumes for YUV
 * where they say none (BT.709 from 720 lines up, else BT.601; limited). */
static void
cuda_converter_colorimetry (const GstVideoInfo * in, CudaConvertSetup * cs)
{
  cs->matrix = in->colorimetry.matrix;
  if (cs->matrix == GST_VIDEO_COLOR_MATRIX_UNKNOWN)
    cs->matrix = GST_VIDEO_INFO_HEIGHT (in) >= 720 ?
        GST_VIDEO_COLOR_MATRIX_BT709 : GST_VIDEO_COLOR_MATRIX_BT601;
  cs->range = in->colorimetry.range;
  if (cs->range == GST_VIDEO_COLOR_RANGE_UNKNOWN)
    cs->range = GST_VIDEO_COLOR_RANGE_16_235;
}

static gpointer
cuda_converter_open (GstAvhwBackend * backend, AVBufferRef * device_ctx,
    guint index, const GstAvhwConvertSetup * setup, GError ** error)
{
  AVHWDeviceContext *dctx = (AVHWDeviceContext *) device_ctx->data;
  AVCUDADeviceContext *hwctx = dctx->hwctx;
  const GstVideoInfo *in = &setup->in_info, *out = &setup->out_info;
  CudaConvertSetup cs = { 0, };
  CudaConverterSession *s;
  gchar *reason = NULL;

  if (index != 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: no converter %u", index);
    return NULL;
  }
  s = g_new0 (CudaConverterSession, 1);
  s->cu = cuda_ensure_probed (&reason);
  if (!s->cu) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE,
        "cuda: %s", reason);
    g_free (reason);
    goto fail;
  }
  s->stream = hwctx->stream;
  s->kernels = cuda_kernels_load (s->cu, hwctx->cuda_ctx, error);
  if (!s->kernels)
    goto fail;
  GST_INFO ("cuda-convert: kernels loaded from the %s",
      cuda_kernels_get_image (s->kernels));
  cs.in_format = GST_VIDEO_INFO_FORMAT (in);
  cs.in_width = GST_VIDEO_INFO_WIDTH (in);
  cs.in_height = GST_VIDEO_INFO_HEIGHT (in);
  cuda_converter_colorimetry (in, &cs);
  cs.chroma_site = in->chroma_site;
  cs.out_format = GST_VIDEO_INFO_FORMAT (out);
  cs.out_width = GST_VIDEO_INFO_WIDTH (out);
  cs.out_height = GST_VIDEO_INFO_HEIGHT (out);
  cs.dest_x = setup->dest.x;
  cs.dest_y = setup->dest.y;
  cs.dest_width = setup->dest.w;
  cs.dest_height = setup->dest.h;
  cs.border_argb = setup->border_argb;
  switch (setup->method) {
    case GST_AVHW_SCALE_METHOD_DEFAULT:
    case GST_AVHW_SCALE_METHOD_AREA:
      cs.method = CUDA_CONVERT_AREA;
      break;
    case GST_AVHW_SCALE_METHOD_BILINEAR:
      cs.method = CUDA_CONVERT_BILINEAR;
      break;
    default:
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
          "cuda-convert: method %d is not one of its own (default, bilinear, "
          "area)", setup->method);
      goto fail;
  }
  s->convert = cuda_convert_new (s->kernels, &cs, error);
  if (!s->convert)
    goto fail;
  return s;

fail:
  if (error && *error && (*error)->domain != GST_AVHW_ERROR) {
    /* the kernels' own errors, in the contract's domain */
    GError *e = g_error_new_literal (GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        (*error)->message);

    g_clear_error (error);
    g_propagate_error (error, e);
  }
  cuda_converter_free (s);
  return NULL;
}

static gboolean
cuda_converter_convert (GstAvhwBackend * backend, gpointer session,
    AVFrame * dst, const AVFrame * src, GError ** error)
{
  CudaConverterSession *s = session;
  CUdeviceptr sp[3] = { 0, }, dp[3] = { 0, };
  gint spitch[3] = { 0, }, dpitch[3] = { 0, };
  GError *err = NULL;
  guint i;

  for (i = 0; i < 3; i++) {
    sp[i] = (CUdeviceptr) src->data[i];
    spitch[i] = src->linesize[i];
    dp[i] = (CUdeviceptr) dst->data[i];
    dpitch[i] = dst->linesize[i];
  }
  if (!cuda_convert_frame (s->convert, sp, spitch, dp, dpitch, s->stream, &err)) {
    g_set_error_literal (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        err->message);
    g_clear_error (&err);
    return FALSE;
  }
  return TRUE;
}

static void
cuda_converter_close (GstAvhwBackend * backend, gpointer session)
{
  cuda_converter_free (session);
}

void
cuda_converter_class_init (GstAvhwBackendClass * bclass)
{
  GST_DEBUG_CATEGORY_INIT (cuda_converter_debug, "avhwcudaconverter", 0,
      "gst-avhw CUDA convert-and-scale kernel (cuda-convert)");
  bclass->query_converter = cuda_query_converter;
  bclass->converter_open = cuda_converter_open;
  bclass->convert = cuda_converter_convert;
  bclass->converter_close = cuda_converter_close;
}
