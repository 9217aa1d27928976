/* gst-avhw tests: the device extensions of the vulkan backend's own
 * VkDevice (backends/vulkan/gstavhwvulkandevice.c, FFmpeg 7.1 and later).
 *
 * The backend enables FFmpeg's optional extensions that the device offers
 * but four nothing on the device uses (VK_NV_optical_flow,
 * VK_KHR_cooperative_matrix, VK_EXT_shader_object,
 * VK_EXT_shader_atomic_float); GST_AVHW_VK_SKIP_EXTENSIONS replaces that
 * list ("none": all of FFmpeg's). Checked on vulkan:0 through the device
 * context FFmpeg is given. Exit 77 where the backend does not make its own
 * device (FFmpeg before 7.1, Vulkan headers before 1.3.277) or vulkan:0
 * offers none of the four.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/avhw/gstavhw.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanpick.h"
#include "gstavhwvulkanqueues.h"
#include "avhw-test-utils.h"

static const gchar *const unused[] = {
  "VK_NV_optical_flow", "VK_KHR_cooperative_matrix",
  "VK_EXT_shader_object", "VK_EXT_shader_atomic_float",
};

static gboolean
offered (VkPhysicalDevice phys, const gchar * ext)
{
  VkExtensionProperties *props;
  uint32_t n = 0, i;
  gboolean ret = FALSE;

  vkEnumerateDeviceExtensionProperties (phys, NULL, &n, NULL);
  props = g_new0 (VkExtensionProperties, MAX (n, 1));
  vkEnumerateDeviceExtensionProperties (phys, NULL, &n, props);
  for (i = 0; i < n && !ret; i++)
    ret = !strcmp (props[i].extensionName, ext);
  g_free (props);
  return ret;
}

static gboolean
enabled (const AVVulkanDeviceContext * hwctx, const gchar * ext)
{
  int i;

  for (i = 0; i < hwctx->nb_enabled_dev_extensions; i++)
    if (!strcmp (hwctx->enabled_dev_extensions[i], ext))
      return TRUE;
  return FALSE;
}

/* vulkan:0 opened anew (the environment read), with its device context */
static GstAvhwDevice *
open_vulkan (const AVVulkanDeviceContext ** hwctx)
{
  GError *err = NULL;
  GstAvhwDevice *dev;

  gst_avhw_cache_set_reuse (FALSE);
  dev = gst_avhw_device_open ("vulkan:0", NULL, &err);
  fail_unless (dev != NULL, "%s", err ? err->message : "");
  *hwctx =
      ((AVHWDeviceContext *) gst_avhw_device_get_device_ctx (dev)->data)->hwctx;
  return dev;
}

/* each of unused[] vulkan:0 offers is @want_enabled */
static guint
check_unused (const AVVulkanDeviceContext * hwctx, gboolean want_enabled)
{
  guint i, n = 0;

  for (i = 0; i < G_N_ELEMENTS (unused); i++) {
    if (!offered (hwctx->phys_dev, unused[i]))
      continue;
    n++;
    fail_unless_equals_int (enabled (hwctx, unused[i]), want_enabled);
  }
  return n;
}

GST_START_TEST (test_unused_left_out)
{
  const AVVulkanDeviceContext *hwctx;
  GstAvhwDevice *dev;

  g_unsetenv ("GST_AVHW_VK_SKIP_EXTENSIONS");
  dev = open_vulkan (&hwctx);
  fail_unless (check_unused (hwctx, FALSE) > 0);
  /* FFmpeg's other extensions stay */
  if (offered (hwctx->phys_dev, "VK_KHR_push_descriptor"))
    fail_unless (enabled (hwctx, "VK_KHR_push_descriptor"));
  gst_object_unref (dev);
}

GST_END_TEST;

GST_START_TEST (test_none_skipped)
{
  const AVVulkanDeviceContext *hwctx;
  GstAvhwDevice *dev;

  g_setenv ("GST_AVHW_VK_SKIP_EXTENSIONS", "none", TRUE);
  dev = open_vulkan (&hwctx);
  fail_unless (check_unused (hwctx, TRUE) > 0);
  gst_object_unref (dev);
}

GST_END_TEST;

GST_START_TEST (test_list_replaces)
{
  const AVVulkanDeviceContext *hwctx;
  GstAvhwDevice *dev;

  g_setenv ("GST_AVHW_VK_SKIP_EXTENSIONS", "VK_KHR_push_descriptor", TRUE);
  dev = open_vulkan (&hwctx);
  fail_unless (check_unused (hwctx, TRUE) > 0);
  fail_if (enabled (hwctx, "VK_KHR_push_descriptor"));
  gst_object_unref (dev);
}

GST_END_TEST;

/* Exit 77 unless the backend makes its own device and vulkan:0 offers one
 * of unused[] (a bare instance: no device opened in check's parent). */
static void
require_unused_offered (void)
{
  VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO,.apiVersion =
        VK_API_VERSION_1_3
  };
  VkInstanceCreateInfo info = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
    .pApplicationInfo = &app
  };
  VkInstance inst;
  VkPhysicalDevice phys = VK_NULL_HANDLE;
  uint32_t n = 1;
  guint i, found = 0;

#if !(GST_AVHW_VK_QUEUE_LIST && GST_AVHW_VK_PICK)
  g_print ("SKIP: the vulkan backend makes no device of its own here "
      "(FFmpeg before 7.1 or Vulkan headers before 1.3.277)\n");
  exit (77);
#endif
  if (vkCreateInstance (&info, NULL, &inst) != VK_SUCCESS) {
    g_print ("SKIP: no Vulkan instance\n");
    exit (77);
  }
  vkEnumeratePhysicalDevices (inst, &n, &phys);
  for (i = 0; phys && i < G_N_ELEMENTS (unused); i++)
    found += offered (phys, unused[i]);
  vkDestroyInstance (inst, NULL);
  if (!found) {
    g_print ("SKIP: vulkan:0 offers none of the extensions left out\n");
    exit (77);
  }
}

static Suite *
vulkan_extensions_suite (void)
{
  Suite *s = suite_create ("avhw-vulkan-extensions");
  TCase *tc = tcase_create ("general");

  avhw_test_require_device ("vulkan");
  require_unused_offered ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_unused_left_out);
  tcase_add_test (tc, test_none_skipped);
  tcase_add_test (tc, test_list_replaces);
  return s;
}

GST_CHECK_MAIN (vulkan_extensions);
