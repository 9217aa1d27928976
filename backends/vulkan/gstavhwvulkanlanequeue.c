/* gst-avhw: Vulkan backend, the decode queue each decoder uses
 *
 * Each VkDevice of the backend declares one decode queue to FFmpeg
 * (gstavhwvulkanqueues.h says why), and FFmpeg takes queue 0 of the
 * family. NVIDIA's driver decodes on one engine for a queue index,
 * whichever VkDevice the queue belongs to: seven 1080p H.264 streams, each
 * on a VkDevice of its own, ran at 471 fps on queue 0 of each (run 93) and
 * at 4,572 on a queue of its own each (run 94); seven processes on queue 0
 * share one engine the same way. FFmpeg's vkGetDeviceQueue for queue 0 of
 * the decode family therefore gets another queue on the device cache's
 * lanes (gstavhwcache.c, vk_get_default_lanes()):
 *
 * - lane 0 decodes on the queue the fewest on the machine claim, the
 *   lowest of those (gstavhwvulkanqueueclaim.h): a lone process on queue
 *   0, worker processes each on one of their own while there are queues,
 *   then two on each, and so on;
 * - the backend's lane 1 makes every queue of the family, and each thread
 *   that makes decoders on it claims a queue of its own the same way,
 *   given back when the thread ends (where it ties the queue of this
 *   process's lane 0, which takes more than one session, another): a
 *   pipeline's decoders are made in its streaming thread, so pipelines at
 *   once decode on different queues, on one device instead of one device
 *   each (one VkDevice with seven queues and a queue per thread: seven
 *   1080p H.264 streams 4,772-4,782 fps, the last first frame at 333 ms,
 *   against 4,611-4,659 and 1,011 ms on seven lanes; run 107). A thread
 *   finding every queue claimed GST_AVHW_VK_CLAIM_TIERS times takes one of
 *   queues 1 to n - 1, in turn (gstavhwvulkanthreadqueue.h);
 * - with lanes the application chose (GST_AVHW_DEVICE_LANES > 1), lane k's
 *   VkDevice makes k % n + 1 queues (of the n it has) and gets queue
 *   k % n.
 *
 * A decoder's frames run on the one queue its execution pool took, in
 * order. The function reaches FFmpeg through the device context's
 * get_proc_addr (gstavhwvulkanhooks.c); every other device and queue
 * passes through.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanhooks.h"
#include "gstavhwvulkanlanequeue.h"
#include "gstavhwvulkanqueueclaim.h"
#include "gstavhwvulkanthreadqueue.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

typedef struct
{
  VkDevice dev;
  guint32 family, index;
  guint32 per_thread;           /* > 0: each thread one of that many from index */
  guint32 n_family;             /* the family's queues, made on dev */
  gchar key[GST_AVHW_VK_KEY_LEN];       /* the claims' name of the device */
} LaneQueue;

static GMutex lanes_lock;
static GArray *lanes;           /* LaneQueue, one per device that has one */

guint32
gst_avhw_vk_lane_queue_index (guint lane, guint32 n_queues)
{
  return n_queues > 1 ? lane % n_queues : 0;
}

/* The queue of @l's family for the calling thread's decoders, other
 * than @lane0's (this process's lane 0 on the device, -1: none) where
 * another is claimed as few times: lane 0 takes further sessions on its
 * one queue (the cache's placement), so a thread that ties it there would
 * put three streams on one engine where every other has two. */
static guint32
thread_queue (const LaneQueue * l, gint lane0)
{
  gint claimed = gst_avhw_vk_thread_claim (gst_avhw_vk_claim_dir (), l->key,
      l->n_family, lane0);
  guint32 q;

  if (claimed >= 0) {
    GST_DEBUG ("thread %p: decode queue %d (claimed)", g_thread_self (),
        claimed);
    return (guint32) claimed;
  }
  q = l->index + gst_avhw_vk_thread_queue (l->per_thread);
  GST_DEBUG ("thread %p: decode queue %u (every queue claimed: in turn)",
      g_thread_self (), q);
  return q;
}

static VKAPI_ATTR void VKAPI_CALL
lane_get_device_queue (VkDevice dev, uint32_t family, uint32_t index,
    VkQueue * queue)
{
  LaneQueue found = { VK_NULL_HANDLE, };
  gint lane0 = -1;
  guint i;

  if (index == 0) {
    g_mutex_lock (&lanes_lock);
    for (i = 0; lanes && i < lanes->len; i++) {
      LaneQueue *l = &g_array_index (lanes, LaneQueue, i);

      if (l->dev == dev && l->family == family) {
        found = *l;
        break;
      }
    }
    for (i = 0; found.per_thread && i < lanes->len; i++) {
      LaneQueue *l = &g_array_index (lanes, LaneQueue, i);

      if (!l->per_thread && g_str_equal (l->key, found.key))
        lane0 = (gint) l->index;
    }
    g_mutex_unlock (&lanes_lock);
    if (found.dev)
      index = found.per_thread ? thread_queue (&found, lane0) : found.index;
  }
  vkGetDeviceQueue (dev, family, index, queue);
}

void
gst_avhw_vk_lane_queue_install (AVHWDeviceContext * dctx, guint32 family,
    guint32 index, guint32 per_thread, guint32 n_family, const gchar * key)
{
  AVVulkanDeviceContext *hwctx = dctx->hwctx;
  LaneQueue l = { hwctx->act_dev, family, index, per_thread, n_family, "" };

  g_strlcpy (l.key, key, sizeof (l.key));
  g_mutex_lock (&lanes_lock);
  if (!lanes)
    lanes = g_array_new (FALSE, FALSE, sizeof (LaneQueue));
  g_array_append_val (lanes, l);
  g_mutex_unlock (&lanes_lock);
  gst_avhw_vk_hook_install (dctx, "vkGetDeviceQueue", NULL,
      (PFN_vkVoidFunction) lane_get_device_queue);
  if (per_thread)
    GST_INFO ("VkDevice %p: each thread's decoders on a queue of family %u "
        "it claims, of %u", (gpointer) hwctx->act_dev, family, n_family);
  else
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
