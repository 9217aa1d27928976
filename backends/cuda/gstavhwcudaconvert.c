/* gst-avhw: CUDA backend, YUV to RGB while scaling, in one kernel launch
 *
 * The parameters of kernels/avhw-convert.cu are computed once per
 * negotiation (cuda_convert_new); each frame only fills in its planes and
 * launches (cuda_convert_frame). Needs GLib and the driver only.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <ffnvcodec/dynlink_loader.h>

#include "gstavhwcudaconvert.h"
#include "avhw-convert.h"

/* The struct's layout is the kernel's parameter (libs/cuda-kernels checks
 * the PTX's size too). */
G_STATIC_ASSERT (sizeof (AvhwConvertParams) == 224);
G_STATIC_ASSERT (offsetof (AvhwConvertParams, matrix) == 164);

typedef struct
{
  GstVideoFormat format;
  const gchar *entry;
  gint depth;                   /* bits per sample */
  gint shift;                   /* of the sample in its 16-bit word */
  gint bytes;                   /* per sample */
} CudaConvertIn;

static const CudaConvertIn cuda_convert_in[] = {
  {GST_VIDEO_FORMAT_NV12, AVHW_CONVERT_ENTRY_NV12, 8, 0, 1},
  {GST_VIDEO_FORMAT_P010_10LE, AVHW_CONVERT_ENTRY_P010, 10, 6, 2},
  {GST_VIDEO_FORMAT_I420, AVHW_CONVERT_ENTRY_I420, 8, 0, 1},
};

typedef struct
{
  GstVideoFormat format;
  gint layout;
  /* packed: bytes per pixel; planar: 1 */
  gint stride;
  /* packed: the byte of R, G, B, A in a pixel (-1: none); planar: the
   * plane of R, G, B */
  gint channel[4];
  /* the fourth byte is padding (RGBx): always 0xff */
  gboolean pad;
} CudaConvertOut;

static const CudaConvertOut cuda_convert_out[] = {
  {GST_VIDEO_FORMAT_RGB, AVHW_CONVERT_LAYOUT_PACKED, 3, {0, 1, 2, -1}, FALSE},
  {GST_VIDEO_FORMAT_BGR, AVHW_CONVERT_LAYOUT_PACKED, 3, {2, 1, 0, -1}, FALSE},
  {GST_VIDEO_FORMAT_RGBA, AVHW_CONVERT_LAYOUT_PACKED, 4, {0, 1, 2, 3}, FALSE},
  {GST_VIDEO_FORMAT_BGRA, AVHW_CONVERT_LAYOUT_PACKED, 4, {2, 1, 0, 3}, FALSE},
  {GST_VIDEO_FORMAT_RGBx, AVHW_CONVERT_LAYOUT_PACKED, 4, {0, 1, 2, 3}, TRUE},
  {GST_VIDEO_FORMAT_BGRx, AVHW_CONVERT_LAYOUT_PACKED, 4, {2, 1, 0, 3}, TRUE},
  {GST_VIDEO_FORMAT_RGBP, AVHW_CONVERT_LAYOUT_PLANAR, 1, {0, 1, 2, -1}, FALSE},
  {GST_VIDEO_FORMAT_BGRP, AVHW_CONVERT_LAYOUT_PLANAR, 1, {2, 1, 0, -1}, FALSE},
};

struct _CudaConvert
{
  CudaKernels *kernels;
  CUfunction function;
  const CudaConvertIn *in;
  const CudaConvertOut *out;
  AvhwConvertParams params;
  guint grid_w, grid_h;
};

static const CudaConvertIn *
cuda_convert_find_in (GstVideoFormat format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cuda_convert_in); i++)
    if (cuda_convert_in[i].format == format)
      return &cuda_convert_in[i];
  return NULL;
}

static const CudaConvertOut *
cuda_convert_find_out (GstVideoFormat format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cuda_convert_out); i++)
    if (cuda_convert_out[i].format == format)
      return &cuda_convert_out[i];
  return NULL;
}

gboolean
cuda_convert_supports (GstVideoFormat in, GstVideoFormat out)
{
  return cuda_convert_find_in (in) && cuda_convert_find_out (out);
}

gboolean
cuda_convert_get_matrix (GstVideoFormat in, GstVideoColorMatrix matrix,
    GstVideoColorRange range, gfloat out[12])
{
  const CudaConvertIn *fmt = cuda_convert_find_in (in);
  gdouble kr, kb, kg, unit, yoff, yscale, coff, cscale, ay, by, ac, bc;
  gdouble rv, gu, gv, bu;

  if (!fmt)
    return FALSE;
  switch (matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT601:
      kr = 0.299;
      kb = 0.114;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT709:
      kr = 0.2126;
      kb = 0.0722;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      kr = 0.2627;
      kb = 0.0593;
      break;
    default:
      return FALSE;
  }
  kg = 1.0 - kr - kb;
  /* Code values of @depth bits; stored shifted by @shift. */
  unit = (gdouble) (1 << fmt->shift);
  if (range == GST_VIDEO_COLOR_RANGE_16_235) {
    yoff = 16 << (fmt->depth - 8);
    yscale = 219 << (fmt->depth - 8);
    coff = 128 << (fmt->depth - 8);
    cscale = 224 << (fmt->depth - 8);
  } else if (range == GST_VIDEO_COLOR_RANGE_0_255) {
    yoff = 0;
    yscale = (1 << fmt->depth) - 1;
    coff = 1 << (fmt->depth - 1);
    cscale = (1 << fmt->depth) - 1;
  } else {
    return FALSE;
  }
  /* Y' = ay * Y + by, Pb = ac * Cb + bc, Pr = ac * Cr + bc */
  ay = 255.0 / (unit * yscale);
  by = -255.0 * yoff / yscale;
  ac = 255.0 / (unit * cscale);
  bc = -255.0 * coff / cscale;
  rv = 2.0 * (1.0 - kr);
  gu = -2.0 * kb * (1.0 - kb) / kg;
  gv = -2.0 * kr * (1.0 - kr) / kg;
  bu = 2.0 * (1.0 - kb);
  out[0] = ay;
  out[1] = 0;
  out[2] = rv * ac;
  out[3] = by + rv * bc;
  out[4] = ay;
  out[5] = gu * ac;
  out[6] = gv * ac;
  out[7] = by + (gu + gv) * bc;
  out[8] = ay;
  out[9] = bu * ac;
  out[10] = 0;
  out[11] = by + bu * bc;
  return TRUE;
}

CudaConvert *
cuda_convert_new (CudaKernels * kernels, const CudaConvertSetup * setup,
    GError ** error)
{
  const CudaConvertIn *in = cuda_convert_find_in (setup->in_format);
  const CudaConvertOut *out = cuda_convert_find_out (setup->out_format);
  gint dx = setup->dest_x, dy = setup->dest_y;
  gint dw = setup->dest_width, dh = setup->dest_height;
  CudaConvert *c;
  AvhwConvertParams *p;
  CUfunction f;
  guint i;

  if (!in || !out) {
    g_set_error (error, CUDA_KERNELS_ERROR, 0, "cuda convert: video format "
        "%d to %d is not one of its conversions (NV12, P010_10LE, I420 to "
        "RGB, BGR, RGBA, BGRA, RGBx, BGRx, RGBP, BGRP)", setup->in_format,
        setup->out_format);
    return NULL;
  }
  if (dw == 0 && dh == 0 && dx == 0 && dy == 0) {
    dw = setup->out_width;
    dh = setup->out_height;
  }
  if (setup->in_width < 1 || setup->in_height < 1 || setup->out_width < 1
      || setup->out_height < 1 || dx < 0 || dy < 0 || dw < 1 || dh < 1
      || dx > setup->out_width - dw || dy > setup->out_height - dh) {
    g_set_error (error, CUDA_KERNELS_ERROR, 0, "cuda convert: %dx%d to "
        "%dx%d with the picture at %dx%d+%d+%d: not inside the output",
        setup->in_width, setup->in_height, setup->out_width,
        setup->out_height, dw, dh, dx, dy);
    return NULL;
  }
  f = cuda_kernels_get_function (kernels, in->entry, error);
  if (!f)
    return NULL;

  c = g_new0 (CudaConvert, 1);
  c->kernels = kernels;
  c->function = f;
  c->in = in;
  c->out = out;
  p = &c->params;
  if (!cuda_convert_get_matrix (setup->in_format, setup->matrix,
          setup->range, p->matrix)) {
    g_set_error (error, CUDA_KERNELS_ERROR, 0, "cuda convert: colour matrix "
        "%d with range %d: only BT.601, BT.709 and BT.2020, limited or full",
        setup->matrix, setup->range);
    g_free (c);
    return NULL;
  }
  p->src_width = setup->in_width;
  p->src_height = setup->in_height;
  p->chroma_width = (setup->in_width + 1) / 2;
  p->chroma_height = (setup->in_height + 1) / 2;
  p->dst_width = setup->out_width;
  p->dst_height = setup->out_height;
  p->rect_x = dx;
  p->rect_y = dy;
  p->rect_w = dw;
  p->rect_h = dh;
  p->layout = out->layout;
  p->pixel_stride = out->stride;
  for (i = 0; i < 4; i++)
    p->channel[i] = out->channel[i];
  p->scale_x = (gfloat) setup->in_width / dw;
  p->scale_y = (gfloat) setup->in_height / dh;
  p->area_x = setup->method == CUDA_CONVERT_AREA && setup->in_width > dw;
  p->area_y = setup->method == CUDA_CONVERT_AREA && setup->in_height > dh;
  p->chroma_shift_x = (setup->chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED)
      ? 0.5f : 0.f;
  p->chroma_shift_y = (setup->chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED)
      ? 0.5f : 0.f;
  p->border[0] = (setup->border_argb >> 16) & 0xff;
  p->border[1] = (setup->border_argb >> 8) & 0xff;
  p->border[2] = setup->border_argb & 0xff;
  p->border[3] = out->pad ? 0xff : (setup->border_argb >> 24) & 0xff;
  p->alpha = 0xff;
  c->grid_w = (setup->out_width + AVHW_CONVERT_BLOCK_W - 1) /
      AVHW_CONVERT_BLOCK_W;
  c->grid_h = (setup->out_height + AVHW_CONVERT_BLOCK_H - 1) /
      AVHW_CONVERT_BLOCK_H;
  return c;
}

gboolean
cuda_convert_frame (CudaConvert * c, const CUdeviceptr src[3],
    const gint src_pitch[3], const CUdeviceptr dst[3], const gint dst_pitch[3],
    CUstream stream, GError ** error)
{
  const CudaFunctions *cu = cuda_kernels_get_driver (c->kernels);
  AvhwConvertParams p = c->params;
  guint n_src = c->in->format == GST_VIDEO_FORMAT_I420 ? 3 : 2, i;
  void *args[] = { &p };
  CUcontext dummy;
  gboolean ok;

  for (i = 0; i < n_src; i++) {
    gint row = (i == 0 ? p.src_width : p.chroma_width) * c->in->bytes *
        (i == 1 && n_src == 2 ? 2 : 1);

    if (!src[i] || src_pitch[i] < row) {
      g_set_error (error, CUDA_KERNELS_ERROR, 0, "cuda convert: input plane "
          "%u: no pointer, or a pitch of %d bytes for rows of %d", i,
          src_pitch[i], row);
      return FALSE;
    }
    p.src[i] = src[i];
    p.src_pitch[i] = src_pitch[i];
  }
  if (p.layout == AVHW_CONVERT_LAYOUT_PLANAR) {
    /* The kernel writes R, G, B to dst[0], [1], [2]. */
    for (i = 0; i < 3; i++) {
      guint plane = c->out->channel[i];

      if (!dst[plane] || dst_pitch[plane] < p.dst_width)
        goto bad_dst;
      p.dst[i] = dst[plane];
      p.dst_pitch[i] = dst_pitch[plane];
    }
  } else {
    if (!dst[0] || dst_pitch[0] < p.dst_width * p.pixel_stride)
      goto bad_dst;
    p.dst[0] = dst[0];
    p.dst_pitch[0] = dst_pitch[0];
    p.store32 = p.pixel_stride == 4 && (dst[0] % 4) == 0
        && (dst_pitch[0] % 4) == 0;
  }

  if (!CUDA_KERNELS_CHECK (cu, cu->cuCtxPushCurrent
          (cuda_kernels_get_context (c->kernels)), error))
    return FALSE;
  ok = CUDA_KERNELS_CHECK (cu, cu->cuLaunchKernel (c->function, c->grid_w,
          c->grid_h, 1, AVHW_CONVERT_BLOCK_W, AVHW_CONVERT_BLOCK_H, 1, 0,
          stream, args, NULL), error);
  cu->cuCtxPopCurrent (&dummy);
  return ok;

bad_dst:
  g_set_error (error, CUDA_KERNELS_ERROR, 0, "cuda convert: an output "
      "plane without pointer, or a pitch too short for %d pixels", p.dst_width);
  return FALSE;
}

void
cuda_convert_free (CudaConvert * convert)
{
  g_free (convert);
}
