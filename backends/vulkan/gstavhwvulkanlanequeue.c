/* gst-avhw: Vulkan backend, a device lane's own decode queue
 *
 * Each VkDevice of the backend declares one decode queue to FFmpeg
 * (gstavhwvulkanqueues.h says why), and FFmpeg takes queue 0 of the
 * family. NVIDIA's driver decodes on one engine for a queue index,
 * whichever VkDevice the queue belongs to: seven 1080p H.264 streams, each
 * on a VkDevice of its own, ran at 471 fps on queue 0 of each (run 93) and
 * at 1,197 on queues 0 and 1 of each (run 88), while seven VkDevices are
 * what the device cache's lanes are for. So the VkDevice of lane k
 * (GST_AVHW_OPTION_LANE, gstavhwcache.c) makes k % n + 1 queues of its
 * decode family (of the n it has) and FFmpeg's vkGetDeviceQueue for queue
 * 0 of that family gets queue k % n: lanes decode on different queues, and
 * each decoder's frames still run on one queue, in order. The function
 * reaches FFmpeg through the device context's get_proc_addr
 * (gstavhwvulkanhooks.c); every other device and queue passes through.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanhooks.h"
#include "gstavhwvulkanlanequeue.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

typedef struct
{
  VkDevice dev;
  guint32 family, index;
  guint32 per_thread;           /* experiment: > 0, a queue of that many per thread */
} LaneQueue;

/* experiment (GST_AVHW_VK_THREAD_QUEUES=1): the queue each thread's
 * decoders get, + 1 */
static GPrivate thread_queue;
static gint next_thread_queue;

static GMutex lanes_lock;
static GArray *lanes;           /* LaneQueue, one per device that has one */

guint32 gst_avhw_vk_thread_queues;

guint32
gst_avhw_vk_lane_queue_index (guint lane, guint32 n_queues)
{
  return n_queues > 1 ? lane % n_queues : 0;
}

static VKAPI_ATTR void VKAPI_CALL
lane_get_device_queue (VkDevice dev, uint32_t family, uint32_t index,
    VkQueue * queue)
{
  guint i;

  if (index == 0) {
    g_mutex_lock (&lanes_lock);
    for (i = 0; lanes && i < lanes->len; i++) {
      LaneQueue *l = &g_array_index (lanes, LaneQueue, i);

      if (l->dev == dev && l->family == family) {
        index = l->index;
        if (l->per_thread) {
          guint q = GPOINTER_TO_UINT (g_private_get (&thread_queue));

          if (!q) {
            q = (guint) g_atomic_int_add (&next_thread_queue, 1)
                % l->per_thread + 1;
            g_private_set (&thread_queue, GUINT_TO_POINTER (q));
            GST_INFO ("thread %p decodes on queue %u", g_thread_self (), q - 1);
          }
          index = q - 1;
        }
        break;
      }
    }
    g_mutex_unlock (&lanes_lock);
  }
  vkGetDeviceQueue (dev, family, index, queue);
}

void
gst_avhw_vk_lane_queue_install (AVHWDeviceContext * dctx, guint32 family,
    guint32 index)
{
  AVVulkanDeviceContext *hwctx = dctx->hwctx;
  LaneQueue l = { hwctx->act_dev, family, index, 0 };

  if (index == G_MAXUINT32) {
    l.index = 0;
    l.per_thread = gst_avhw_vk_thread_queues;
  }

  g_mutex_lock (&lanes_lock);
  if (!lanes)
    lanes = g_array_new (FALSE, FALSE, sizeof (LaneQueue));
  g_array_append_val (lanes, l);
  g_mutex_unlock (&lanes_lock);
  gst_avhw_vk_hook_install (dctx, "vkGetDeviceQueue", NULL,
      (PFN_vkVoidFunction) lane_get_device_queue);
  GST_INFO ("VkDevice %p: FFmpeg decodes on queue %u of family %u",
      (gpointer) hwctx->act_dev, index, family);
}

void
gst_avhw_vk_lane_queue_remove (VkDevice dev)
{
  guint i;

  g_mutex_lock (&lanes_lock);
  for (i = 0; lanes && i < lanes->len; i++) {
    if (g_array_index (lanes, LaneQueue, i).dev == dev) {
      g_array_remove_index_fast (lanes, i);
      break;
    }
  }
  g_mutex_unlock (&lanes_lock);
}
