/* gst-avhw: GstMemory holding one hardware frame
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>
#include <gst/avhw/gstavhwdevice.h>

G_BEGIN_DECLS

/**
 * GST_AVHW_MEMORY_NAME:
 *
 * The allocator / memory type name of #GstAvhwMemory.
 */
#define GST_AVHW_MEMORY_NAME "AVHWMemory"

/* GST_MAP_AVHW and gst_is_avhw_memory() are C only: their names lack the
 * gst_avhw prefix, so g-ir-scanner would take them for GStreamer's own
 * (a warning, and an error where the docs are built). Hidden from it, they
 * stay out of GstAvhw-1.0.gir as before. */
#ifndef __GI_SCANNER__
/**
 * GST_MAP_AVHW:
 *
 * Map flag: map the memory for code that stays on the device. The mapped
 * data is the `AVFrame *` of the hardware frame (its `data[]` hold the
 * device handles: a CUdeviceptr for cuda, an AVVkFrame * for vulkan, a
 * cl_mem per plane for opencl) and nothing is downloaded. Combine it with
 * GST_MAP_READ and/or GST_MAP_WRITE.
 */
#define GST_MAP_AVHW ((GstMapFlags) (GST_MAP_FLAG_LAST << 1))

GST_AVHW_API
gboolean gst_is_avhw_memory (GstMemory * mem);
#endif /* __GI_SCANNER__ */

typedef struct _GstAvhwMemory GstAvhwMemory;

GST_AVHW_API
GstAvhwDevice * gst_avhw_memory_get_device (GstMemory * mem);

GST_AVHW_API
guint gst_avhw_buffer_get_n_planes (GstBuffer * buffer);

GST_AVHW_API
guint64 gst_avhw_buffer_get_plane_handle (GstBuffer * buffer, guint plane);

GST_AVHW_API
gint gst_avhw_buffer_get_plane_stride (GstBuffer * buffer, guint plane);

GST_AVHW_API
GstAvhwDevice * gst_avhw_buffer_get_device (GstBuffer * buffer);

GST_AVHW_API
GstAvhwBackend * gst_avhw_buffer_get_backend (GstBuffer * buffer,
    gint * index);

G_END_DECLS
