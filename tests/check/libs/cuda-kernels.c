/* gst-avhw tests: the CUDA backend's convert-and-scale kernel
 * (backends/cuda/kernels/avhw-convert.cu) and its loader.
 *
 * Everywhere: the embedded PTX is well formed (its entries, and a
 * parameter the size of the host's struct), embedded cubins are CUDA ELF
 * files, the image choice per architecture, the host's colour matrices,
 * and the CPU reference below against known colours.
 *
 * With AVHW_TEST_HW=1 (libs/cuda-kernels-gpu): loads the kernels on CUDA
 * device 0 and runs every input format to every output format at several
 * geometries (odd sizes, up and down, letterbox and pillarbox), each
 * against the CPU reference of the same method: PSNR >= 35 dB, no sample
 * off by more than 2, borders exact, nothing written outside the output's
 * rows. Exits 77 where there is no CUDA driver or device.
 *
 * With AVHW_CUDA_EMULATED=1 and LD_LIBRARY_PATH at tests/check/
 * cuda-emulation (libs/cuda-kernels-emulated), the same device half runs
 * the kernel's source on the CPU, through a stand-in for the driver.
 *
 * AVHW_CUDA_BENCH=1 adds kernel times per frame (cuEvent), and
 * AVHW_CUDA_KERNEL_IMAGE=FILE loads a PTX or cubin file instead of the
 * embedded images (to compare compilers on the machine itself).
 *
 * Needs GLib and the CUDA driver only: no GStreamer at run time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <ffnvcodec/dynlink_loader.h>

#include "gstavhwcudaconvert.h"
#include "avhw-convert.h"

static const gchar *entries[] = { AVHW_CONVERT_ENTRY_NV12,
  AVHW_CONVERT_ENTRY_P010, AVHW_CONVERT_ENTRY_I420
};

static const GstVideoFormat in_formats[] = { GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420
};

static const GstVideoFormat out_formats[] = { GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGBP,
  GST_VIDEO_FORMAT_BGRP
};

static const gchar *
format_name (GstVideoFormat f)
{
  switch (f) {
    case GST_VIDEO_FORMAT_NV12:
      return "NV12";
    case GST_VIDEO_FORMAT_P010_10LE:
      return "P010_10LE";
    case GST_VIDEO_FORMAT_I420:
      return "I420";
    case GST_VIDEO_FORMAT_RGB:
      return "RGB";
    case GST_VIDEO_FORMAT_BGR:
      return "BGR";
    case GST_VIDEO_FORMAT_RGBA:
      return "RGBA";
    case GST_VIDEO_FORMAT_BGRA:
      return "BGRA";
    case GST_VIDEO_FORMAT_RGBx:
      return "RGBx";
    case GST_VIDEO_FORMAT_BGRx:
      return "BGRx";
    case GST_VIDEO_FORMAT_RGBP:
      return "RGBP";
    case GST_VIDEO_FORMAT_BGRP:
      return "BGRP";
    default:
      return "?";
  }
}

/* ---------------------------------------------------------------------
 * The CPU reference, written out plainly in doubles.
 * --------------------------------------------------------------------- */

/* A source frame in the device's layout (planes with pitches). */
typedef struct
{
  GstVideoFormat format;
  gint width, height, cw, ch;
  gint n_planes;
  gint pitch[3];
  gint rows[3];
  guint8 *plane[3];
} Frame;

/* The code value (P010: the 10 bits, unshifted) of component @comp (0 Y,
 * 1 Cb, 2 Cr) at (@x, @y) of its own plane. */
static gint
frame_code (const Frame * f, gint comp, gint x, gint y)
{
  const guint8 *row;

  switch (f->format) {
    case GST_VIDEO_FORMAT_NV12:
      row = f->plane[comp ? 1 : 0] + (gsize) f->pitch[comp ? 1 : 0] * y;
      return comp ? row[2 * x + comp - 1] : row[x];
    case GST_VIDEO_FORMAT_P010_10LE:{
      const guint8 *s;

      row = f->plane[comp ? 1 : 0] + (gsize) f->pitch[comp ? 1 : 0] * y;
      s = comp ? row + 4 * x + 2 * (comp - 1) : row + 2 * x;
      return (s[0] | (s[1] << 8)) >> 6;
    }
    default:
      row = f->plane[comp] + (gsize) f->pitch[comp] * y;
      return row[x];
  }
}

static void
frame_set_code (Frame * f, gint comp, gint x, gint y, gint v)
{
  guint8 *row;

  switch (f->format) {
    case GST_VIDEO_FORMAT_NV12:
      row = f->plane[comp ? 1 : 0] + (gsize) f->pitch[comp ? 1 : 0] * y;
      row[comp ? 2 * x + comp - 1 : x] = v;
      break;
    case GST_VIDEO_FORMAT_P010_10LE:{
      guint8 *s;

      row = f->plane[comp ? 1 : 0] + (gsize) f->pitch[comp ? 1 : 0] * y;
      s = comp ? row + 4 * x + 2 * (comp - 1) : row + 2 * x;
      s[0] = (v << 6) & 0xff;
      s[1] = (v << 6) >> 8;
      break;
    }
    default:
      f->plane[comp][(gsize) y * f->pitch[comp] + x] = v;
      break;
  }
}

static gint
frame_depth (const Frame * f)
{
  return f->format == GST_VIDEO_FORMAT_P010_10LE ? 10 : 8;
}

static guint32
hash (guint32 x)
{
  x ^= x >> 16;
  x *= 0x7feb352d;
  x ^= x >> 15;
  x *= 0x846ca68b;
  x ^= x >> 16;
  return x;
}

/* Smooth gradients, fine sine patterns and noise, in the full code range
 * (beyond limited range too: clamping is checked). @flat >= 0 fills it
 * with one colour, (Y, Cb, Cr) = @flat's three codes. */
static Frame *
frame_new (GstVideoFormat format, gint width, gint height, const gint * flat)
{
  Frame *f = g_new0 (Frame, 1);
  gint bytes = format == GST_VIDEO_FORMAT_P010_10LE ? 2 : 1;
  gint max, x, y, p, comp;

  f->format = format;
  f->width = width;
  f->height = height;
  f->cw = (width + 1) / 2;
  f->ch = (height + 1) / 2;
  f->n_planes = format == GST_VIDEO_FORMAT_I420 ? 3 : 2;
  for (p = 0; p < f->n_planes; p++) {
    gint row = p == 0 ? width * bytes : f->cw * bytes * (f->n_planes == 2 ?
        2 : 1);

    /* pitches that are neither the row nor a power of two */
    f->pitch[p] = ((row + 63) & ~63) + 64 + 2 * p;
    f->rows[p] = p == 0 ? height : f->ch;
    f->plane[p] = g_malloc0 ((gsize) f->pitch[p] * f->rows[p]);
  }
  max = (1 << frame_depth (f)) - 1;
  for (comp = 0; comp < 3; comp++) {
    gint w = comp ? f->cw : width, h = comp ? f->ch : height;

    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        gdouble v;

        if (flat) {
          frame_set_code (f, comp, x, y, flat[comp]);
          continue;
        }
        v = 0.5 + 0.3 * ((gdouble) x / w - 0.5) + 0.2 * ((gdouble) y / h - 0.5);
        if (x < w / 2)
          v += 0.25 * sin (x * (0.9 + 0.2 * comp)) * cos (y * 0.7);
        else
          v += 0.3 * ((hash (x * 7919 + y * 104729 + comp) % 1000) / 1000.0 -
              0.5);
        frame_set_code (f, comp, x, y, CLAMP ((gint) (v * max + 0.5), 0, max));
      }
    }
  }
  return f;
}

static void
frame_free (Frame * f)
{
  gint p;

  for (p = 0; p < f->n_planes; p++)
    g_free (f->plane[p]);
  g_free (f);
}

/* The source samples of output pixel @d on one axis, and their weights
 * (summing to 1): @in_luma source luma pixels onto @out_n output pixels;
 * @n samples on the axis (the chroma ones sited @shift luma pixels from
 * centred). Bilinear: the two samples around the output pixel's centre,
 * edges clamped. Area: the samples the output pixel's footprint covers,
 * each by how much of it. */
static gint
ref_taps (gint d, gint out_n, gint in_luma, gint n, gboolean chroma,
    gdouble shift, gboolean area, gint * idx, gdouble * w)
{
  gdouble scale = (gdouble) in_luma / out_n, sum = 0;
  gint count = 0, i;

  if (area && in_luma > out_n) {
    gdouble lo = d * scale, hi = (d + 1) * scale;

    if (chroma) {
      lo = (lo + shift) / 2;
      hi = (hi + shift) / 2;
    }
    lo = CLAMP (lo, 0, n);
    hi = CLAMP (hi, 0, n);
    for (i = (gint) floor (lo); i < n && i < hi; i++) {
      gdouble a = MAX (lo, i), b = MIN (hi, i + 1);

      if (b > a) {
        idx[count] = i;
        w[count++] = b - a;
        sum += b - a;
      }
    }
  } else {
    gdouble c = (d + 0.5) * scale, u, frac;
    gint i0;

    if (chroma)
      c = (c + shift) / 2;
    u = CLAMP (c - 0.5, 0, n - 1);
    i0 = (gint) floor (u);
    frac = u - i0;
    idx[count] = i0;
    w[count++] = 1 - frac;
    idx[count] = MIN (i0 + 1, n - 1);
    w[count++] = frac;
    sum = 1;
  }
  for (i = 0; i < count; i++)
    w[i] /= sum;
  return count;
}

/* Kr, Kb of the matrices (ITU-R BT.601, BT.709, BT.2020). */
static void
ref_kr_kb (GstVideoColorMatrix m, gdouble * kr, gdouble * kb)
{
  switch (m) {
    case GST_VIDEO_COLOR_MATRIX_BT601:
      *kr = 0.299;
      *kb = 0.114;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT709:
      *kr = 0.2126;
      *kb = 0.0722;
      break;
    default:
      *kr = 0.2627;
      *kb = 0.0593;
      break;
  }
}

/* Y, Cb, Cr code values of @depth bits to R, G, B in 0..255 (doubles). */
static void
ref_rgb (gdouble y, gdouble cb, gdouble cr, gint depth,
    GstVideoColorMatrix m, GstVideoColorRange range, gdouble rgb[3])
{
  gdouble kr, kb, kg, yn, pb, pr;
  gdouble k = 1 << (depth - 8), max = (1 << depth) - 1;

  ref_kr_kb (m, &kr, &kb);
  kg = 1 - kr - kb;
  if (range == GST_VIDEO_COLOR_RANGE_16_235) {
    yn = (y - 16 * k) / (219 * k);
    pb = (cb - 128 * k) / (224 * k);
    pr = (cr - 128 * k) / (224 * k);
  } else {
    yn = y / max;
    pb = (cb - (1 << (depth - 1))) / max;
    pr = (cr - (1 << (depth - 1))) / max;
  }
  rgb[0] = 255 * (yn + 2 * (1 - kr) * pr);
  rgb[1] = 255 * (yn - 2 * kb * (1 - kb) / kg * pb - 2 * kr * (1 - kr) / kg *
      pr);
  rgb[2] = 255 * (yn + 2 * (1 - kb) * pb);
}

static guint8
ref_byte (gdouble v)
{
  return (guint8) floor (CLAMP (v, 0, 255) + 0.5);
}

/* An output image in its own layout: packed, or three planes one after
 * the other (in the format's plane order), each row @pitch bytes. */
typedef struct
{
  GstVideoFormat format;
  gint width, height, pitch, n_planes, bpp;
  gsize plane_size;
  guint8 *data;
} Image;

static gboolean
format_is_planar (GstVideoFormat f)
{
  return f == GST_VIDEO_FORMAT_RGBP || f == GST_VIDEO_FORMAT_BGRP;
}

static Image *
image_new (GstVideoFormat format, gint width, gint height, gint pitch_extra)
{
  Image *im = g_new0 (Image, 1);

  im->format = format;
  im->width = width;
  im->height = height;
  im->n_planes = format_is_planar (format) ? 3 : 1;
  im->bpp = format_is_planar (format) ? 1 : (format == GST_VIDEO_FORMAT_RGB
      || format == GST_VIDEO_FORMAT_BGR) ? 3 : 4;
  im->pitch = width * im->bpp + pitch_extra;
  /* one spare row per plane: nothing may land there */
  im->plane_size = (gsize) im->pitch * (height + 1);
  im->data = g_malloc0 (im->plane_size * im->n_planes);
  return im;
}

static void
image_free (Image * im)
{
  g_free (im->data);
  g_free (im);
}

/* The byte of channel @c (0 R, 1 G, 2 B, 3 A or padding) at (@x, @y);
 * NULL for A of RGB, BGR and the planar ones. */
static guint8 *
image_at (Image * im, gint x, gint y, gint c)
{
  gboolean bgr = im->format == GST_VIDEO_FORMAT_BGR
      || im->format == GST_VIDEO_FORMAT_BGRA
      || im->format == GST_VIDEO_FORMAT_BGRx
      || im->format == GST_VIDEO_FORMAT_BGRP;
  gint pos = (c < 3 && bgr) ? 2 - c : c;

  if (c == 3 && im->bpp != 4)
    return NULL;
  if (im->n_planes == 3)
    return im->data + pos * im->plane_size + (gsize) im->pitch * y + x;
  return im->data + (gsize) im->pitch * y + (gsize) im->bpp * x + pos;
}

typedef struct
{
  const gchar *name;
  gint in_width, in_height;
  gint out_width, out_height;
  gint dest_x, dest_y, dest_width, dest_height;
  CudaConvertMethod method;
  GstVideoColorMatrix matrix;
  GstVideoColorRange range;
  GstVideoChromaSite site;
  guint32 border_argb;
} Case;

static gboolean
case_inside (const Case * c, gint x, gint y)
{
  gint dw = c->dest_width ? c->dest_width : c->out_width;
  gint dh = c->dest_height ? c->dest_height : c->out_height;

  return x >= c->dest_x && y >= c->dest_y && x < c->dest_x + dw
      && y < c->dest_y + dh;
}

/* The whole output of @c from @src, border included. */
static void
ref_convert (const Case * c, CudaConvertMethod method, const Frame * src,
    Image * out)
{
  gint dw = c->dest_width ? c->dest_width : c->out_width;
  gint dh = c->dest_height ? c->dest_height : c->out_height;
  gdouble sx = (c->site & GST_VIDEO_CHROMA_SITE_H_COSITED) ? 0.5 : 0;
  gdouble sy = (c->site & GST_VIDEO_CHROMA_SITE_V_COSITED) ? 0.5 : 0;
  gboolean area = method == CUDA_CONVERT_AREA;
  gint taps_max = src->width + 4;
  gint *lxi = g_new (gint, taps_max), *lyi = g_new (gint, src->height + 4);
  gint *cxi = g_new (gint, taps_max), *cyi = g_new (gint, src->height + 4);
  gdouble *lxw = g_new (gdouble, taps_max);
  gdouble *lyw = g_new (gdouble, src->height + 4);
  gdouble *cxw = g_new (gdouble, taps_max);
  gdouble *cyw = g_new (gdouble, src->height + 4);
  gboolean pad = out->format == GST_VIDEO_FORMAT_RGBx
      || out->format == GST_VIDEO_FORMAT_BGRx;
  gint x, y, i, j, ch;

  for (y = 0; y < out->height; y++) {
    for (x = 0; x < out->width; x++) {
      guint8 px[4];

      if (!case_inside (c, x, y)) {
        px[0] = (c->border_argb >> 16) & 0xff;
        px[1] = (c->border_argb >> 8) & 0xff;
        px[2] = c->border_argb & 0xff;
        px[3] = pad ? 0xff : c->border_argb >> 24;
      } else {
        gint dx = x - c->dest_x, dy = y - c->dest_y;
        gint nlx = ref_taps (dx, dw, src->width, src->width, FALSE, 0, area,
            lxi, lxw);
        gint nly = ref_taps (dy, dh, src->height, src->height, FALSE, 0, area,
            lyi, lyw);
        gint ncx = ref_taps (dx, dw, src->width, src->cw, TRUE, sx, area,
            cxi, cxw);
        gint ncy = ref_taps (dy, dh, src->height, src->ch, TRUE, sy, area,
            cyi, cyw);
        gdouble v[3] = { 0, 0, 0 }, rgb[3];

        for (j = 0; j < nly; j++)
          for (i = 0; i < nlx; i++)
            v[0] += lyw[j] * lxw[i] * frame_code (src, 0, lxi[i], lyi[j]);
        for (ch = 1; ch < 3; ch++)
          for (j = 0; j < ncy; j++)
            for (i = 0; i < ncx; i++)
              v[ch] += cyw[j] * cxw[i] * frame_code (src, ch, cxi[i], cyi[j]);
        ref_rgb (v[0], v[1], v[2], frame_depth (src), c->matrix, c->range, rgb);
        for (ch = 0; ch < 3; ch++)
          px[ch] = ref_byte (rgb[ch]);
        px[3] = 0xff;
      }
      for (ch = 0; ch < 4; ch++) {
        guint8 *b = image_at (out, x, y, ch);

        if (b)
          *b = px[ch];
      }
    }
  }
  g_free (lxi);
  g_free (lyi);
  g_free (cxi);
  g_free (cyi);
  g_free (lxw);
  g_free (lyw);
  g_free (cxw);
  g_free (cyw);
}

/* PSNR of @a against @b over the output's pixels (all its bytes), and the
 * largest difference of one byte. */
static gdouble
image_psnr (Image * a, Image * b, gint * max_diff)
{
  gdouble se = 0;
  gsize n = 0;
  gint x, y, c;

  *max_diff = 0;
  for (y = 0; y < a->height; y++) {
    for (x = 0; x < a->width; x++) {
      for (c = 0; c < 4; c++) {
        guint8 *pa = image_at (a, x, y, c), *pb = image_at (b, x, y, c);
        gint d;

        if (!pa)
          continue;
        d = ABS ((gint) * pa - (gint) * pb);
        *max_diff = MAX (*max_diff, d);
        se += (gdouble) d *d;
        n++;
      }
    }
  }
  if (se == 0)
    return 99;
  return 10 * log10 (255.0 * 255.0 * n / se);
}

static const Case cases[] = {
  /* the model-input case: 1080p to 224x224, antialiased */
  {"1080p-224-area", 1920, 1080, 224, 224, 0, 0, 0, 0, CUDA_CONVERT_AREA,
        GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_16_235,
      GST_VIDEO_CHROMA_SITE_H_COSITED, 0xff000000},
  /* odd sizes both sides */
  {"odd-bilinear", 641, 359, 223, 97, 0, 0, 0, 0, CUDA_CONVERT_BILINEAR,
        GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_0_255,
      GST_VIDEO_CHROMA_SITE_NONE, 0xff000000},
  /* upscaling: area is bilinear on axes that grow */
  {"up-area", 97, 61, 400, 301, 0, 0, 0, 0, CUDA_CONVERT_AREA,
        GST_VIDEO_COLOR_MATRIX_BT2020, GST_VIDEO_COLOR_RANGE_16_235,
      GST_VIDEO_CHROMA_SITE_COSITED, 0xff000000},
  /* letterbox: 16:9 into a square, as add-borders makes it */
  {"letterbox-area", 1280, 720, 224, 224, 0, 49, 224, 126, CUDA_CONVERT_AREA,
        GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_0_255,
      GST_VIDEO_CHROMA_SITE_H_COSITED, 0xff102030},
  /* pillarbox at odd offsets, a border with alpha */
  {"pillarbox-bilinear", 333, 501, 97, 223, 13, 0, 71, 223,
        CUDA_CONVERT_BILINEAR, GST_VIDEO_COLOR_MATRIX_BT601,
        GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_CHROMA_SITE_NONE,
      0x80a0b0c0},
  /* one axis shrinks a little, the other grows */
  {"mixed-area", 960, 540, 959, 541, 0, 0, 0, 0, CUDA_CONVERT_AREA,
        GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_16_235,
      GST_VIDEO_CHROMA_SITE_H_COSITED, 0xff000000},
};

/* ---------------------------------------------------------------------
 * Everywhere: the build's images, the matrices, the reference.
 * --------------------------------------------------------------------- */

static void
test_ptx (void)
{
  const CudaKernelImage *ptx = &cuda_kernel_images[cuda_n_kernel_images - 1];
  const gchar *text = (const gchar *) ptx->data;
  guint i;

  g_assert_true (ptx->ptx);
  g_assert_cmpuint (ptx->size, >, 1);
  /* cuModuleLoadData reads PTX up to its NUL */
  g_assert_cmpuint (strlen (text), ==, ptx->size - 1);
  g_assert_nonnull (strstr (text, "\n.version "));
  g_assert_nonnull (strstr (text, "\n.address_size 64"));
  {
    gchar *target = g_strdup_printf ("\n.target sm_%u", ptx->sm);

    g_assert_nonnull (strstr (text, target));
    g_free (target);
  }
  for (i = 0; i < G_N_ELEMENTS (entries); i++) {
    gchar *entry = g_strdup_printf (".visible .entry %s(", entries[i]);
    gchar *param = g_strdup_printf (".param .align 8 .b8 %s_param_0[%"
        G_GSIZE_FORMAT "]", entries[i], sizeof (AvhwConvertParams));
    const gchar *at = strstr (text, entry);

    g_assert_nonnull (at);
    /* one parameter, the struct, of the host's size */
    g_assert_nonnull (strstr (at, param));
    g_assert_true (strstr (at, param) < strstr (at, "{"));
    g_free (entry);
    g_free (param);
  }
  /* no stack: the parameters are read in place */
  g_assert_null (strstr (text, ".local"));
  g_print ("PTX: %" G_GSIZE_FORMAT " bytes, target sm_%u, %u entries\n",
      ptx->size, ptx->sm, (guint) G_N_ELEMENTS (entries));
}

static void
test_cubins (void)
{
  guint i, n = 0;

  for (i = 0; i + 1 < cuda_n_kernel_images; i++) {
    const CudaKernelImage *im = &cuda_kernel_images[i];

    g_assert_false (im->ptx);
    g_assert_cmpuint (im->size, >, 64);
    /* ELF64, little-endian, machine EM_CUDA (190) */
    g_assert_cmpmem (im->data, 4, "\177ELF", 4);
    g_assert_cmpuint (im->data[4], ==, 2);
    g_assert_cmpuint (im->data[18] | (im->data[19] << 8), ==, 190);
    if (i > 0)
      g_assert_cmpuint (im->sm, >, cuda_kernel_images[i - 1].sm);
    n++;
  }
  if (n == 0)
    g_test_message ("this build embeds no cubins (no ptxas): PTX only");
  g_print ("%u cubin(s)\n", n);
}

static void
test_pick (void)
{
  static const guint8 d[1] = { 0 };
  const CudaKernelImage images[] = {
    {70, FALSE, d, 1}, {75, FALSE, d, 1}, {80, FALSE, d, 1},
    {86, FALSE, d, 1}, {90, FALSE, d, 1}, {70, TRUE, d, 1},
  };
  const CudaKernelImage ptx_only[] = { {75, TRUE, d, 1} };

  g_assert_true (cuda_kernels_pick_image (images, 6, 9, 0, FALSE) ==
      &images[4]);
  /* sm_89 runs sm_86's cubin (same major, older minor) */
  g_assert_true (cuda_kernels_pick_image (images, 6, 8, 9, FALSE) ==
      &images[3]);
  g_assert_true (cuda_kernels_pick_image (images, 6, 8, 0, FALSE) ==
      &images[2]);
  g_assert_true (cuda_kernels_pick_image (images, 6, 7, 2, FALSE) ==
      &images[0]);
  /* a newer major (sm_100, sm_120): the PTX */
  g_assert_true (cuda_kernels_pick_image (images, 6, 10, 0, FALSE) ==
      &images[5]);
  g_assert_true (cuda_kernels_pick_image (images, 6, 12, 0, FALSE) ==
      &images[5]);
  g_assert_true (cuda_kernels_pick_image (images, 6, 9, 0, TRUE) == &images[5]);
  /* older than the PTX's target: nothing */
  g_assert_null (cuda_kernels_pick_image (images, 6, 6, 1, FALSE));
  g_assert_null (cuda_kernels_pick_image (ptx_only, 1, 7, 0, FALSE));
  g_assert_true (cuda_kernels_pick_image (ptx_only, 1, 7, 5, FALSE) ==
      &ptx_only[0]);
}

/* Known colours through the reference: the reference is what the device
 * is held to. */
static void
test_reference_colours (void)
{
  gdouble rgb[3];

  /* BT.709 limited: white, black, red (R'G'B' 1,0,0 is Y 63, Cb 102, Cr
   * 240) */
  ref_rgb (235, 128, 128, 8, GST_VIDEO_COLOR_MATRIX_BT709,
      GST_VIDEO_COLOR_RANGE_16_235, rgb);
  g_assert_cmpfloat_with_epsilon (rgb[0], 255, 1e-9);
  g_assert_cmpfloat_with_epsilon (rgb[1], 255, 1e-9);
  g_assert_cmpfloat_with_epsilon (rgb[2], 255, 1e-9);
  ref_rgb (16, 128, 128, 8, GST_VIDEO_COLOR_MATRIX_BT709,
      GST_VIDEO_COLOR_RANGE_16_235, rgb);
  g_assert_cmpfloat_with_epsilon (rgb[0], 0, 1e-9);
  ref_rgb (63, 102, 240, 8, GST_VIDEO_COLOR_MATRIX_BT709,
      GST_VIDEO_COLOR_RANGE_16_235, rgb);
  g_assert_cmpfloat_with_epsilon (rgb[0], 255, 2);
  g_assert_cmpfloat_with_epsilon (rgb[1], 0, 2);
  g_assert_cmpfloat_with_epsilon (rgb[2], 0, 2);
  /* BT.601 full: green 0,255,0 is Y 150, Cb 44, Cr 21 */
  ref_rgb (150, 44, 21, 8, GST_VIDEO_COLOR_MATRIX_BT601,
      GST_VIDEO_COLOR_RANGE_0_255, rgb);
  g_assert_cmpfloat_with_epsilon (rgb[0], 0, 2);
  g_assert_cmpfloat_with_epsilon (rgb[1], 255, 2);
  g_assert_cmpfloat_with_epsilon (rgb[2], 0, 2);
  /* 10-bit limited white and black; BT.2020 blue (Y 116, Cb 960, Cr 476) */
  ref_rgb (940, 512, 512, 10, GST_VIDEO_COLOR_MATRIX_BT2020,
      GST_VIDEO_COLOR_RANGE_16_235, rgb);
  g_assert_cmpfloat_with_epsilon (rgb[1], 255, 1e-9);
  ref_rgb (64, 512, 512, 10, GST_VIDEO_COLOR_MATRIX_BT2020,
      GST_VIDEO_COLOR_RANGE_16_235, rgb);
  g_assert_cmpfloat_with_epsilon (rgb[1], 0, 1e-9);
  ref_rgb (116, 960, 476, 10, GST_VIDEO_COLOR_MATRIX_BT2020,
      GST_VIDEO_COLOR_RANGE_16_235, rgb);
  g_assert_cmpfloat_with_epsilon (rgb[0], 0, 2);
  g_assert_cmpfloat_with_epsilon (rgb[1], 0, 2);
  g_assert_cmpfloat_with_epsilon (rgb[2], 255, 2);
}

/* The host's matrix (what the kernel applies to stored samples) against
 * the reference's formulas, on a grid of codes, for every input, matrix
 * and range. */
static void
test_matrix (void)
{
  static const GstVideoColorMatrix ms[] = { GST_VIDEO_COLOR_MATRIX_BT601,
    GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_MATRIX_BT2020
  };
  static const GstVideoColorRange rs[] = { GST_VIDEO_COLOR_RANGE_16_235,
    GST_VIDEO_COLOR_RANGE_0_255
  };
  guint f, m, r;
  gfloat mat[12];

  for (f = 0; f < G_N_ELEMENTS (in_formats); f++) {
    gint depth = in_formats[f] == GST_VIDEO_FORMAT_P010_10LE ? 10 : 8;
    gint shift = in_formats[f] == GST_VIDEO_FORMAT_P010_10LE ? 6 : 0;
    gint max = (1 << depth) - 1, y, cb, cr, c;

    for (m = 0; m < G_N_ELEMENTS (ms); m++) {
      for (r = 0; r < G_N_ELEMENTS (rs); r++) {
        g_assert_true (cuda_convert_get_matrix (in_formats[f], ms[m], rs[r],
                mat));
        for (y = 0; y <= max; y += max / 7)
          for (cb = 0; cb <= max; cb += max / 5)
            for (cr = 0; cr <= max; cr += max / 5) {
              gdouble rgb[3];
              gdouble s[3] = { y << shift, cb << shift, cr << shift };

              ref_rgb (y, cb, cr, depth, ms[m], rs[r], rgb);
              for (c = 0; c < 3; c++)
                g_assert_cmpfloat_with_epsilon (mat[4 * c] * s[0] +
                    mat[4 * c + 1] * s[1] + mat[4 * c + 2] * s[2] +
                    mat[4 * c + 3], rgb[c], 0.01);
            }
      }
    }
  }
  g_assert_false (cuda_convert_get_matrix (GST_VIDEO_FORMAT_NV12,
          GST_VIDEO_COLOR_MATRIX_UNKNOWN, GST_VIDEO_COLOR_RANGE_16_235, mat));
  g_assert_false (cuda_convert_get_matrix (GST_VIDEO_FORMAT_NV12,
          GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_UNKNOWN, mat));
  g_assert_false (cuda_convert_get_matrix (GST_VIDEO_FORMAT_NV16,
          GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_16_235, mat));
}

/* What the device run can tell apart: on the test pattern, 1080p to 224
 * by area and by bilinear differ by far more than the 35 dB bar. */
static void
test_reference_methods_differ (void)
{
  Frame *src = frame_new (GST_VIDEO_FORMAT_NV12, 1920, 1080, NULL);
  Image *a = image_new (GST_VIDEO_FORMAT_RGB, 224, 224, 0);
  Image *b = image_new (GST_VIDEO_FORMAT_RGB, 224, 224, 0);
  gint max_diff;
  gdouble psnr;

  ref_convert (&cases[0], CUDA_CONVERT_AREA, src, a);
  ref_convert (&cases[0], CUDA_CONVERT_BILINEAR, src, b);
  psnr = image_psnr (a, b, &max_diff);
  g_print ("1080p to 224: area against bilinear: %.1f dB\n", psnr);
  g_assert_cmpfloat (psnr, <, 30);
  image_free (a);
  image_free (b);
  frame_free (src);
}

static void
test_setup_refused (void)
{
  CudaConvertSetup s = { GST_VIDEO_FORMAT_NV12, 64, 64,
    GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_16_235,
    GST_VIDEO_CHROMA_SITE_NONE, GST_VIDEO_FORMAT_RGBA, 32, 32,
    0, 0, 0, 0, 0xff000000, CUDA_CONVERT_AREA
  };
  GError *error = NULL;

  g_assert_true (cuda_convert_supports (GST_VIDEO_FORMAT_P010_10LE,
          GST_VIDEO_FORMAT_BGRP));
  g_assert_false (cuda_convert_supports (GST_VIDEO_FORMAT_NV12,
          GST_VIDEO_FORMAT_NV12));
  /* refused before the kernels are looked at */
  s.out_format = GST_VIDEO_FORMAT_NV12;
  g_assert_null (cuda_convert_new (NULL, &s, &error));
  g_assert_nonnull (strstr (error->message, "not one of its conversions"));
  g_clear_error (&error);
  s.out_format = GST_VIDEO_FORMAT_RGBA;
  s.dest_x = 1;
  s.dest_width = 32;
  s.dest_height = 32;
  g_assert_null (cuda_convert_new (NULL, &s, &error));
  g_assert_nonnull (strstr (error->message, "not inside the output"));
  g_clear_error (&error);
}

/* ---------------------------------------------------------------------
 * On a device.
 * --------------------------------------------------------------------- */

static CudaFunctions *cu;
static CUcontext ctx;
static CUdevice dev;
static CudaKernels *kernels;

#define CHECK(x) G_STMT_START { CUresult _r = (x); \
  if (_r != CUDA_SUCCESS) { \
    const char *_n = NULL; cu->cuGetErrorName (_r, &_n); \
    g_error ("%s failed: %s", #x, _n ? _n : "?"); } } G_STMT_END

static gchar *
driver_open (void)
{
  int count = 0;
  CUresult r;

  if (cuda_load_functions (&cu, NULL) < 0)
    return g_strdup ("libcuda.so.1 could not be loaded: no NVIDIA driver");
  r = cu->cuInit (0);
  if (r == CUDA_SUCCESS)
    r = cu->cuDeviceGetCount (&count);
  if (r != CUDA_SUCCESS) {
    const char *n = NULL;

    cu->cuGetErrorName (r, &n);
    return g_strdup_printf ("cuInit failed: %s", n ? n : "?");
  }
  if (count < 1)
    return g_strdup ("the NVIDIA driver reports no CUDA device");
  return NULL;
}

/* Loads the kernels as the backend will (timed: a first PTX load includes
 * the driver's JIT when its cache is cold). */
static void
test_load (void)
{
  const gchar *file = g_getenv ("AVHW_CUDA_KERNEL_IMAGE");
  GError *error = NULL;
  char name[256] = "";
  int major = 0, minor = 0;
  gint64 t0;
  guint i;

  CHECK (cu->cuDeviceGet (&dev, 0));
  CHECK (cu->cuDeviceGetName (name, sizeof (name) - 1, dev));
  CHECK (cu->cuDeviceComputeCapability (&major, &minor, dev));
  CHECK (cu->cuDevicePrimaryCtxRetain (&ctx, dev));
  t0 = g_get_monotonic_time ();
  if (file) {
    gchar *data = NULL;
    gsize len;

    /* g_file_get_contents NUL-terminates, as PTX needs */
    g_assert_true (g_file_get_contents (file, &data, &len, NULL));
    kernels = cuda_kernels_load_data (cu, ctx, data, file, &error);
    g_free (data);
  } else {
    kernels = cuda_kernels_load (cu, ctx, &error);
  }
  g_assert_no_error (error);
  if (g_getenv ("AVHW_CUDA_EMULATED"))
    g_assert_nonnull (strstr (name, "CPU emulation"));
  g_print ("%s (sm_%d%d): loaded %s in %.1f ms\n", name, major, minor,
      cuda_kernels_get_image (kernels),
      (g_get_monotonic_time () - t0) / 1000.0);
  for (i = 0; i < G_N_ELEMENTS (entries); i++) {
    g_assert_nonnull (cuda_kernels_get_function (kernels, entries[i], &error));
    g_assert_no_error (error);
  }
  g_assert_null (cuda_kernels_get_function (kernels, "avhw_no_such_kernel",
          &error));
  /* CUDA_ERROR_NOT_FOUND (ffnvcodec does not name it) */
  g_assert_error (error, CUDA_KERNELS_ERROR, 500);
  g_clear_error (&error);
}

typedef struct
{
  CUdeviceptr ptr[3];
  gint pitch[3];
} DevFrame;

static void
dev_frame_upload (const Frame * f, DevFrame * d)
{
  gint p;

  memset (d, 0, sizeof (*d));
  for (p = 0; p < f->n_planes; p++) {
    gsize size = (gsize) f->pitch[p] * f->rows[p];

    CHECK (cu->cuMemAlloc (&d->ptr[p], size));
    CHECK (cu->cuMemcpyHtoD (d->ptr[p], f->plane[p], size));
    d->pitch[p] = f->pitch[p];
  }
}

static void
dev_frame_free (DevFrame * d)
{
  gint p;

  for (p = 0; p < 3; p++)
    if (d->ptr[p])
      CHECK (cu->cuMemFree (d->ptr[p]));
}

#define SENTINEL 0xa5

/* One conversion on the device, checked against the reference. */
static void
run_case (const Case * c, GstVideoFormat in, GstVideoFormat out,
    const Frame * src, const DevFrame * dsrc, guint index)
{
  CudaConvertSetup s = { in, c->in_width, c->in_height, c->matrix, c->range,
    c->site, out, c->out_width, c->out_height, c->dest_x, c->dest_y,
    c->dest_width, c->dest_height, c->border_argb, c->method
  };
  /* pitches: aligned, or 2 bytes off (the byte-wise stores) */
  Image *got = image_new (out, c->out_width, c->out_height,
      index % 2 ? 2 : 64);
  Image *want = image_new (out, c->out_width, c->out_height, 0);
  gsize total = got->plane_size * got->n_planes;
  CUdeviceptr dbuf, dst[3] = { 0, 0, 0 };
  gint dst_pitch[3] = { 0, 0, 0 };
  GError *error = NULL;
  CudaConvert *conv;
  gint max_diff, x, y, ch, p;
  gsize i, n_sentinel = 0;
  gdouble psnr;

  CHECK (cu->cuMemAlloc (&dbuf, total));
  CHECK (cu->cuMemsetD8Async (dbuf, SENTINEL, total, NULL));
  for (p = 0; p < got->n_planes; p++) {
    dst[p] = dbuf + p * got->plane_size;
    dst_pitch[p] = got->pitch;
  }
  conv = cuda_convert_new (kernels, &s, &error);
  g_assert_no_error (error);
  g_assert_true (cuda_convert_frame (conv, dsrc->ptr, dsrc->pitch, dst,
          dst_pitch, NULL, &error));
  g_assert_no_error (error);
  CHECK (cu->cuStreamSynchronize (NULL));
  CHECK (cu->cuMemcpyDtoH (got->data, dbuf, total));
  CHECK (cu->cuMemFree (dbuf));
  cuda_convert_free (conv);

  /* Nothing outside the pixels: row padding and the spare row keep the
   * sentinel. */
  for (i = 0; i < total; i++) {
    gsize off = i % got->plane_size;
    gint row = off / got->pitch, col = off % got->pitch;

    if (row >= got->height || col >= got->width * got->bpp) {
      if (got->data[i] != SENTINEL)
        g_error ("%s %s to %s: byte %" G_GSIZE_FORMAT " (row %d, column %d) "
            "outside the image was written", c->name, format_name (in),
            format_name (out), i, row, col);
      n_sentinel++;
    }
  }
  g_assert_cmpuint (n_sentinel, >, 0);

  ref_convert (c, c->method, src, want);
  /* The border, exactly. */
  for (y = 0; y < got->height; y++)
    for (x = 0; x < got->width; x++)
      if (!case_inside (c, x, y))
        for (ch = 0; ch < 4; ch++) {
          guint8 *a = image_at (got, x, y, ch), *b = image_at (want, x, y, ch);

          if (a && *a != *b)
            g_error ("%s %s to %s: border pixel %d,%d channel %d is %u, not "
                "%u", c->name, format_name (in), format_name (out), x, y, ch,
                *a, *b);
        }
  psnr = image_psnr (got, want, &max_diff);
  if (psnr < 35 || max_diff > 2)
    g_error ("%s %s to %s: %.1f dB, a sample off by %d, against the "
        "reference", c->name, format_name (in), format_name (out), psnr,
        max_diff);
  if (c == &cases[0] && out == GST_VIDEO_FORMAT_RGB) {
    /* and it is the method asked for: bilinear's reference is far */
    gint unused;

    ref_convert (c, CUDA_CONVERT_BILINEAR, src, want);
    g_assert_cmpfloat (image_psnr (got, want, &unused), <, 30);
  }
  g_print ("  %-19s %-9s -> %-4s %4dx%-4d %5.1f dB, max diff %d\n", c->name,
      format_name (in), format_name (out), c->out_width, c->out_height,
      psnr, max_diff);
  image_free (got);
  image_free (want);
}

static void
test_conversions (void)
{
  CUcontext dummy;
  guint c, f, o, n = 0;

  CHECK (cu->cuCtxPushCurrent (ctx));
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    for (f = 0; f < G_N_ELEMENTS (in_formats); f++) {
      Frame *src = frame_new (in_formats[f], cases[c].in_width,
          cases[c].in_height, NULL);
      DevFrame dsrc;

      dev_frame_upload (src, &dsrc);
      for (o = 0; o < G_N_ELEMENTS (out_formats); o++)
        run_case (&cases[c], in_formats[f], out_formats[o], src, &dsrc, n++);
      dev_frame_free (&dsrc);
      frame_free (src);
    }
  }
  CHECK (cu->cuCtxPopCurrent (&dummy));
  g_print ("%u conversions match the reference\n", n);
}

/* Flat colours: the device's colours themselves, against known values. */
static void
test_flat_colours (void)
{
  /* BT.709 limited red, 8-bit; BT.2020 limited blue, 10-bit */
  static const gint red8[3] = { 63, 102, 240 }, blue10[3] = { 116, 960, 476 };
  Case c = { "flat", 64, 48, 31, 17, 0, 0, 0, 0, CUDA_CONVERT_AREA,
    GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_16_235,
    GST_VIDEO_CHROMA_SITE_H_COSITED, 0xff000000
  };
  CUcontext dummy;
  guint f;

  CHECK (cu->cuCtxPushCurrent (ctx));
  for (f = 0; f < G_N_ELEMENTS (in_formats); f++) {
    gboolean ten = in_formats[f] == GST_VIDEO_FORMAT_P010_10LE;
    Frame *src = frame_new (in_formats[f], c.in_width, c.in_height,
        ten ? blue10 : red8);
    CudaConvertSetup s = { in_formats[f], c.in_width, c.in_height,
      ten ? GST_VIDEO_COLOR_MATRIX_BT2020 : GST_VIDEO_COLOR_MATRIX_BT709,
      c.range, c.site, GST_VIDEO_FORMAT_RGBA, c.out_width, c.out_height,
      0, 0, 0, 0, 0, c.method
    };
    Image *got = image_new (GST_VIDEO_FORMAT_RGBA, c.out_width,
        c.out_height, 0);
    CUdeviceptr dst[3] = { 0, 0, 0 };
    gint pitch[3] = { got->pitch, 0, 0 };
    GError *error = NULL;
    CudaConvert *conv;
    DevFrame dsrc;
    gint x, y;

    dev_frame_upload (src, &dsrc);
    CHECK (cu->cuMemAlloc (&dst[0], got->plane_size));
    conv = cuda_convert_new (kernels, &s, &error);
    g_assert_no_error (error);
    g_assert_true (cuda_convert_frame (conv, dsrc.ptr, dsrc.pitch, dst, pitch,
            NULL, &error));
    CHECK (cu->cuStreamSynchronize (NULL));
    CHECK (cu->cuMemcpyDtoH (got->data, dst[0], got->plane_size));
    for (y = 0; y < got->height; y++)
      for (x = 0; x < got->width; x++) {
        guint8 *px = image_at (got, x, y, 0);

        if (ten)
          g_assert_true (px[0] <= 2 && px[1] <= 2 && px[2] >= 253);
        else
          g_assert_true (px[0] >= 253 && px[1] <= 2 && px[2] <= 2);
        g_assert_cmpuint (px[3], ==, 255);
      }
    cuda_convert_free (conv);
    CHECK (cu->cuMemFree (dst[0]));
    dev_frame_free (&dsrc);
    frame_free (src);
    image_free (got);
  }
  CHECK (cu->cuCtxPopCurrent (&dummy));
}

typedef CUresult CUDAAPI tcuEventElapsedTime (float *ms, CUevent start,
    CUevent end);

/* Kernel time per frame: 1000 launches between two events. */
static void
bench (GstVideoFormat in, gint in_w, gint in_h, GstVideoFormat out,
    gint out_w, gint out_h, CudaConvertMethod method)
{
  tcuEventElapsedTime *elapsed = (tcuEventElapsedTime *) FFNV_SYM_FUNC (cu->lib,
      "cuEventElapsedTime");
  CudaConvertSetup s = { in, in_w, in_h, GST_VIDEO_COLOR_MATRIX_BT709,
    GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_CHROMA_SITE_H_COSITED, out,
    out_w, out_h, 0, 0, 0, 0, 0xff000000, method
  };
  Frame *src = frame_new (in, in_w, in_h, NULL);
  Image *img = image_new (out, out_w, out_h, 0);
  CUdeviceptr dst[3] = { 0, 0, 0 }, buf;
  gint pitch[3] = { 0, 0, 0 }, p, i;
  const gint n = 1000;
  GError *error = NULL;
  CudaConvert *conv;
  CUevent e0, e1;
  CUstream stream;
  DevFrame dsrc;
  float ms = 0;

  g_assert_nonnull (elapsed);
  dev_frame_upload (src, &dsrc);
  CHECK (cu->cuMemAlloc (&buf, img->plane_size * img->n_planes));
  for (p = 0; p < img->n_planes; p++) {
    dst[p] = buf + p * img->plane_size;
    pitch[p] = img->pitch;
  }
  CHECK (cu->cuStreamCreate (&stream, CU_STREAM_NON_BLOCKING));
  CHECK (cu->cuEventCreate (&e0, 0));
  CHECK (cu->cuEventCreate (&e1, 0));
  conv = cuda_convert_new (kernels, &s, &error);
  g_assert_no_error (error);
  for (i = 0; i < 20; i++)
    g_assert_true (cuda_convert_frame (conv, dsrc.ptr, dsrc.pitch, dst, pitch,
            stream, NULL));
  CHECK (cu->cuEventRecord (e0, stream));
  for (i = 0; i < n; i++)
    g_assert_true (cuda_convert_frame (conv, dsrc.ptr, dsrc.pitch, dst, pitch,
            stream, NULL));
  CHECK (cu->cuEventRecord (e1, stream));
  CHECK (cu->cuEventSynchronize (e1));
  CHECK (elapsed (&ms, e0, e1));
  g_print ("bench: %s %dx%d -> %s %dx%d %s: %.2f us per frame (%d frames)\n",
      format_name (in), in_w, in_h, format_name (out), out_w, out_h,
      method == CUDA_CONVERT_AREA ? "area" : "bilinear", 1000.0 * ms / n, n);
  cuda_convert_free (conv);
  CHECK (cu->cuEventDestroy (e0));
  CHECK (cu->cuEventDestroy (e1));
  CHECK (cu->cuStreamDestroy (stream));
  CHECK (cu->cuMemFree (buf));
  dev_frame_free (&dsrc);
  frame_free (src);
  image_free (img);
}

static void
test_bench (void)
{
  CUcontext dummy;

  CHECK (cu->cuCtxPushCurrent (ctx));
  bench (GST_VIDEO_FORMAT_NV12, 1920, 1080, GST_VIDEO_FORMAT_RGBP, 224, 224,
      CUDA_CONVERT_AREA);
  bench (GST_VIDEO_FORMAT_NV12, 1920, 1080, GST_VIDEO_FORMAT_RGBP, 224, 224,
      CUDA_CONVERT_BILINEAR);
  bench (GST_VIDEO_FORMAT_P010_10LE, 1920, 1080, GST_VIDEO_FORMAT_RGBP, 224,
      224, CUDA_CONVERT_AREA);
  bench (GST_VIDEO_FORMAT_I420, 1920, 1080, GST_VIDEO_FORMAT_RGB, 224, 224,
      CUDA_CONVERT_AREA);
  bench (GST_VIDEO_FORMAT_NV12, 1920, 1080, GST_VIDEO_FORMAT_RGBA, 1920,
      1080, CUDA_CONVERT_BILINEAR);
  bench (GST_VIDEO_FORMAT_NV12, 3840, 2160, GST_VIDEO_FORMAT_RGBP, 224, 224,
      CUDA_CONVERT_AREA);
  CHECK (cu->cuCtxPopCurrent (&dummy));
}

int
main (int argc, char **argv)
{
  gboolean hw = g_strcmp0 (g_getenv ("AVHW_TEST_HW"), "1") == 0;
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!hw) {
    g_test_add_func ("/cuda-kernels/ptx", test_ptx);
    g_test_add_func ("/cuda-kernels/cubins", test_cubins);
    g_test_add_func ("/cuda-kernels/pick", test_pick);
    g_test_add_func ("/cuda-kernels/reference-colours", test_reference_colours);
    g_test_add_func ("/cuda-kernels/matrix", test_matrix);
    g_test_add_func ("/cuda-kernels/reference-methods-differ",
        test_reference_methods_differ);
    g_test_add_func ("/cuda-kernels/setup-refused", test_setup_refused);
    return g_test_run ();
  } else {
    gchar *reason = driver_open ();

    if (reason && g_getenv ("AVHW_CUDA_EMULATED")) {
      g_printerr ("the CPU emulation of the driver (libcuda-emulated.cpp) did "
          "not load: %s\n", reason);
      return 1;
    }
    if (reason) {
      g_print ("SKIP: no CUDA device here (%s): the kernels are not run\n",
          reason);
      g_free (reason);
      return 77;
    }
  }
  g_test_add_func ("/cuda-kernels-gpu/load", test_load);
  g_test_add_func ("/cuda-kernels-gpu/flat-colours", test_flat_colours);
  g_test_add_func ("/cuda-kernels-gpu/conversions", test_conversions);
  if (g_strcmp0 (g_getenv ("AVHW_CUDA_BENCH"), "1") == 0)
    g_test_add_func ("/cuda-kernels-gpu/bench", test_bench);
  ret = g_test_run ();
  cuda_kernels_free (kernels);
  if (ctx)
    cu->cuDevicePrimaryCtxRelease (dev);
  cuda_free_functions (&cu);
  return ret;
}
