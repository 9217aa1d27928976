/* gst-avhw benchmark: where opening a Vulkan device goes (issue 30, item 3)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   avhw-bench-vk-open [--device N] [--repeat R]
 *
 * Times, in one process, each step of opening Vulkan device N the ways a
 * pipeline can: a bare VkInstance (the first one loads the driver), the
 * physical devices, vkCreateDevice with one queue and no extension, with
 * every queue of every family, with one of family 0 and two of the decode
 * family (the vulkan backend's layout), with every queue and the extensions FFmpeg
 * enables, then FFmpeg's av_hwdevice_ctx_create(), R times, with FFmpeg's
 * own log lines time-stamped (its phases), what each of FFmpeg's
 * extensions and features adds to the backend's layout
 * (vk-open-features.c), and with GStreamer's Vulkan
 * library, gst_vulkan_device_open() (what vulkanh264dec does), where it is
 * built in. Prints Markdown; one RESULT line per step. Exit 77 when no
 * Vulkan driver starts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <libavutil/hwcontext.h>
#include <libavutil/log.h>
#include "vk-open.h"
#ifdef HAVE_GST_VULKAN
#include <gst/vulkan/vulkan.h>
#endif

static gint64 t_log0;

static void
log_cb (void *avcl, int level, const char *fmt, va_list vl)
{
  char line[512];
  static int print_prefix = 1;

  if (level > AV_LOG_DEBUG)
    return;
  av_log_format_line (avcl, level, fmt, vl, line, sizeof (line), &print_prefix);
  g_strchomp (line);
  if (line[0])
    printf ("    %8.1f ms  %s\n", (g_get_monotonic_time () - t_log0) / 1e3,
        line);
}

static double
ms_since (gint64 t0)
{
  return (g_get_monotonic_time () - t0) / 1e3;
}

void
vk_open_row (const char *what, double ms)
{
  printf ("| %s | %.1f |\n", what, ms);
  printf ("RESULT step=\"%s\" ms=%.1f\n", what, ms);
}

static VkResult
new_instance (VkInstance * inst)
{
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
    .apiVersion = VK_API_VERSION_1_3
  };
  VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
    .pApplicationInfo = &app
  };

  return vkCreateInstance (&info, NULL, inst);
}

double vk_open_last_destroy_ms;

/* vkCreateDevice then vkDestroyDevice on @phys, with the queues of @mode,
 * @exts and the feature chain @features (a VkPhysicalDeviceFeatures2, or
 * NULL) enabled. The ms vkCreateDevice took, or -1 when it failed. */
double
vk_open_time_device_full (VkPhysicalDevice phys, gint mode,
    const char *const *exts, guint n_exts, const void *features)
{
  VkQueueFamilyProperties *qf;
  VkDeviceQueueCreateInfo *qi;
  uint32_t nqf = 0, i, most = 1, nq;
  float *prio;
  VkDevice dev;
  VkResult res;
  gint64 t0;
  double ms;

  vkGetPhysicalDeviceQueueFamilyProperties (phys, &nqf, NULL);
  qf = g_new0 (VkQueueFamilyProperties, nqf);
  vkGetPhysicalDeviceQueueFamilyProperties (phys, &nqf, qf);
  for (i = 0; i < nqf; i++)
    most = MAX (most, qf[i].queueCount);
  prio = g_new0 (float, most);
  qi = g_new0 (VkDeviceQueueCreateInfo, nqf);
  for (i = 0; i < nqf; i++) {
    qi[i].sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi[i].queueFamilyIndex = i;
    qi[i].queueCount = mode == VK_OPEN_ALL_QUEUES
        || (mode == VK_OPEN_VIDEO_QUEUES
        && (qf[i].queueFlags & (VK_QUEUE_VIDEO_DECODE_BIT_KHR | 0x40
                /* video encode */ )))? qf[i].queueCount : 1;
    qi[i].pQueuePriorities = prio;
  }
  nq = mode == VK_OPEN_ONE_QUEUE ? 1 : nqf;
  if (mode == VK_OPEN_FIRST_AND_DECODE) {
    nq = 1;
    for (i = 1; i < nqf; i++) {
      if (qf[i].queueFlags & VK_QUEUE_VIDEO_DECODE_BIT_KHR) {
        qi[1] = qi[i];
        qi[1].queueCount = MIN (2, qf[i].queueCount);
        nq = 2;
        break;
      }
    }
  }
  {
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = features,
      .queueCreateInfoCount = nq,
      .pQueueCreateInfos = qi,
      .enabledExtensionCount = n_exts,
      .ppEnabledExtensionNames = exts
    };

    t0 = g_get_monotonic_time ();
    res = vkCreateDevice (phys, &info, NULL, &dev);
    ms = ms_since (t0);
  }
  if (res == VK_SUCCESS) {
    gint64 t1 = g_get_monotonic_time ();

    vkDestroyDevice (dev, NULL);
    vk_open_last_destroy_ms = ms_since (t1);
  } else
    printf ("vkCreateDevice failed: VkResult %d\n", res);
  g_free (qi);
  g_free (prio);
  g_free (qf);
  return res == VK_SUCCESS ? ms : -1;
}

static double
time_device (VkPhysicalDevice phys, gint mode,
    const char *const *exts, guint n_exts)
{
  return vk_open_time_device_full (phys, mode, exts, n_exts, NULL);
}

int
main (int argc, char **argv)
{
  guint index = 0, repeat = 2, i, n_exts = 0;
  VkInstance inst;
  VkPhysicalDevice *devs;
  uint32_t n = 0;
  gint64 t0;
  gchar devstr[16], **exts = NULL;
  AVBufferRef *ref = NULL, *first = NULL;
  int ret;

  for (i = 1; i < (guint) argc; i++) {
    if (!strcmp (argv[i], "--device") && i + 1 < (guint) argc)
      index = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--repeat") && i + 1 < (guint) argc)
      repeat = (guint) MAX (g_ascii_strtoll (argv[i + 1], NULL, 10), 1), i++;
    else {
      fprintf (stderr, "usage: %s [--device N] [--repeat R]\n", argv[0]);
      return 2;
    }
  }

  printf ("## Opening Vulkan device %u (issue 30, item 3)\n\n", index);
  printf ("| step | ms |\n| --- | ---: |\n");
  t0 = g_get_monotonic_time ();
  if (new_instance (&inst) != VK_SUCCESS) {
    printf ("SKIP: no Vulkan driver starts here\n");
    return 77;
  }
  vk_open_row ("vkCreateInstance, the first (loads the driver)", ms_since (t0));
  t0 = g_get_monotonic_time ();
  vkEnumeratePhysicalDevices (inst, &n, NULL);
  devs = g_new0 (VkPhysicalDevice, MAX (n, 1));
  vkEnumeratePhysicalDevices (inst, &n, devs);
  vk_open_row ("vkEnumeratePhysicalDevices", ms_since (t0));
  if (index >= n) {
    printf ("SKIP: %u physical device(s), no device %u\n", n, index);
    return 77;
  }
  {
    VkPhysicalDeviceProperties props;

    vkGetPhysicalDeviceProperties (devs[index], &props);
    printf ("| device | %s |\n", props.deviceName);
  }
  vk_open_row ("vkCreateDevice: one queue, no extension",
      time_device (devs[index], VK_OPEN_ONE_QUEUE, NULL, 0));
  vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
  vk_open_row ("vkCreateDevice: one queue, no extension (again)",
      time_device (devs[index], VK_OPEN_ONE_QUEUE, NULL, 0));
  vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
  vk_open_row ("vkCreateDevice: every queue of every family, no extension",
      time_device (devs[index], VK_OPEN_ALL_QUEUES, NULL, 0));
  vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
  vk_open_row ("vkCreateDevice: one queue of each family, every video queue",
      time_device (devs[index], VK_OPEN_VIDEO_QUEUES, NULL, 0));
  vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
  vk_open_row ("vkCreateDevice: one queue of each family",
      time_device (devs[index], VK_OPEN_EACH_ONE, NULL, 0));
  vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
  vk_open_row
      ("vkCreateDevice: one queue of family 0, two of the decode family "
      "(the backend's layout)", time_device (devs[index],
          VK_OPEN_FIRST_AND_DECODE, NULL, 0));
  vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
  {
    VkInstance second;

    t0 = g_get_monotonic_time ();
    if (new_instance (&second) == VK_SUCCESS) {
      vk_open_row ("vkCreateInstance, a second one (the driver loaded)",
          ms_since (t0));
      t0 = g_get_monotonic_time ();
      vkDestroyInstance (second, NULL);
      vk_open_row ("vkDestroyInstance of it", ms_since (t0));
    }
  }

  g_snprintf (devstr, sizeof (devstr), "%u", index);
  for (i = 0; i < repeat; i++) {
    gchar *what = g_strdup_printf ("av_hwdevice_ctx_create(vulkan), %u of %u",
        i + 1, repeat);

    if (i == 0) {
      printf ("\nFFmpeg's log during the first create:\n\n");
      av_log_set_level (AV_LOG_DEBUG);
      av_log_set_callback (log_cb);
    }
    t0 = t_log0 = g_get_monotonic_time ();
    ret = av_hwdevice_ctx_create (&ref, AV_HWDEVICE_TYPE_VULKAN, devstr,
        NULL, 0);
    if (i == 0) {
      av_log_set_callback (av_log_default_callback);
      av_log_set_level (AV_LOG_ERROR);
      printf ("\n| step | ms |\n| --- | ---: |\n");
    }
    vk_open_row (what, ret < 0 ? -1 : ms_since (t0));
    g_free (what);
    if (ret < 0)
      break;
    if (!exts) {
      AVVulkanDeviceContext *hw = ((AVHWDeviceContext *) ref->data)->hwctx;

      n_exts = hw->nb_enabled_dev_extensions;
      exts = g_new0 (gchar *, n_exts + 1);
      for (guint e = 0; e < n_exts; e++)
        exts[e] = g_strdup (hw->enabled_dev_extensions[e]);
      first = av_buffer_ref (ref);      /* for vk_open_feature_rows() */
    }
    t0 = g_get_monotonic_time ();
    av_buffer_unref (&ref);
    vk_open_row ("av_buffer_unref of it", ms_since (t0));
  }
  if (exts) {
    gchar *list = g_strjoinv (" ", exts);

    printf ("| FFmpeg's %u device extensions | %s |\n", n_exts, list);
    g_free (list);
    vk_open_row
        ("vkCreateDevice: every queue, FFmpeg's extensions (no features)",
        time_device (devs[index], VK_OPEN_ALL_QUEUES,
            (const char *const *) exts, n_exts));
    vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
    vk_open_row ("vkCreateDevice: one queue, FFmpeg's extensions (no features)",
        time_device (devs[index], VK_OPEN_ONE_QUEUE, (const char *const *) exts,
            n_exts));
    vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
  }
  if (first) {
    vk_open_feature_rows (devs[index],
        ((AVHWDeviceContext *) first->data)->hwctx);
    av_buffer_unref (&first);
    printf ("\n| step | ms |\n| --- | ---: |\n");
  }
#ifdef HAVE_GST_VULKAN
  gst_init (NULL, NULL);
  for (i = 0; i < repeat; i++) {
    GstVulkanInstance *gi = gst_vulkan_instance_new ();
    GstVulkanDevice *gd = NULL;
    GError *err = NULL;
    gchar *what;

    t0 = g_get_monotonic_time ();
    if (gst_vulkan_instance_open (gi, &err)) {
      gd = gst_vulkan_device_new_with_index (gi, index);
      if (!gst_vulkan_device_open (gd, &err))
        gst_clear_object (&gd);
    }
    what = g_strdup_printf ("GStreamer: gst_vulkan_instance_open + "
        "gst_vulkan_device_open, %u of %u", i + 1, repeat);
    vk_open_row (what, gd ? ms_since (t0) : -1);
    g_free (what);
    if (err)
      printf ("GStreamer's Vulkan: %s\n", err->message);
    g_clear_error (&err);
    gst_clear_object (&gd);
    gst_object_unref (gi);
  }
#else
  printf ("| GStreamer's Vulkan library | not built in |\n");
#endif
  g_strfreev (exts);
  g_free (devs);
  vkDestroyInstance (inst, NULL);
  return 0;
}
