/* gst-avhw: Vulkan backend, functions put in front of FFmpeg's own
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FFmpeg loads every Vulkan function through the device context's
 * get_proc_addr (libavutil/vulkan_loader.h), device ones through the
 * vkGetDeviceProcAddr it gets from it, and hands the same to libplacebo.
 * Where the backend makes the VkDevice, it sets get_proc_addr to the
 * lookup below, which answers the hooked names (gstavhwvulkansemfix.c's,
 * gstavhwvulkanlanequeue.c's, gstavhwvulkanextent.c's) with their
 * wrappers and the rest with the loader's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanhooks.h"

typedef struct
{
  const gchar *name;
  PFN_vkVoidFunction fn;
} Hook;

static GMutex hooks_lock;
static Hook hooks[8];
static guint n_hooks;

static PFN_vkVoidFunction VKAPI_CALL get_device_proc_addr (VkDevice dev,
    const char *name);

static PFN_vkVoidFunction
hooked (const char *name)
{
  PFN_vkVoidFunction fn = NULL;
  guint i;

  if (g_str_equal (name, "vkGetDeviceProcAddr"))
    return (PFN_vkVoidFunction) get_device_proc_addr;
  g_mutex_lock (&hooks_lock);
  for (i = 0; i < n_hooks && !fn; i++) {
    if (g_str_equal (hooks[i].name, name))
      fn = hooks[i].fn;
  }
  g_mutex_unlock (&hooks_lock);
  return fn;
}

/* A device that lacks a function (its extension not enabled) gets none,
 * hooked or not. */
static PFN_vkVoidFunction VKAPI_CALL
get_device_proc_addr (VkDevice dev, const char *name)
{
  PFN_vkVoidFunction own = vkGetDeviceProcAddr (dev, name);
  PFN_vkVoidFunction fn = own ? hooked (name) : NULL;

  return fn ? fn : own;
}

static PFN_vkVoidFunction VKAPI_CALL
get_instance_proc_addr (VkInstance inst, const char *name)
{
  PFN_vkVoidFunction fn = hooked (name);

  return fn ? fn : vkGetInstanceProcAddr (inst, name);
}

void
gst_avhw_vk_hook_install (AVHWDeviceContext * dctx, const gchar * name,
    const gchar * alias, PFN_vkVoidFunction fn)
{
  AVVulkanDeviceContext *hwctx = dctx->hwctx;
  const gchar *names[] = { name, alias };
  guint i, j;

  g_mutex_lock (&hooks_lock);
  for (j = 0; j < G_N_ELEMENTS (names) && names[j]; j++) {
    for (i = 0; i < n_hooks && !g_str_equal (hooks[i].name, names[j]); i++);
    if (i == n_hooks && n_hooks < G_N_ELEMENTS (hooks))
      hooks[n_hooks++].name = names[j];
    if (i < n_hooks)
      hooks[i].fn = fn;
  }
  g_mutex_unlock (&hooks_lock);
  hwctx->get_proc_addr = get_instance_proc_addr;
}
