/* gst-avhw: CUDA backend, scaling and converting with scale_cuda
 *
 * FFmpeg's scale_cuda converts between any two of its YUV formats (NV12,
 * yuv420p, yuv444p, P010, P016, yuv444p16) and between any two of its
 * packed RGB ones while it scales, never between YUV and RGB (its kernels
 * are named per input/output pair; a missing pair fails when the filter is
 * configured). Its RGB ones are RGB0 and BGR0 in FFmpeg 5.1, plus RGBA and
 * BGRA in FFmpeg 7 (checked in 7.1's source; 6.x is offered the 5.1 set).
 * It interpolates by nearest, bilinear, bicubic (its default) or Lanczos.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/avutil.h>

#include "gstavhwcudainterop.h"

static const gint cuda_scale_yuv[] = { AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P,
  AV_PIX_FMT_YUV444P, AV_PIX_FMT_P010LE, AV_PIX_FMT_P016LE,
  AV_PIX_FMT_YUV444P16LE
};

static const gint cuda_scale_rgb[] = { AV_PIX_FMT_RGB0, AV_PIX_FMT_BGR0,
#if LIBAVUTIL_VERSION_MAJOR >= 59
  AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA
#endif
};

static gboolean
cuda_scale_in (const gint * set, guint n, enum AVPixelFormat f)
{
  guint i;

  for (i = 0; i < n; i++)
    if (set[i] == (gint) f)
      return TRUE;
  return FALSE;
}

static void
cuda_get_scale_formats (GstAvhwBackend * backend, AVBufferRef * device_ctx,
    enum AVPixelFormat in_format, GArray * out_formats)
{
  if (cuda_scale_in (cuda_scale_yuv, G_N_ELEMENTS (cuda_scale_yuv), in_format))
    g_array_append_vals (out_formats, cuda_scale_yuv,
        G_N_ELEMENTS (cuda_scale_yuv));
  else if (cuda_scale_in (cuda_scale_rgb, G_N_ELEMENTS (cuda_scale_rgb),
          in_format))
    g_array_append_vals (out_formats, cuda_scale_rgb,
        G_N_ELEMENTS (cuda_scale_rgb));
}

static const gchar *
cuda_get_scale_method_args (GstAvhwBackend * backend, GstAvhwScaleMethod method)
{
  switch (method) {
    case GST_AVHW_SCALE_METHOD_DEFAULT:
      return "";
    case GST_AVHW_SCALE_METHOD_NEAREST:
      return "interp_algo=nearest";
    case GST_AVHW_SCALE_METHOD_BILINEAR:
      return "interp_algo=bilinear";
    case GST_AVHW_SCALE_METHOD_BICUBIC:
      return "interp_algo=bicubic";
    case GST_AVHW_SCALE_METHOD_LANCZOS:
      return "interp_algo=lanczos";
    default:
      return NULL;
  }
}

void
cuda_scale_class_init (GstAvhwBackendClass * bclass)
{
  bclass->scale_filter = "scale_cuda";
  bclass->get_scale_formats = cuda_get_scale_formats;
  bclass->get_scale_method_args = cuda_get_scale_method_args;
}
