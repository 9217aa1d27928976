/* gst-avhw: the parameters of the CUDA convert-and-scale kernels
 * (avhw-convert.cu), shared by the kernels and their host code
 * (gstavhwcudaconvert.c). Plain C types of one size on both sides (an LP64
 * host, nvptx64 on the device); the test libs/cuda-kernels checks the size
 * against the PTX's parameter.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* One entry per input format; the output is a parameter. */
#define AVHW_CONVERT_ENTRY_NV12 "avhw_convert_nv12"
#define AVHW_CONVERT_ENTRY_P010 "avhw_convert_p010"
#define AVHW_CONVERT_ENTRY_I420 "avhw_convert_i420"

/* The block the host launches: 32 x 8 threads, one per output pixel. */
#define AVHW_CONVERT_BLOCK_W 32
#define AVHW_CONVERT_BLOCK_H 8

#define AVHW_CONVERT_LAYOUT_PACKED 0
#define AVHW_CONVERT_LAYOUT_PLANAR 1

typedef struct AvhwConvertParams
{
  /* Source planes (CUdeviceptr): Y, then UV (NV12, P010) or U and V
   * (I420); pitches in bytes. */
  unsigned long long src[3];
  /* Output: packed formats use dst[0]; planar ones hold the R, G and B
   * planes in that order, whatever the format's own plane order. */
  unsigned long long dst[3];
  int src_pitch[3];
  int dst_pitch[3];
  int src_width, src_height;
  int chroma_width, chroma_height;
  /* The whole output, and the picture's rectangle inside it; the rest is
   * border. */
  int dst_width, dst_height;
  int rect_x, rect_y, rect_w, rect_h;
  int layout;
  /* Packed: bytes per pixel (3 or 4), and the byte of R, G, B and A (or
   * the padding byte of RGBx) in a pixel, -1 for none; store32 when each
   * pixel can be written as one aligned 32-bit word. */
  int pixel_stride;
  int channel[4];
  int store32;
  /* 1: an area (box) filter on that axis, else bilinear. */
  int area_x, area_y;
  /* Source luma pixels per output pixel. */
  float scale_x, scale_y;
  /* Chroma siting: 0.5 for a chroma sample co-sited with the first luma
   * sample on that axis, 0 for one centred between two. */
  float chroma_shift_x, chroma_shift_y;
  /* R, G, B (0..255) = matrix * (Y, Cb, Cr, 1), on the samples as stored
   * (P010: 16-bit words, 10 bits high), range and bit depth folded in. */
  float matrix[12];
  /* The border's bytes (R, G, B, A) and the picture's A. */
  unsigned char border[4];
  unsigned int alpha;
} AvhwConvertParams;
