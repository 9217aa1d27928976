/* gst-avhw: VA-API backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend-impl.h>

G_BEGIN_DECLS

/**
 * GstAvhwVaapiBackend:
 *
 * The `vaapi` backend: Intel and AMD GPUs (and any other VA-API driver)
 * through FFmpeg's vaapi hwcontext. Device `vaapi:N` is the Nth DRM render
 * node (`/dev/dri/renderD128`, `renderD129`... in number order) that can be
 * opened and for whose kernel driver a VA-API driver file is installed; its
 * device string for av_hwdevice_ctx_create() is the node's path.
 *
 * Enumeration opens each render node only to ask the kernel for its driver
 * name (drmGetVersion()) and looks for the matching `*_drv_video.so` the way
 * libva picks it (`LIBVA_DRIVER_NAME`, `LIBVA_DRIVERS_PATH`); it creates no
 * VADisplay and loads no driver. A node whose VA driver then fails to
 * initialise fails at open, with FFmpeg's reason.
 *
 * gst_avhw_device_wrap() takes an initialised `VADisplay` as @native; the
 * caller keeps it alive (no vaTerminate()) until the last device made from
 * it, and every surface allocated on it, is released.
 *
 * Interop with GStreamer's va elements (gst-plugins-bad `va` plugin, library
 * gstreamer-va-1.0), when built with it: a `gst.va.display.handle` context
 * holding a GstVaDisplay (field `gst-display`) or a bare VADisplay (field
 * `va-display`) gives an avhw device on that very VADisplay; avhw elements
 * answer that context type with a GstVaDisplay wrapping the VADisplay of
 * their device, so va elements and avhw elements share one VADisplay and
 * their VASurfaceIDs are valid in both.
 */
#define GST_TYPE_AVHW_VAAPI_BACKEND (gst_avhw_vaapi_backend_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwVaapiBackend, gst_avhw_vaapi_backend, GST,
    AVHW_VAAPI_BACKEND, GstAvhwBackend);

G_END_DECLS
