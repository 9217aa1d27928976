/* gst-avhw: OpenCL backend (FFmpeg's opencl hwcontext)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <gst/avhw/gstavhw-impl.h>

#include "gstavhwopenclbackend.h"

GST_DEBUG_CATEGORY_STATIC (cl_debug);
#define GST_CAT_DEFAULT cl_debug

struct _GstAvhwOpenclBackend
{
  GstAvhwBackend parent;
};

G_DEFINE_TYPE (GstAvhwOpenclBackend, gst_avhw_opencl_backend,
    GST_TYPE_AVHW_BACKEND);

typedef struct
{
  guint platform, device;
  gchar *name;
} ClDevice;

/* Platforms and devices, listed once per process with clGetDeviceIDs: no
 * OpenCL context is created. Our flat index N maps to FFmpeg's "P.D". */
static GMutex cl_lock;
static gboolean cl_listed;
static GArray *cl_devices;
static gchar *cl_reason;

static void
cl_device_clear (ClDevice * d)
{
  g_free (d->name);
}

static void
cl_list_devices_locked (void)
{
  cl_platform_id *plats = NULL;
  cl_uint np = 0, p;
  cl_int err;

  cl_listed = TRUE;
  cl_devices = g_array_new (FALSE, TRUE, sizeof (ClDevice));
  g_array_set_clear_func (cl_devices, (GDestroyNotify) cl_device_clear);

  err = clGetPlatformIDs (0, NULL, &np);
  if (err != CL_SUCCESS || np == 0) {
    cl_reason = g_strdup_printf ("no OpenCL platform (clGetPlatformIDs: %d); "
        "install an ICD such as pocl-opencl-icd", err);
    return;
  }
  plats = g_new0 (cl_platform_id, np);
  clGetPlatformIDs (np, plats, NULL);
  for (p = 0; p < np; p++) {
    cl_device_id *devs;
    cl_uint nd = 0, d;

    if (clGetDeviceIDs (plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd)
        != CL_SUCCESS || nd == 0)
      continue;
    devs = g_new0 (cl_device_id, nd);
    clGetDeviceIDs (plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
    for (d = 0; d < nd; d++) {
      ClDevice dev = { p, d, NULL };
      char name[256] = "";

      clGetDeviceInfo (devs[d], CL_DEVICE_NAME, sizeof (name) - 1, name, NULL);
      dev.name = g_strdup (name);
      g_array_append_val (cl_devices, dev);
    }
    g_free (devs);
  }
  g_free (plats);
  if (cl_devices->len == 0)
    cl_reason = g_strdup ("the OpenCL platforms report no device");
  GST_INFO ("%u OpenCL device(s)", cl_devices->len);
}

static void
cl_ensure_listed (void)
{
  g_mutex_lock (&cl_lock);
  if (!cl_listed)
    cl_list_devices_locked ();
  g_mutex_unlock (&cl_lock);
}

static guint
cl_get_n_devices (GstAvhwBackend * backend, gchar ** reason)
{
  cl_ensure_listed ();
  if (cl_devices->len == 0 && reason)
    *reason = g_strdup (cl_reason);
  return cl_devices->len;
}

static gchar *
cl_get_device_description (GstAvhwBackend * backend, guint index)
{
  cl_ensure_listed ();
  if (index >= cl_devices->len)
    return g_strdup_printf ("opencl:%u", index);
  return g_strdup (g_array_index (cl_devices, ClDevice, index).name);
}

static gchar *
cl_get_device_string (GstAvhwBackend * backend, guint index)
{
  ClDevice *d;

  cl_ensure_listed ();
  if (index >= cl_devices->len)
    return g_strdup_printf ("%u", index);
  d = &g_array_index (cl_devices, ClDevice, index);
  return g_strdup_printf ("%u.%u", d->platform, d->device);
}

static void
gst_avhw_opencl_backend_class_init (GstAvhwOpenclBackendClass * klass)
{
  GstAvhwBackendClass *bclass = GST_AVHW_BACKEND_CLASS (klass);

  gst_avhw_backend_class_init_contract (klass);
  GST_DEBUG_CATEGORY_INIT (cl_debug, "avhwopencl", 0,
      "gst-avhw OpenCL backend");

  bclass->name = "opencl";
  bclass->description = "OpenCL devices through FFmpeg's opencl hwcontext";
  bclass->hw_device_type = "opencl";
  bclass->hw_pix_fmt = "opencl";
  bclass->caps_feature = "memory:AVHWOpenCL";
  bclass->rank = GST_RANK_MARGINAL;
  bclass->get_n_devices = cl_get_n_devices;
  bclass->get_device_description = cl_get_device_description;
  bclass->get_device_string = cl_get_device_string;
  /* No scale_filter: FFmpeg has no scale_opencl (5.1 to 7.1), so
   * avhwconvertscale says these devices do not scale. */
}

static void
gst_avhw_opencl_backend_init (GstAvhwOpenclBackend * self)
{
}
