/* gst-avhw: CUDA backend, converting YUV frames to RGB tensors while
 * scaling, in one launch of its own kernel (kernels/avhw-convert.cu)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video-format.h>
#include <gst/video/video-color.h>
#include <gst/video/video-chroma.h>

#include "gstavhwcudakernels.h"

G_BEGIN_DECLS

typedef enum
{
  /* 2 taps per axis, edges clamped */
  CUDA_CONVERT_BILINEAR,
  /* a box filter (each source pixel weighted by its overlap with the
   * output pixel) on each axis that shrinks, bilinear on one that grows:
   * the antialiased downscale */
  CUDA_CONVERT_AREA
} CudaConvertMethod;

/* One conversion, as caps describe it. Only GStreamer's enums are used
 * here, none of its functions. */
typedef struct
{
  /* NV12, P010_10LE or I420 (FFmpeg's nv12, p010le, yuv420p) */
  GstVideoFormat in_format;
  gint in_width, in_height;
  /* BT601, BT709 or BT2020 */
  GstVideoColorMatrix matrix;
  /* GST_VIDEO_COLOR_RANGE_16_235 (limited) or _0_255 (full) */
  GstVideoColorRange range;
  /* H_COSITED and V_COSITED are read; anything else is centred */
  GstVideoChromaSite chroma_site;
  /* RGB, BGR, RGBA, BGRA, RGBx, BGRx, RGBP or BGRP */
  GstVideoFormat out_format;
  gint out_width, out_height;
  /* The picture's rectangle in the output (letterbox, as
   * videoconvertscale's add-borders); all 0: the whole output */
  gint dest_x, dest_y, dest_width, dest_height;
  /* The colour outside that rectangle, as videoconvertscale's
   * border-argb: 0xAARRGGBB */
  guint32 border_argb;
  CudaConvertMethod method;
} CudaConvertSetup;

typedef struct _CudaConvert CudaConvert;

/* TRUE when the kernel converts @in to @out. */
gboolean cuda_convert_supports (GstVideoFormat in, GstVideoFormat out);

/* The matrix that turns stored samples (Y, Cb, Cr, 1) of @in into R, G, B
 * in 0..255, range and bit depth folded in; FALSE for an unsupported
 * format, matrix or range. */
gboolean cuda_convert_get_matrix (GstVideoFormat in,
    GstVideoColorMatrix matrix, GstVideoColorRange range, gfloat out[12]);

/* Checks @setup and computes the kernel's parameters, once per
 * negotiation. @kernels must outlive the result. */
CudaConvert *cuda_convert_new (CudaKernels * kernels,
    const CudaConvertSetup * setup, GError ** error);

/* Converts one frame: one kernel launch on @stream, which the caller
 * synchronises (an FFmpeg CUDA frame: data[] and linesize[] of the device
 * frame). Planes: Y, UV (NV12, P010) or Y, U, V (I420) in; one (packed) or
 * three (planar, in the format's plane order) out. */
gboolean cuda_convert_frame (CudaConvert * convert,
    const CUdeviceptr src[3], const gint src_pitch[3],
    const CUdeviceptr dst[3], const gint dst_pitch[3], CUstream stream,
    GError ** error);

void cuda_convert_free (CudaConvert * convert);

G_END_DECLS
