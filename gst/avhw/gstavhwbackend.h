/* gst-avhw: backends, as applications see them (no FFmpeg type; the
 * contract a backend implements is in gstavhwbackend-impl.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/avhw-prelude.h>
#include <gst/avhw/gstavhwcodeccaps.h>
#include <gst/avhw/gstavhwconvertercaps.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct _GstAvhwDevice GstAvhwDevice;

/**
 * GstAvhwScaleMethod:
 * @GST_AVHW_SCALE_METHOD_DEFAULT: the scale filter's own default
 * @GST_AVHW_SCALE_METHOD_NEAREST: nearest neighbour
 * @GST_AVHW_SCALE_METHOD_BILINEAR: bilinear
 * @GST_AVHW_SCALE_METHOD_BICUBIC: bicubic
 * @GST_AVHW_SCALE_METHOD_LANCZOS: Lanczos
 * @GST_AVHW_SCALE_METHOD_AREA: each output pixel the mean of the input it
 *   covers (a box filter) on an axis that shrinks, bilinear on one that
 *   grows: antialiased at large ratios (1080p to 224x224)
 *
 * How a converter interpolates (avhwconvertscale's `method`); a
 * converter lists those it has in #GstAvhwConverterCaps.methods, and a
 * filter converter the filter's option for each.
 */
typedef enum
{
  GST_AVHW_SCALE_METHOD_DEFAULT,
  GST_AVHW_SCALE_METHOD_NEAREST,
  GST_AVHW_SCALE_METHOD_BILINEAR,
  GST_AVHW_SCALE_METHOD_BICUBIC,
  GST_AVHW_SCALE_METHOD_LANCZOS,
  GST_AVHW_SCALE_METHOD_AREA,
} GstAvhwScaleMethod;

#define GST_TYPE_AVHW_SCALE_METHOD (gst_avhw_scale_method_get_type ())
GST_AVHW_API
GType gst_avhw_scale_method_get_type (void);

#define GST_TYPE_AVHW_BACKEND (gst_avhw_backend_get_type ())
GST_AVHW_API
G_DECLARE_DERIVABLE_TYPE (GstAvhwBackend, gst_avhw_backend, GST, AVHW_BACKEND,
    GstObject);

GST_AVHW_API
const gchar * gst_avhw_backend_get_name (GstAvhwBackend * backend);

GST_AVHW_API
const gchar * gst_avhw_backend_get_description (GstAvhwBackend * backend);

GST_AVHW_API
const gchar * gst_avhw_backend_get_caps_feature (GstAvhwBackend * backend);

GST_AVHW_API
guint gst_avhw_backend_get_rank (GstAvhwBackend * backend);

GST_AVHW_API
const gchar * gst_avhw_backend_get_foreign_context_type (GstAvhwBackend * backend);

GST_AVHW_API
const gchar * gst_avhw_backend_get_foreign_memory_feature (GstAvhwBackend * backend);

GST_AVHW_API
const gchar * gst_avhw_backend_get_foreign_input_feature (GstAvhwBackend * backend);

GST_AVHW_API
gboolean gst_avhw_backend_device_imports_foreign (GstAvhwBackend * backend,
    GstAvhwDevice * device);

GST_AVHW_API
gboolean gst_avhw_backend_is_available (GstAvhwBackend * backend,
    gchar ** reason);

GST_AVHW_API
guint gst_avhw_backend_get_n_devices (GstAvhwBackend * backend,
    gchar ** reason);

GST_AVHW_API
gchar * gst_avhw_backend_get_device_description (GstAvhwBackend * backend,
    guint index);

GST_AVHW_API
gboolean gst_avhw_backend_device_decodes_codec (GstAvhwBackend * backend,
    guint index, const gchar * codec, gchar ** reason);

GST_AVHW_API
const gchar * gst_avhw_backend_get_scale_filter (GstAvhwBackend * backend);

GST_AVHW_API
const gchar * gst_avhw_backend_get_scale_method_args (GstAvhwBackend * backend,
    GstAvhwScaleMethod method);

G_END_DECLS
