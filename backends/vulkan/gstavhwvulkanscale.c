/* gst-avhw: Vulkan backend, scaling and converting with scale_vulkan
 *
 * FFmpeg's scale_vulkan scales any format the frames hold to the same
 * format, bilinearly (its default) or taking the nearest pixel. It also
 * converts packed RGB to NV12 or 4:2:0 and 4:4:4 planar YUV (limited range
 * unless told otherwise, with the matrix the input frame is tagged with),
 * and makes no RGB from YUV nor YUV from another YUV. FFmpeg 5.1's
 * conversion writes the luma plane only (it binds as many output planes as
 * the input has: one), so conversions are offered from FFmpeg 7 on (checked
 * in 7.1; 6.x is offered scaling only).
 *
 * What scale_vulkan cannot make, RGB from YUV (and other RGB orders),
 * FFmpeg's libplacebo filter makes where this FFmpeg has it, with FFmpeg
 * 5.1 and 7 (see vk_has_placebo()): it converts with the matrix and range
 * the input frame is tagged with (avhwconvertscale tags it from the caps),
 * to full-range RGB, and scales with the method asked (its default:
 * mitchell down, spline36 up). Options: normalize_sar=0 (the output size is the one asked, no
 * borders); disable_linear=1 and sigmoid=0 (scaled in the signal's own
 * gamma, as videoconvertscale, PIL and torchvision do, not in linear
 * light); dithering=-1 (none: the same frame gives the same bytes).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/avutil.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/version.h>
#include <gst/avhw/gstavhw-impl.h>

#include "gstavhwvulkanbackend.h"

#if LIBAVUTIL_VERSION_MAJOR >= 59
/* What scale_vulkan's config_output checks (ff_vk_mt_is_np_rgb()), as far
 * as the frames of this backend hold them. */
static gboolean
vk_scale_is_packed_rgb (enum AVPixelFormat f)
{
  return f == AV_PIX_FMT_RGBA || f == AV_PIX_FMT_BGRA || f == AV_PIX_FMT_RGB0
      || f == AV_PIX_FMT_BGR0 || f == AV_PIX_FMT_ABGR || f == AV_PIX_FMT_0BGR
      || f == AV_PIX_FMT_RGB24 || f == AV_PIX_FMT_BGR24;
}

static const gint vk_scale_from_rgb[] = { AV_PIX_FMT_NV12,
  AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV444P
};
#endif

/* What scale_vulkan makes from @in: @in itself, and YUV from packed RGB. */
static gboolean
vk_scale_makes (enum AVPixelFormat in, enum AVPixelFormat out)
{
#if LIBAVUTIL_VERSION_MAJOR >= 59
  guint i;

  if (vk_scale_is_packed_rgb (in))
    for (i = 0; i < G_N_ELEMENTS (vk_scale_from_rgb); i++)
      if (vk_scale_from_rgb[i] == (gint) out)
        return TRUE;
#endif
  return in == out;
}

/* libplacebo: from these, to packed RGB (as avhwconvertscale's formats) */
static const gint vk_placebo_in[] = { AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P,
  AV_PIX_FMT_YUV444P, AV_PIX_FMT_P010LE, AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA,
  AV_PIX_FMT_RGB0, AV_PIX_FMT_BGR0
};

static const gint vk_placebo_out[] = { AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA,
  AV_PIX_FMT_RGB0, AV_PIX_FMT_BGR0
};

static gboolean
vk_has_placebo (void)
{
  static gsize once;
  static gboolean has;

  if (g_once_init_enter (&once)) {
#if LIBAVFILTER_VERSION_MAJOR == 8 || LIBAVFILTER_VERSION_MAJOR == 10
    /* FFmpeg 5.1 and 7 (checked: 5.1, and 7.1 with libplacebo 7.349,
     * whose filter queues by time: the graph gives it a timeline and a
     * frame rate, see gstavhwscalegraph.c) */
    has = avfilter_get_by_name ("libplacebo") != NULL;
#else
    /* FFmpeg 6 and 8: not checked */
    has = FALSE;
#endif
    g_once_init_leave (&once, 1);
  }
  return has;
}

static gboolean
vk_placebo_makes (enum AVPixelFormat in, enum AVPixelFormat out)
{
  gboolean from = FALSE, to = FALSE;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (vk_placebo_in); i++)
    from |= vk_placebo_in[i] == (gint) in;
  for (i = 0; i < G_N_ELEMENTS (vk_placebo_out); i++)
    to |= vk_placebo_out[i] == (gint) out;
  return from && to && vk_has_placebo ();
}

static void
vk_get_scale_formats (GstAvhwBackend * backend, AVBufferRef * device_ctx,
    enum AVPixelFormat in_format, GArray * out_formats)
{
  gint f = in_format;
  guint i;

  g_array_append_val (out_formats, f);
#if LIBAVUTIL_VERSION_MAJOR >= 59
  if (vk_scale_is_packed_rgb (in_format))
    g_array_append_vals (out_formats, vk_scale_from_rgb,
        G_N_ELEMENTS (vk_scale_from_rgb));
#endif
  for (i = 0; i < G_N_ELEMENTS (vk_placebo_out); i++)
    if (vk_placebo_out[i] != f && vk_placebo_makes (in_format,
            vk_placebo_out[i]))
      g_array_append_val (out_formats, vk_placebo_out[i]);
}

#define PLACEBO "normalize_sar=0:disable_linear=1:sigmoid=0:dithering=-1"

/* scale_vulkan (NULL) where it makes @out, else libplacebo */
static const gchar *
vk_get_scale_filter_for (GstAvhwBackend * backend, enum AVPixelFormat in,
    enum AVPixelFormat out, GstAvhwScaleMethod method, const gchar ** options)
{
  if (vk_scale_makes (in, out) || !vk_placebo_makes (in, out))
    return NULL;
  switch (method) {
    case GST_AVHW_SCALE_METHOD_DEFAULT:
      *options = PLACEBO;
      break;
    case GST_AVHW_SCALE_METHOD_NEAREST:
      *options = PLACEBO ":upscaler=nearest:downscaler=nearest";
      break;
    case GST_AVHW_SCALE_METHOD_BILINEAR:
      *options = PLACEBO ":upscaler=bilinear:downscaler=bilinear";
      break;
    case GST_AVHW_SCALE_METHOD_BICUBIC:
      *options = PLACEBO ":upscaler=bicubic:downscaler=bicubic";
      break;
    case GST_AVHW_SCALE_METHOD_LANCZOS:
      *options = PLACEBO ":upscaler=lanczos:downscaler=lanczos";
      break;
    default:
      *options = NULL;
      break;
  }
  return "libplacebo";
}

static const gchar *
vk_get_scale_method_args (GstAvhwBackend * backend, GstAvhwScaleMethod method)
{
  switch (method) {
    case GST_AVHW_SCALE_METHOD_DEFAULT:
      return "";
    case GST_AVHW_SCALE_METHOD_NEAREST:
      return "scaler=nearest";
    case GST_AVHW_SCALE_METHOD_BILINEAR:
      return "scaler=bilinear";
    default:
      return NULL;
  }
}

void
vk_scale_class_init (GstAvhwBackendClass * bclass)
{
  bclass->scale_filter = "scale_vulkan";
  bclass->get_scale_formats = vk_get_scale_formats;
  bclass->get_scale_method_args = vk_get_scale_method_args;
  bclass->get_scale_filter_for = vk_get_scale_filter_for;
}
