/* gst-avhw: Vulkan backend, query results waited for without spinning
 *
 * FFmpeg 7.1's Vulkan decoder asks, before each decode, for the result of
 * the decode its execution context ran before (vkGetQueryPoolResults with
 * VK_QUERY_RESULT_WAIT_BIT, libavcodec/vulkan_decode.c). NVIDIA's driver
 * waits for that by spinning on the clock (the stalled threads of runs
 * 90-92 were all in clock_gettime under vkGetQueryPoolResults), so a
 * decoding thread ahead of the engines burns a CPU core while it waits.
 * Here the wait asks without the wait bit and sleeps between asks, 20 us
 * doubling to 500 us: a decode takes about 1.5 ms on one engine, and the
 * result is only the previous frame's status. GST_AVHW_VK_QUERY_WAIT=
 * driver leaves the driver's wait. The function reaches FFmpeg through
 * the device context's get_proc_addr (gstavhwvulkanhooks.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <vulkan/vulkan.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanhooks.h"
#include "gstavhwvulkanquerywait.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

#define QUERY_WAIT_MIN_US 20
#define QUERY_WAIT_MAX_US 500

static VKAPI_ATTR VkResult VKAPI_CALL
polled_get_query_pool_results (VkDevice dev, VkQueryPool pool,
    uint32_t first, uint32_t count, size_t size, void *data,
    VkDeviceSize stride, VkQueryResultFlags flags)
{
  gulong us = QUERY_WAIT_MIN_US;
  VkResult r;

  if (!(flags & VK_QUERY_RESULT_WAIT_BIT))
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
gst_avhw_vk_query_wait_install (AVHWDeviceContext * dctx)
{
  const gchar *env = g_getenv ("GST_AVHW_VK_QUERY_WAIT");

  if (env && g_strcmp0 (env, "driver") == 0) {
    GST_INFO ("GST_AVHW_VK_QUERY_WAIT=driver: the driver waits for query "
        "results");
    return;
  }
  gst_avhw_vk_hook_install (dctx, "vkGetQueryPoolResults", NULL,
      (PFN_vkVoidFunction) polled_get_query_pool_results);
}
