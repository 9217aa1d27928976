/* gst-avhw: convert and scale in one CUDA kernel launch per frame
 *
 * NV12, P010 or I420 in (FFmpeg CUDA frames: device pointers and pitches),
 * 8-bit RGB out: packed RGB, BGR, RGBA, BGRA, RGBx, BGRx or planar RGBP,
 * BGRP, at any size, optionally inside a border (letterbox). One thread
 * per output pixel: it filters Y, Cb and Cr at its footprint in the source,
 * then applies the colour matrix. Per axis the filter is bilinear (2 taps,
 * edges clamped) or an area (box) filter, whose weights are each source
 * pixel's overlap with the output pixel's footprint: the antialiased
 * downscale for large ratios such as 1080p to 224.
 *
 * Built at build time to PTX by clang (CUDA mode, no toolkit) or nvcc,
 * and to cubins by ptxas where a toolkit is found (kernels/meson.build).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "avhw-cuda-device.h"
#include "avhw-convert.h"

enum
{
  IN_NV12,
  IN_P010,
  IN_I420
};

/* The source samples one output pixel reads on one axis. */
struct Axis
{
  int first, count;
  float lo, hi;                 /* area: the footprint, in source pixels */
  float frac;                   /* bilinear: the second tap's weight */
  float norm;
  int area;
};

static __device__ __forceinline__ float
clampf (float v, float lo, float hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* @d: output pixel (inside the picture's rectangle); @scale: source luma
 * pixels per output pixel; @n: source samples on this axis; @chroma: the
 * samples are chroma ones, at half the luma rate, shifted by @shift luma
 * pixels (siting). */
static __device__ __forceinline__ Axis
axis_make (int d, float scale, int n, int area, int chroma, float shift)
{
  Axis a;

  a.area = area;
  if (area) {
    float lo = d * scale, hi = (d + 1) * scale;
    int last;

    if (chroma) {
      lo = (lo + shift) * 0.5f;
      hi = (hi + shift) * 0.5f;
    }
    lo = clampf (lo, 0.f, (float) n);
    hi = clampf (hi, 0.f, (float) n);
    a.first = (int) avhw_floorf (lo);
    last = (int) avhw_ceilf (hi) - 1;
    if (last > n - 1)
      last = n - 1;
    if (last < a.first)
      last = a.first;
    a.count = last - a.first + 1;
    a.lo = lo;
    a.hi = hi;
    a.frac = 0.f;
    a.norm = hi > lo ? 1.f / (hi - lo) : 1.f;
  } else {
    float u = (d + 0.5f) * scale;

    if (chroma)
      u = (u + shift) * 0.5f;
    u = clampf (u - 0.5f, 0.f, (float) (n - 1));
    a.first = (int) avhw_floorf (u);
    a.frac = u - a.first;
    a.count = (a.first + 1 < n && a.frac > 0.f) ? 2 : 1;
    a.lo = a.hi = 0.f;
    a.norm = 1.f;
  }
  return a;
}

static __device__ __forceinline__ float
axis_weight (const Axis & a, int i)
{
  if (a.area) {
    float lo = a.lo > i ? a.lo : (float) i;
    float hi = a.hi < i + 1 ? a.hi : (float) (i + 1);

    return hi > lo ? hi - lo : 0.f;
  }
  if (a.count == 1)
    return 1.f;
  return i == a.first ? 1.f - a.frac : a.frac;
}

/* The filtered sample (or two interleaved ones, @two) of one plane; T is
 * the stored sample's type, STEP the samples between two pixels. */
template < typename T, int STEP > static __device__ __forceinline__ void
plane_sample (unsigned long long plane, int pitch, const Axis & ax,
    const Axis & ay, bool two, float *out0, float *out1)
{
  float s0 = 0.f, s1 = 0.f;

  for (int j = 0; j < ay.count; j++) {
    int y = ay.first + j;
    const T *row = (const T *) (plane + (unsigned long long) y * pitch);
    float wy = axis_weight (ay, y), r0 = 0.f, r1 = 0.f;

    for (int i = 0; i < ax.count; i++) {
      int x = ax.first + i;
      float wx = axis_weight (ax, x);

      r0 += wx * (float) row[x * STEP];
      if (two)
        r1 += wx * (float) row[x * STEP + 1];
    }
    s0 += wy * r0;
    s1 += wy * r1;
  }
  *out0 = s0 * ax.norm * ay.norm;
  *out1 = s1 * ax.norm * ay.norm;
}

static __device__ __forceinline__ unsigned char
to_byte (float v)
{
  return (unsigned char) (int) (clampf (v, 0.f, 255.f) + 0.5f);
}

template < int IN > static __device__ __forceinline__ void
convert (const AvhwConvertParams & p)
{
  int x = AVHW_BLOCK_X * AVHW_BLOCK_DIM_X + AVHW_THREAD_X;
  int y = AVHW_BLOCK_Y * AVHW_BLOCK_DIM_Y + AVHW_THREAD_Y;
  int dx = x - p.rect_x, dy = y - p.rect_y;
  unsigned char v[4];

  if (x >= p.dst_width || y >= p.dst_height)
    return;

  if (dx < 0 || dy < 0 || dx >= p.rect_w || dy >= p.rect_h) {
    v[0] = p.border[0];
    v[1] = p.border[1];
    v[2] = p.border[2];
    v[3] = p.border[3];
  } else {
    Axis lx = axis_make (dx, p.scale_x, p.src_width, p.area_x, 0, 0.f);
    Axis ly = axis_make (dy, p.scale_y, p.src_height, p.area_y, 0, 0.f);
    Axis cx = axis_make (dx, p.scale_x, p.chroma_width, p.area_x, 1,
        p.chroma_shift_x);
    Axis cy = axis_make (dy, p.scale_y, p.chroma_height, p.area_y, 1,
        p.chroma_shift_y);
    const float *m = p.matrix;
    float luma, cb, cr, unused;

    if (IN == IN_P010) {
      plane_sample < unsigned short, 1 > (p.src[0], p.src_pitch[0], lx, ly,
          false, &luma, &unused);
      plane_sample < unsigned short, 2 > (p.src[1], p.src_pitch[1], cx, cy,
          true, &cb, &cr);
    } else if (IN == IN_NV12) {
      plane_sample < unsigned char, 1 > (p.src[0], p.src_pitch[0], lx, ly,
          false, &luma, &unused);
      plane_sample < unsigned char, 2 > (p.src[1], p.src_pitch[1], cx, cy,
          true, &cb, &cr);
    } else {
      plane_sample < unsigned char, 1 > (p.src[0], p.src_pitch[0], lx, ly,
          false, &luma, &unused);
      plane_sample < unsigned char, 1 > (p.src[1], p.src_pitch[1], cx, cy,
          false, &cb, &unused);
      plane_sample < unsigned char, 1 > (p.src[2], p.src_pitch[2], cx, cy,
          false, &cr, &unused);
    }
    v[0] = to_byte (m[0] * luma + m[1] * cb + m[2] * cr + m[3]);
    v[1] = to_byte (m[4] * luma + m[5] * cb + m[6] * cr + m[7]);
    v[2] = to_byte (m[8] * luma + m[9] * cb + m[10] * cr + m[11]);
    v[3] = (unsigned char) p.alpha;
  }

  if (p.layout == AVHW_CONVERT_LAYOUT_PLANAR) {
    *(unsigned char *) (p.dst[0] + (unsigned long long) y * p.dst_pitch[0] +
        x) = v[0];
    *(unsigned char *) (p.dst[1] + (unsigned long long) y * p.dst_pitch[1] +
        x) = v[1];
    *(unsigned char *) (p.dst[2] + (unsigned long long) y * p.dst_pitch[2] +
        x) = v[2];
  } else {
    unsigned char *px = (unsigned char *) (p.dst[0] +
        (unsigned long long) y * p.dst_pitch[0] +
        (unsigned long long) x * p.pixel_stride);

    if (p.store32) {
      unsigned int word = 0;

      for (int c = 0; c < 4; c++)
        if (p.channel[c] >= 0)
          word |= (unsigned int) v[c] << (8 * p.channel[c]);
      *(unsigned int *) px = word;
    } else {
      for (int c = 0; c < 4; c++)
        if (p.channel[c] >= 0)
          px[p.channel[c]] = v[c];
    }
  }
}

extern "C" __global__ void
avhw_convert_nv12 (AvhwConvertParams p)
{
  convert < IN_NV12 > (p);
}

extern "C" __global__ void
avhw_convert_p010 (AvhwConvertParams p)
{
  convert < IN_P010 > (p);
}

extern "C" __global__ void
avhw_convert_i420 (AvhwConvertParams p)
{
  convert < IN_I420 > (p);
}
