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
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/avutil.h>
#include <gst/avhw/gstavhw.h>

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

static void
vk_get_scale_formats (GstAvhwBackend * backend, AVBufferRef * device_ctx,
    enum AVPixelFormat in_format, GArray * out_formats)
{
  gint f = in_format;

  g_array_append_val (out_formats, f);
#if LIBAVUTIL_VERSION_MAJOR >= 59
  if (vk_scale_is_packed_rgb (in_format))
    g_array_append_vals (out_formats, vk_scale_from_rgb,
        G_N_ELEMENTS (vk_scale_from_rgb));
#endif
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
}
