/* gst-avhw: Vulkan backend, query results waited for without spinning
 * while several streams decode
 *
 * FFmpeg 7.1's Vulkan decoder asks, before each decode, for the result of
 * the decode its execution context ran before (vkGetQueryPoolResults with
 * VK_QUERY_RESULT_WAIT_BIT, libavcodec/vulkan_decode.c). NVIDIA's driver
 * waits for that by spinning on the clock (the stalled threads of runs
 * 90-92 were all in clock_gettime under vkGetQueryPoolResults), so each
 * decoding thread ahead of the engines burns a CPU core while it waits.
 *
 * While two or more avhw sessions are active on the process's Vulkan
 * devices, the wait asks without the wait bit and sleeps between asks,
 * 20 us doubling to 500 us (a 1080p decode takes ~1.4 ms on one engine):
 * seven 1080p H.264 streams used 0.53 ms of CPU a frame against 0.58 and
 * ran 2 % faster (run 97). A lone stream keeps the driver's wait: polled,
 * one 900-frame file took 18-25 ms longer (the sleeps' granularity on
 * every frame). GST_AVHW_VK_QUERY_WAIT=driver keeps the driver's wait
 * always, =poll polls always. The function reaches FFmpeg through the
 * device context's get_proc_addr (gstavhwvulkanhooks.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanhooks.h"
#include "gstavhwvulkanquerywait.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

#define QUERY_WAIT_MIN_US 20
#define QUERY_WAIT_MAX_US 500

typedef enum
{
  WAIT_AUTO,
  WAIT_DRIVER,
  WAIT_POLL,
} WaitMode;

static WaitMode mode;
/* the process's vulkan backend (registered backends live as long as the
 * process) and how many of its device indexes have had a device */
static GstAvhwBackend *vk_backend;
static guint n_indexes;

/* Whether two or more avhw sessions are active on the backend's devices:
 * the engines, not one stream's decodes, are then what the threads wait
 * for. */
static gboolean
several_active (void)
{
  GstAvhwBackend *b = g_atomic_pointer_get (&vk_backend);
  guint i, n = 0, indexes = (guint) g_atomic_int_get (&n_indexes);

  for (i = 0; b && i < indexes && n < 2; i++)
    n += gst_avhw_backend_get_n_active (b, i);
  return n >= 2;
}

static VKAPI_ATTR VkResult VKAPI_CALL
waited_get_query_pool_results (VkDevice dev, VkQueryPool pool,
    uint32_t first, uint32_t count, size_t size, void *data,
    VkDeviceSize stride, VkQueryResultFlags flags)
{
  gulong us = QUERY_WAIT_MIN_US;
  VkResult r;

  if (!(flags & VK_QUERY_RESULT_WAIT_BIT) || mode == WAIT_DRIVER
      || (mode == WAIT_AUTO && !several_active ()))
    return vkGetQueryPoolResults (dev, pool, first, count, size, data,
        stride, flags);
  flags &= ~VK_QUERY_RESULT_WAIT_BIT;
  while ((r = vkGetQueryPoolResults (dev, pool, first, count, size, data,
              stride, flags)) == VK_NOT_READY) {
    g_usleep (us);
    us = MIN (us * 2, QUERY_WAIT_MAX_US);
  }
  return r;
}

void
gst_avhw_vk_query_wait_install (AVHWDeviceContext * dctx,
    GstAvhwBackend * backend, guint index)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    const gchar *env = g_getenv ("GST_AVHW_VK_QUERY_WAIT");

    if (g_strcmp0 (env, "driver") == 0)
      mode = WAIT_DRIVER;
    else if (g_strcmp0 (env, "poll") == 0)
      mode = WAIT_POLL;
    else if (env && *env && g_strcmp0 (env, "auto") != 0)
      GST_WARNING ("GST_AVHW_VK_QUERY_WAIT=%s: not auto, driver or poll; "
          "auto", env);
    GST_INFO ("query results: %s", mode == WAIT_DRIVER ? "the driver waits" :
        mode == WAIT_POLL ? "polled" : "polled while several sessions run");
    g_once_init_leave (&once, 1);
  }
  g_atomic_pointer_set (&vk_backend, backend);
  while (TRUE) {
    guint n = (guint) g_atomic_int_get (&n_indexes);

    if (n > index || g_atomic_int_compare_and_exchange ((gint *) & n_indexes,
            (gint) n, (gint) index + 1))
      break;
  }
  if (mode != WAIT_DRIVER)
    gst_avhw_vk_hook_install (dctx, "vkGetQueryPoolResults", NULL,
        (PFN_vkVoidFunction) waited_get_query_pool_results);
}
