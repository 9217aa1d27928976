/* gst-avhw: AVFrame properties -> GStreamer video info and buffer flags
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/mastering_display_metadata.h>
#include "gstavhwvideoutils.h"

/* FFmpeg 6.1 (lavu 58.29) moved interlacing and key flags into
 * AVFrame.flags and deprecated the fields, which FFmpeg 7 keeps deprecated
 * and 8 removes; 5.1 only has the fields. The one place that knows. */
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT (58, 29, 100)
#define FRAME_INTERLACED(f) (!!((f)->flags & AV_FRAME_FLAG_INTERLACED))
#define FRAME_TFF(f) (!!((f)->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST))
#define FRAME_KEY(f) (!!((f)->flags & AV_FRAME_FLAG_KEY))
#else
#define FRAME_INTERLACED(f) ((f)->interlaced_frame)
#define FRAME_TFF(f) ((f)->top_field_first)
#define FRAME_KEY(f) ((f)->key_frame)
#endif

gboolean
gst_avhw_frame_is_keyframe (const AVFrame * frame)
{
  return FRAME_KEY (frame);
}

gboolean
gst_avhw_frame_is_interlaced (const AVFrame * frame)
{
  return FRAME_INTERLACED (frame);
}

/* Fills size, format, interlacing, pixel aspect ratio and colorimetry from
 * a decoded frame. FFmpeg's colour enums are the ISO/IEC 23091-4 (H.273)
 * code points GStreamer converts from. */
void
gst_avhw_video_info_from_frame (GstVideoInfo * info, const AVFrame * frame,
    GstVideoFormat format)
{
  GstVideoColorimetry *c = &info->colorimetry;
  GstVideoColorimetry def;

  gst_video_info_set_format (info, format, frame->width, frame->height);
  def = info->colorimetry;
  if (FRAME_INTERLACED (frame))
    GST_VIDEO_INFO_INTERLACE_MODE (info) = GST_VIDEO_INTERLACE_MODE_MIXED;
  if (frame->sample_aspect_ratio.num > 0 && frame->sample_aspect_ratio.den > 0) {
    GST_VIDEO_INFO_PAR_N (info) = frame->sample_aspect_ratio.num;
    GST_VIDEO_INFO_PAR_D (info) = frame->sample_aspect_ratio.den;
  }

  if (frame->color_range == AVCOL_RANGE_JPEG)
    c->range = GST_VIDEO_COLOR_RANGE_0_255;
  else if (frame->color_range == AVCOL_RANGE_MPEG)
    c->range = GST_VIDEO_COLOR_RANGE_16_235;
  if (frame->colorspace != AVCOL_SPC_UNSPECIFIED
      && frame->colorspace != AVCOL_SPC_RESERVED) {
    c->matrix = gst_video_color_matrix_from_iso (frame->colorspace);
    if (c->matrix == GST_VIDEO_COLOR_MATRIX_UNKNOWN)
      c->matrix = def.matrix;
  }
  if (frame->color_trc != AVCOL_TRC_UNSPECIFIED
      && frame->color_trc != AVCOL_TRC_RESERVED)
    c->transfer = gst_video_transfer_function_from_iso (frame->color_trc);
  if (frame->color_primaries != AVCOL_PRI_UNSPECIFIED
      && frame->color_primaries != AVCOL_PRI_RESERVED)
    c->primaries = gst_video_color_primaries_from_iso (frame->color_primaries);
  if (GST_VIDEO_INFO_IS_RGB (info))
    c->matrix = GST_VIDEO_COLOR_MATRIX_RGB;
}

void
gst_avhw_buffer_flags_from_frame (GstBuffer * buffer, const AVFrame * frame)
{
  if (FRAME_INTERLACED (frame)) {
    GST_BUFFER_FLAG_SET (buffer, GST_VIDEO_BUFFER_FLAG_INTERLACED);
    if (FRAME_TFF (frame))
      GST_BUFFER_FLAG_SET (buffer, GST_VIDEO_BUFFER_FLAG_TFF);
  }
  if (frame->repeat_pict)
    GST_BUFFER_FLAG_SET (buffer, GST_VIDEO_BUFFER_FLAG_RFF);
}

/* HDR10 static metadata (mastering display, content light) into caps. */
void
gst_avhw_caps_add_hdr (GstCaps * caps, const AVFrame * frame)
{
  AVFrameSideData *sd;

  sd = av_frame_get_side_data (frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA);
  if (sd) {
    const AVMasteringDisplayMetadata *m = (void *) sd->data;
    GstVideoMasteringDisplayInfo minfo;
    guint i;

    if (m->has_primaries && m->has_luminance) {
      gst_video_mastering_display_info_init (&minfo);
      /* GStreamer: chromaticity in 0.00002 units, luminance in 0.0001 cd/m2 */
      for (i = 0; i < 3; i++) {
        minfo.display_primaries[i].x =
            av_rescale (m->display_primaries[i][0].num, 50000,
            m->display_primaries[i][0].den);
        minfo.display_primaries[i].y =
            av_rescale (m->display_primaries[i][1].num, 50000,
            m->display_primaries[i][1].den);
      }
      minfo.white_point.x = av_rescale (m->white_point[0].num, 50000,
          m->white_point[0].den);
      minfo.white_point.y = av_rescale (m->white_point[1].num, 50000,
          m->white_point[1].den);
      minfo.max_display_mastering_luminance = av_rescale
          (m->max_luminance.num, 10000, m->max_luminance.den);
      minfo.min_display_mastering_luminance = av_rescale
          (m->min_luminance.num, 10000, m->min_luminance.den);
      gst_video_mastering_display_info_add_to_caps (&minfo, caps);
    }
  }
  sd = av_frame_get_side_data (frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL);
  if (sd) {
    const AVContentLightMetadata *l = (void *) sd->data;
    GstVideoContentLightLevel linfo;

    gst_video_content_light_level_init (&linfo);
    linfo.max_content_light_level = l->MaxCLL;
    linfo.max_frame_average_light_level = l->MaxFALL;
    gst_video_content_light_level_add_to_caps (&linfo, caps);
  }
}
