/* gst-avhw: Vulkan backend, frames of odd height in 4:2:0 planar formats
 *
 * FFmpeg 7.1's vulkan transfers drop the last chroma row of a 3-plane 4:2:0
 * frame (yuv420p, yuv420p10) whose height is odd: the row comes back as
 * whatever the image held (seen with `ffmpeg -vf hwupload,hwdownload` on
 * lavapipe; NV12 and even heights are fine, and so is FFmpeg 5.1). Rather
 * than trust a version number, the first such transfer of a layout (format,
 * size, line sizes) in the process round-trips a marked frame of that very
 * layout through the same frames context and looks at its last chroma row
 * (a 16x3 frame with FFmpeg's own alignment kept it: the loss depends on
 * the layout). Where the row is lost, transfers of that layout are refused
 * with an error naming the problem instead of returning a wrong frame.
 * With FFmpeg 7 (libavutil 59) every transfer of an odd size of a
 * subsampled format is refused without a probe: on NVIDIA's driver (H200)
 * the uploads of 175x145 I420 and then NV12 frames never returned, so
 * probing there would hang too.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
#include <libavutil/avutil.h>
#include <gst/avhw/gstavhw-impl.h>
#include "gstavhwvulkanbackend.h"
GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

enum
{ ODD_UNKNOWN = 0, ODD_KEPT, ODD_LOST };

static GMutex odd_lock;
static GHashTable *odd_results; /* layout string -> ODD_KEPT / ODD_LOST */

/* A system frame laid out like @tmpl (size, format, line sizes), planes
 * contiguous; its last chroma rows set to 0x55 when @mark. */
static AVFrame *
odd_frame_like (const AVFrame * tmpl, gboolean mark)
{
  AVFrame *f = av_frame_alloc ();
  int p, rows[3], size = 0;
  uint8_t *base;

  if (!f)
    return NULL;
  f->format = tmpl->format;
  f->width = tmpl->width;
  f->height = tmpl->height;
  for (p = 0; p < 3; p++) {
    rows[p] = p ? (tmpl->height + 1) / 2 : tmpl->height;
    f->linesize[p] = tmpl->linesize[p];
    size += f->linesize[p] * rows[p];
  }
  if (!(f->buf[0] = av_buffer_allocz (size))) {
    av_frame_free (&f);
    return NULL;
  }
  base = f->buf[0]->data;
  for (p = 0; p < 3; p++) {
    f->data[p] = base;
    base += f->linesize[p] * rows[p];
    if (mark && p > 0)
      memset (f->data[p] + f->linesize[p] * (rows[p] - 1), 0x55,
          f->linesize[p]);
  }
  return f;
}

/* Uploads into a frame of @frames a system frame laid out like @tmpl whose
 * last chroma rows are set, downloads it into another, and looks at them. */
static gint
odd_probe (AVBufferRef * frames, const AVFrame * tmpl)
{
  AVFrame *sw = odd_frame_like (tmpl, TRUE), *back = odd_frame_like (tmpl,
      FALSE), *hw = av_frame_alloc ();
  gint result = ODD_UNKNOWN;
  int last = (tmpl->height - 1) / 2;

  if (sw && back && hw && av_hwframe_get_buffer (frames, hw, 0) >= 0
      && av_hwframe_transfer_data (hw, sw, 0) >= 0
      && av_hwframe_transfer_data (back, hw, 0) >= 0)
    result = back->data[1][back->linesize[1] * last] == 0x55
        && back->data[2][back->linesize[2] * last] == 0x55 ?
        ODD_KEPT : ODD_LOST;
  GST_INFO ("odd-height %s %dx%d round trip: %s",
      av_get_pix_fmt_name (tmpl->format), tmpl->width, tmpl->height,
      result == ODD_KEPT ? "last chroma row kept" :
      result == ODD_LOST ? "last chroma row LOST" : "could not run");
  av_frame_free (&sw);
  av_frame_free (&hw);
  av_frame_free (&back);
  return result;
}

gboolean
vk_check_odd_height (const AVFrame * hw_frame, const AVFrame * sw_frame,
    GError ** error)
{
  const AVHWFramesContext *fc =
      (const AVHWFramesContext *) hw_frame->hw_frames_ctx->data;
  const AVPixFmtDescriptor *d = av_pix_fmt_desc_get (fc->sw_format);
  gchar *key;
  gint result;

  if (d && avutil_version () >= AV_VERSION_INT (59, 0, 0)
      && (((sw_frame->width & 1) && d->log2_chroma_w)
          || ((sw_frame->height & 1) && d->log2_chroma_h))) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "vulkan: this FFmpeg (libavutil %s) cannot be trusted with %s frames "
        "of odd size (%dx%d): lavapipe lost a chroma row and NVIDIA's driver "
        "never returned; use an even size", AV_STRINGIFY (LIBAVUTIL_VERSION),
        av_get_pix_fmt_name (fc->sw_format), sw_frame->width, sw_frame->height);
    return FALSE;
  }
  if (!d || !(sw_frame->height & 1) || d->log2_chroma_h != 1
      || d->nb_components < 3 || d->comp[1].plane == d->comp[2].plane
      || sw_frame->format != fc->sw_format)
    return TRUE;                /* not a 3-plane 4:2:0 frame of odd height */
  key = g_strdup_printf ("%d %dx%d %d %d %d", sw_frame->format,
      sw_frame->width, sw_frame->height, sw_frame->linesize[0],
      sw_frame->linesize[1], sw_frame->linesize[2]);
  g_mutex_lock (&odd_lock);
  if (!odd_results)
    odd_results = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  result = GPOINTER_TO_INT (g_hash_table_lookup (odd_results, key));
  if (result == ODD_UNKNOWN) {
    result = odd_probe (hw_frame->hw_frames_ctx, sw_frame);
    g_hash_table_insert (odd_results, key, GINT_TO_POINTER (result));
    key = NULL;
  }
  g_mutex_unlock (&odd_lock);
  g_free (key);
  if (result != ODD_LOST)
    return TRUE;
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
      "vulkan: this FFmpeg (libavutil %s) loses the last chroma row of %s "
      "frames of odd height (%dx%d); use NV12 or an even height",
      AV_STRINGIFY (LIBAVUTIL_VERSION), av_get_pix_fmt_name (fc->sw_format),
      sw_frame->width, sw_frame->height);
  return FALSE;
}
